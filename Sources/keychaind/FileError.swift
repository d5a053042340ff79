/// A file keychaind could not create or write: the message names it (no usage text follows).
struct FileError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
