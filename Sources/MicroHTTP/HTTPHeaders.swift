/// A request header list that keeps every occurrence and order, compared case-insensitively by name.
///
/// The names and values are kept as received, back to back in one buffer: a request's head is
/// read on every request, while the application looks at one or two of its headers, so values
/// become `String`s only when asked for.
public struct HTTPHeaders: Sendable, Sequence {
    /// Where one field's name and value sit in `bytes`.
    private struct Field: Sendable {
        var nameStart: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    private var bytes: [UInt8] = []
    private var fields: [Field] = []

    public init(_ entries: [(name: String, value: String)] = []) {
        for (name, value) in entries { append(name: name, value: value) }
    }

    /// The number of fields, repeated names included.
    public var count: Int { fields.count }

    /// The first value of `name`, compared without regard to ASCII case.
    public subscript(name: String) -> String? {
        firstIndex(named: name).map(value(at:))
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.indices.filter { nameEquals(at: $0, name) }.map(value(at:))
    }

    public mutating func append(name: String, value: String) {
        var name = name
        var value = value
        name.withUTF8 { name in value.withUTF8 { append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer($0)) } }
    }

    /// Appends a field from raw bytes (as libmicrohttpd hands them over).
    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        // As typed buffers: appending those is one copy, a raw buffer's bytes go one by one.
        let nameStart = Int32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: name.assumingMemoryBound(to: UInt8.self))
        let valueStart = Int32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))
        fields.append(Field(nameStart: nameStart, valueStart: valueStart, valueEnd: Int32(truncatingIfNeeded: bytes.count)))
    }

    /// Zeroes the names and values where they lie (a bearer token, a bundle passphrase), in the
    /// buffer this value shares with its copies: only for headers no other code reads again
    /// (a head the transport read, as it goes). Not `mutating`: a head's headers are a constant,
    /// whose reads then need no exclusivity check.
    func wipeInPlace() {
        bytes.withUnsafeBytes { bytes in
            WipedBytes.zero(UnsafeMutableRawBufferPointer(mutating: bytes))
        }
    }

    /// Reserves room for `fields` fields of `bytes` bytes in all.
    mutating func reserveCapacity(fields count: Int, bytes byteCount: Int) {
        fields.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    /// The name of field `index` (invalid UTF-8 read as U+FFFD).
    func name(at index: Int) -> String {
        let field = fields[index]
        return string(Int(field.nameStart)..<Int(field.valueStart))
    }

    /// The value of field `index` (invalid UTF-8 read as U+FFFD).
    func value(at index: Int) -> String {
        let field = fields[index]
        return string(Int(field.valueStart)..<Int(field.valueEnd))
    }

    /// Whether field `index` is named `name`, without regard to ASCII case.
    func nameEquals(at index: Int, _ name: String) -> Bool {
        let field = fields[index]
        let start = Int(field.nameStart)
        let count = Int(field.valueStart) - start
        guard name.utf8.count == count else { return false }
        var name = name
        return name.withUTF8 { expected in
            bytes.withUnsafeBufferPointer { all in
                for n in 0..<count where all[start + n].asciiLowercased != expected[n].asciiLowercased { return false }
                return true
            }
        }
    }

    func firstIndex(named name: String) -> Int? {
        fields.indices.first { nameEquals(at: $0, name) }
    }

    /// Whether field `index` is named `lowercased`, a lowercase ASCII literal, in any ASCII case:
    /// the transport's own lookups, compared without a `String`.
    func nameEquals(at index: Int, lowercased name: StaticString) -> Bool {
        let field = fields[index]
        let start = Int(field.nameStart)
        let count = Int(field.valueStart) - start
        guard name.utf8CodeUnitCount == count else { return false }
        let expected = name.utf8Start
        return bytes.withUnsafeBufferPointer { all in
            for n in 0..<count where all[start + n].asciiLowercased != expected[n] { return false }
            return true
        }
    }

    /// Calls `body` with the bytes of the first value of `name` (a lowercase ASCII literal,
    /// matched in any ASCII case), without making a `String` of them; `nil` without such a header.
    public func withFirstValue<R>(lowercased name: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        for index in fields.indices where nameEquals(at: index, lowercased: name) {
            let field = fields[index]
            return bytes.withUnsafeBufferPointer {
                body(UnsafeBufferPointer(rebasing: $0[Int(field.valueStart)..<Int(field.valueEnd)]))
            }
        }
        return nil
    }

    private func string(_ range: Range<Int>) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let headers: HTTPHeaders
        fileprivate var index = 0

        public mutating func next() -> (name: String, value: String)? {
            guard index < headers.count else { return nil }
            defer { index += 1 }
            return (headers.name(at: index), headers.value(at: index))
        }
    }

    public func makeIterator() -> Iterator { Iterator(headers: self) }
}
