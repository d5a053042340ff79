import KeychainJSON

/// Writes records as hash-chained lines: each line carries `prev`, the `mac` of the line before
/// it, and ends with its own `mac`, the chain key's keyed hash of every byte before `,"mac":"`.
///
/// So editing a line breaks its own `mac`, and removing or reordering lines breaks the next
/// line's `prev`; without the instance key neither can be mended (`AuditVerifier`). A chain
/// starts with `"prev": null` in a new file (or on standard output, at each start of the
/// process); a file keychaind reopens continues the chain of its last line.
public struct AuditChain: Sendable {
    private let keys: AuditKeys
    /// The `mac` of the last line written (22 base64url characters), when `chained`.
    private var lastMAC = InlineArray<22, UInt8>(repeating: 0)
    private var chained = false

    /// The `mac` of the last line written; `nil` before the first.
    public var last: String? {
        chained ? lastMAC.span.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } : nil
    }

    /// A chain continuing `last`, the `mac` of a log's last line. A value this chain could not
    /// have written (not 22 base64url characters: an edited file) is not continued: the next
    /// line starts a new chain, which the verifier reports.
    public init(keys: AuditKeys, continuing last: String? = nil) {
        self.keys = keys
        guard let last, last.utf8.count == 22, last.utf8.allSatisfy(AuditRecord.isWordByte) else { return }
        for (n, byte) in last.utf8.enumerated() { lastMAC[n] = byte }
        chained = true
    }

    /// The sealed line for `record`, without its newline.
    public mutating func line(for record: AuditRecord) -> [UInt8] {
        var line: [UInt8] = []
        append(record, to: &line)
        return line
    }

    /// Appends the sealed line for `record` to `out`, without its newline.
    public mutating func append(_ record: AuditRecord, to out: inout [UInt8]) {
        // `,"prev":` and a mac or null, `,"mac":"`, a mac, `"}`.
        let chainBytes = 8 + (AuditKeys.macBytes + 2) + 8 + AuditKeys.macBytes + 2
        out.append(atMost: record.lineBound + chainBytes) { out in
            let start = out.count
            record.write(to: &out, keys: keys)
            out.literal(#","prev":"#)
            if chained {
                out.byte(UInt8(ascii: "\""))
                let last = lastMAC
                for n in 0..<AuditKeys.macBytes { out.byte(last[n]) }
                out.byte(UInt8(ascii: "\""))
            } else {
                out.literal("null")
            }
            let covered = start..<out.count
            out.literal(#","mac":""#)
            let mac = out.count
            keys.appendMAC(covering: covered, to: &out)
            let written = out.written
            for n in 0..<AuditKeys.macBytes { lastMAC[n] = written[mac + n] }
            chained = true
            out.literal(#""}"#)
        }
    }
}
