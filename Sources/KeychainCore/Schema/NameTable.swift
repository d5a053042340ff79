#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fixed map from names to numbers, for the key spellings every query is checked against.
///
/// FNV-1a over the UTF-8 bytes and linear probing in a table at most a quarter full: one
/// lookup costs a fraction of a `[String: …]` lookup, which runs SipHash and the generic
/// equality of `String`.
struct NameTable: Sendable {
    private struct Slot: Sendable {
        /// Where the name's bytes start in `bytes`; `count == 0` marks an empty slot.
        var start: Int32 = 0
        var count: Int32 = 0
        var value: Int32 = 0
    }

    private let slots: [Slot]
    private let bytes: [UInt8]
    private let mask: Int

    /// - Precondition: names are distinct and not empty.
    init(_ entries: [(name: String, value: Int32)]) {
        var size = 8
        while size < entries.count * 4 { size *= 2 }
        var slots = [Slot](repeating: Slot(), count: size)
        var bytes: [UInt8] = []
        for (name, value) in entries {
            let utf8 = Array(name.utf8)
            precondition(!utf8.isEmpty, "a name table holds non-empty names")
            var index = Int(Self.hash(utf8)) & (size - 1)
            while slots[index].count != 0 {
                precondition(!Self.equal(bytes, slots[index], utf8), "a name table holds each name once")
                index = (index + 1) & (size - 1)
            }
            slots[index] = Slot(start: Int32(bytes.count), count: Int32(utf8.count), value: value)
            bytes.append(contentsOf: utf8)
        }
        self.slots = slots
        self.bytes = bytes
        self.mask = size - 1
    }

    /// The value of `name`, compared byte for byte (so case-sensitively); `nil` if absent.
    subscript(name: String) -> Int32? {
        var name = name
        return name.withUTF8 { find($0) }
    }

    private func find(_ name: UnsafeBufferPointer<UInt8>) -> Int32? {
        guard !name.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            bytes.withUnsafeBufferPointer { bytes in
                var index = Int(Self.hash(name)) & mask
                while true {
                    let slot = slots[index]
                    if slot.count == 0 { return nil }
                    if Int(slot.count) == name.count,
                        memcmp(bytes.baseAddress! + Int(slot.start), name.baseAddress!, name.count) == 0
                    {
                        return slot.value
                    }
                    index = (index + 1) & mask
                }
            }
        }
    }

    private static func equal(_ bytes: [UInt8], _ slot: Slot, _ name: [UInt8]) -> Bool {
        Int(slot.count) == name.count && bytes[Int(slot.start)..<Int(slot.start + slot.count)].elementsEqual(name)
    }

    /// 32-bit FNV-1a.
    private static func hash(_ name: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in name {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash
    }
}
