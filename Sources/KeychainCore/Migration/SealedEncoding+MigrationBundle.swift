import KeychainBarrier
import KeychainCrypto
import KeychainJSON

extension SealedEncoding.Writer {
    mutating func append(int64 value: Int64) {
        append(UInt32(truncatingIfNeeded: UInt64(bitPattern: value) >> 32))
        append(UInt32(truncatingIfNeeded: UInt64(bitPattern: value)))
    }
}

extension SealedEncoding.Reader {
    mutating func int64() -> Int64? {
        guard let high = uint32(), let low = uint32() else { return nil }
        return Int64(bitPattern: UInt64(high) << 32 | UInt64(low))
    }
}
