extension String {
    /// Equal but for ASCII case (header names are ASCII tokens), compared without allocating.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Through contiguous storage when both strings have it (native ones do): iterating a
        // UTF8View byte by byte is several times slower.
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in Self.asciiCaseInsensitiveEqual(a, b) }
        }
        return (contiguous ?? nil) ?? Self.asciiCaseInsensitiveEqual(utf8, other.utf8)
    }

    private static func asciiCaseInsensitiveEqual(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool {
        !zip(a, b).contains { $0.asciiLowercased != $1.asciiLowercased }
    }
}

extension UInt8 {
    var asciiLowercased: UInt8 { self >= 0x41 && self <= 0x5A ? self | 0x20 : self }
}
