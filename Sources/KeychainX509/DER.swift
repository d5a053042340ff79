internal import COpenSSL

/// The few DER rules this module needs: one tag-length-value at a time, bounds-checked, over
/// untrusted bytes. Single-byte tags only (every tag of an X.501 Name and an INTEGER is one);
/// definite lengths only, as DER requires.
enum DER {
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static let objectIdentifier: UInt8 = 0x06
    static let printableString: UInt8 = 0x13
    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let octetString: UInt8 = 0x04

    /// One element: its tag and the range of its content in the buffer it was read from.
    struct Element {
        let tag: UInt8
        let content: Range<Int>
        /// The index just past the element.
        let end: Int
    }

    /// The element starting at `start`, ending at or before `limit`; `nil` when malformed.
    static func element(_ bytes: [UInt8], at start: Int, limit: Int) -> Element? {
        guard start < limit, limit <= bytes.count else { return nil }
        let tag = bytes[start]
        guard tag & 0x1F != 0x1F else { return nil }  // a multi-byte tag
        var index = start + 1
        guard index < limit else { return nil }
        let first = bytes[index]
        index += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            // 0x80 is BER's indefinite length; more than 4 length bytes is more than any input here.
            guard count >= 1, count <= 4, index + count <= limit else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard length <= limit - index else { return nil }
        return Element(tag: tag, content: index..<index + length, end: index + length)
    }

    /// The elements of a constructed element's content, in order; `nil` when one is malformed.
    static func children(_ bytes: [UInt8], of content: Range<Int>) -> [Element]? {
        var elements: [Element] = []
        var index = content.lowerBound
        while index < content.upperBound {
            guard let element = element(bytes, at: index, limit: content.upperBound) else { return nil }
            elements.append(element)
            index = element.end
        }
        return elements
    }

    /// `tag`, the definite length of `content` in DER's minimal form, then `content`.
    static func encode(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let n = content.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else {
            var lengthBytes: [UInt8] = []
            var rest = n
            while rest > 0 {
                lengthBytes.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + content
    }
}

/// One OpenSSL `d2i_…` call over untrusted bytes, which must be the whole input.
enum D2I {
    enum Outcome {
        case parsed(OpaquePointer)
        /// Nothing parsed (OpenSSL's error queue cleared).
        case malformed
        /// An object parsed but bytes follow it (the object already freed).
        case trailing
    }

    /// Runs `d2i` (given a cursor into `der` and its length) and checks it consumed all of `der`.
    static func parse(
        _ der: [UInt8], _ d2i: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
        free: (OpaquePointer) -> Void
    ) -> Outcome {
        var parsed: OpaquePointer?
        var consumed = 0
        der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            parsed = d2i(&cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
        }
        guard let parsed else {
            ERR_clear_error()
            return .malformed
        }
        guard consumed == der.count else {
            free(parsed)
            return .trailing
        }
        return .parsed(parsed)
    }
}

/// One OpenSSL `i2d_…` call: the DER it writes, copied out of the buffer OpenSSL allocated, which
/// is then freed (wiped first when `secret`: a private key's encoding).
enum I2D {
    static func encode(
        secret: Bool, _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32
    ) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d(&out)
        guard length > 0, let out else {
            ERR_clear_error()
            return nil
        }
        defer {
            if secret { CRYPTO_clear_free(out, Int(length), #fileID, #line) } else { CRYPTO_free(out, #fileID, #line) }
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
