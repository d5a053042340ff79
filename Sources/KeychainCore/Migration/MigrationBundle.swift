import KeychainBarrier
import KeychainCrypto
import KeychainJSON

/// One item as a bundle carries it: everything an item is, its secret opened.
struct BundleItem {
    /// The keychain it was exported from; `nil` in a format-1 bundle, which names none.
    var keychain: String?
    var itemClass: ItemClass
    var protection: Protection
    var synchronizable: Bool
    var created: Int64
    var modified: Int64
    var ref: [UInt8]
    var group: String
    /// Every attribute but accessGroup, accessible, synchronizable and the dates.
    var attributes: [(key: SchemaKey, value: AttributeValue)]
    var secret: [UInt8]?
    /// Its access object, carried as it is: token ids the destination lacks trust no token there.
    var access: AccessObject? = nil
}

/// The migration bundle format, version 2 (docs/backups-and-migration.md, Migration bundles).
///
/// Header (65 bytes): `KCBUNDLE` (8), version (1), Argon2id opslimit (8, big-endian), memlimit
/// (8, big-endian), salt (16), the secretstream header (24). Then messages of
/// `crypto_secretstream_xchacha20poly1305` under the key Argon2id derives from the bundle
/// passphrase, each as its length (4, big-endian) and its sealed bytes, each binding the whole
/// header as associated data: first the manifest (JSON), then batches of items, the last
/// message tagged FINAL. Nothing follows it. Version 2 names each item's keychain; version 1,
/// which a reader still opens, has no keychain field.
enum MigrationBundle {
    static let magic = Array("KCBUNDLE".utf8)
    static let version: UInt8 = 2
    /// The versions a reader opens.
    static let readableVersions: ClosedRange<UInt8> = 1...version
    static let headerLength = 8 + 1 + 8 + 8 + PasswordHash.saltLength + SecretStream.headerLength
    /// A batch is sealed once its plaintext reaches this size (or holds `batchItems` items).
    static let batchBytes = 1 << 20
    static let batchItems = 1000
    /// The largest sealed message a reader takes: a batch's last item may carry it past `batchBytes`.
    static let maxMessageBytes = 16 << 20
    /// The Argon2id limits a bundle may ask of its reader: at most SENSITIVE memory, 16 passes.
    static let maxLimits = KDFLimits(opsLimit: 16, memLimit: KDFLimits.sensitive.memLimit)

    // MARK: writing

    /// The bundle of `items` under `key` (derived with `salt` and `limits`), whole: `Writer`'s
    /// pieces joined (for bundles of items already in hand; an export streams them instead).
    static func seal(
        manifest: BundleManifest, items: [BundleItem], key: SecureBytes, salt: [UInt8], limits: KDFLimits,
        version: UInt8 = version
    ) throws(KeychainError) -> [UInt8] {
        var writer = try Keychain.crypto { () throws(CryptoError) in
            try Writer(manifest: manifest, key: key, salt: salt, limits: limits, version: version)
        }
        var bundle: [UInt8] = []
        while let piece = try writer.next({ items[$0] }) { bundle += piece }
        return bundle
    }

    /// Writes a bundle piece by piece, so that at most one batch of items is ever open: first
    /// the header and the manifest's message, then one sealed batch per call, the last message
    /// tagged FINAL (the manifest's own when there is no item). Joined, the pieces are the
    /// bundle; a prefix of them without the FINAL message is a truncated bundle, which no
    /// reader opens (errSecAuthFailed).
    struct Writer {
        private let stream: SecretStream.Pusher
        /// Written first, and bound as associated data into every message.
        private let header: [UInt8]
        /// The manifest, until its message is written.
        private var manifest: BundleManifest?
        private let itemCount: Int
        /// The format written: `MigrationBundle.version`, or 1 where a test makes an old bundle.
        private let version: UInt8
        /// The index of the next item to write.
        private var index = 0
        /// Whether the FINAL message is written: `next` answers `nil` from then on.
        private(set) var isFinished = false

        /// A writer of the bundle of `manifest.itemCount` items under `key` (derived with
        /// `salt` and `limits`, which the header carries).
        init(
            manifest: BundleManifest, key: SecureBytes, salt: [UInt8], limits: KDFLimits, version: UInt8 = MigrationBundle.version
        ) throws(CryptoError) {
            stream = try SecretStream.Pusher(key: key)
            self.version = version
            var header = magic
            header.append(version)
            withUnsafeBytes(of: limits.opsLimit.bigEndian) { header.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(limits.memLimit).bigEndian) { header.append(contentsOf: $0) }
            header.append(contentsOf: salt)
            header.append(contentsOf: stream.header)
            self.header = header
            self.manifest = manifest
            itemCount = manifest.itemCount
        }

        /// The next piece of the bundle, `nil` after the FINAL message: the header and the
        /// manifest's message, then a batch of items (up to `batchItems`, or until its plaintext
        /// reaches `batchBytes`), each item asked of `item` by its index (below
        /// `manifest.itemCount`, in order) only as its batch is built. An item's secret is wiped
        /// once encoded, the batch's plaintext once sealed (or once `item` threw). What `item`
        /// throws ends the bundle: the writer is not to be used again.
        mutating func next(_ item: (Int) throws(KeychainError) -> BundleItem) throws(KeychainError) -> [UInt8]? {
            guard !isFinished else { return nil }
            if let manifest {
                self.manifest = nil
                var plaintext = manifest.encoded
                defer { Sodium.wipe(&plaintext) }
                let first = message(plaintext, final: itemCount == 0)
                return header + first
            }
            var batch = SealedEncoding.Writer()
            // Room for a whole batch, so that no growth leaves an unwiped copy behind (a last
            // item larger than the slack still grows it).
            batch.reserveCapacity(batchBytes + 128 * 1024)
            defer { batch.wipe() }
            // The batch's item count, set once known; then its items.
            batch.append(UInt32(0))
            var inBatch = 0
            repeat {
                var next = try item(index)
                Self.append(next, to: &batch, version: version)
                if next.secret != nil { Sodium.wipe(&next.secret!) }
                index += 1
                inBatch += 1
            } while inBatch < batchItems && batch.bytes.count < batchBytes && index < itemCount
            batch.set(UInt32(inBatch), at: 1)
            return message(batch.bytes, final: index == itemCount)
        }

        /// `plaintext` sealed as the stream's next message, framed by its length.
        private mutating func message(_ plaintext: [UInt8], final: Bool) -> [UInt8] {
            let sealed = stream.push(plaintext, associatedData: header, final: final)
            isFinished = final
            var framed: [UInt8] = []
            framed.reserveCapacity(4 + sealed.count)
            withUnsafeBytes(of: UInt32(sealed.count).bigEndian) { framed.append(contentsOf: $0) }
            framed.append(contentsOf: sealed)
            return framed
        }

        private static func append(_ item: BundleItem, to writer: inout SealedEncoding.Writer, version: UInt8) {
            if version >= 2 { writer.append(bytes: Array((item.keychain ?? KeychainName.default).utf8)) }
            writer.append(byte: UInt8(item.itemClass.rawValue))
            writer.append(byte: UInt8(item.protection.rawValue))
            writer.append(byte: item.synchronizable ? 1 : 0)
            writer.append(int64: item.created)
            writer.append(int64: item.modified)
            writer.append(bytes: item.ref)
            var attributes = SealedAttributes.encode(group: item.group, attributes: item.attributes, access: item.access)
            writer.append(bytes: attributes)
            Sodium.wipe(&attributes)
            if let secret = item.secret {
                writer.append(byte: 1)
                writer.append(bytes: secret)
            } else {
                writer.append(byte: 0)
            }
        }
    }

    // MARK: reading

    /// A bundle's header, as read.
    struct Header {
        var version: UInt8
        var limits: KDFLimits
        var salt: [UInt8]
        var streamHeader: [UInt8]
    }

    /// The header's parts; errSecDecode when `bundle` does not start with a header of a version
    /// this build reads, with limits it accepts.
    static func header(of bundle: [UInt8]) throws(KeychainError) -> Header {
        try bundle.withUnsafeBytes { bytes in Result { () throws(KeychainError) in try header(of: bytes) } }.get()
    }

    static func header(of bundle: UnsafeRawBufferPointer) throws(KeychainError) -> Header {
        guard bundle.count >= headerLength, Array(bundle[0..<8]) == magic else {
            throw .decode("bundle: not a keychaind migration bundle (no KCBUNDLE header)")
        }
        guard readableVersions.contains(bundle[8]) else {
            throw .decode("bundle: format version \(bundle[8]) is not one this build reads (it reads 1 to \(version))")
        }
        func uint64(at offset: Int) -> UInt64 { bundle[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        let ops = uint64(at: 9)
        let mem = uint64(at: 17)
        let minimum = KDFLimits.insecureMinimumForTesting
        guard ops >= minimum.opsLimit, ops <= maxLimits.opsLimit, mem >= UInt64(minimum.memLimit),
            mem <= UInt64(maxLimits.memLimit)
        else { throw .decode("bundle: its Argon2id limits are outside what this build accepts") }
        let salt = Array(bundle[25..<25 + PasswordHash.saltLength])
        let streamHeader = Array(bundle[(25 + PasswordHash.saltLength)..<headerLength])
        return Header(
            version: bundle[8], limits: KDFLimits(opsLimit: ops, memLimit: Int(mem)), salt: salt, streamHeader: streamHeader)
    }

    /// Opens every message of `bundle` under `key`: the manifest and the items, or an error and
    /// nothing. errSecAuthFailed when a message fails authentication (a wrong passphrase, an
    /// altered, reordered or missing message) or the bundle ends before its FINAL message;
    /// errSecDecode when what was authenticated is malformed.
    static func open(_ bundle: [UInt8], key: SecureBytes, header: Header) throws(KeychainError)
        -> (manifest: BundleManifest, items: [BundleItem])
    {
        var items: [BundleItem] = []
        let manifest = try bundle.withUnsafeBytes { bytes in
            Result { () throws(KeychainError) in try open(bytes, key: key, header: header) { items.append($0) } }
        }.get()
        return (manifest, items)
    }

    /// `open`, handing each item to `each` as its message is opened rather than holding them
    /// all: one batch of opened secrets at a time, wiped once handed over (`each` keeps none). The
    /// manifest is checked against the items once the last is handed over; a caller must
    /// discard what it made of them when this throws.
    static func open(
        _ bundle: UnsafeRawBufferPointer, key: SecureBytes, header read: Header,
        each: (BundleItem) throws(KeychainError) -> Void
    ) throws(KeychainError) -> BundleManifest {
        let header = Array(bundle[0..<headerLength])
        let stream: SecretStream.Puller
        do { stream = try SecretStream.Puller(key: key, header: read.streamHeader) } catch {
            throw .decode("bundle: its stream header is malformed")
        }
        var offset = headerLength
        var manifest: BundleManifest?
        var recount = BundleManifest(created: 0, leftBehind: [:])
        var message = 0
        while !stream.finished {
            guard bundle.count - offset >= 4 else { throw truncated }
            let length = Int(bundle[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            offset += 4
            guard length <= maxMessageBytes, bundle.count - offset >= length else { throw truncated }
            var plaintext: [UInt8]
            do {
                plaintext = try stream.pull(
                    UnsafeRawBufferPointer(rebasing: bundle[offset..<offset + length]), associatedData: header)
            } catch {
                throw message == 0
                    ? .authFailed("bundlePassphrase: the passphrase is wrong, or the bundle's header was altered")
                    : .authFailed("bundle: message \(message) failed authentication (altered, reordered or from another bundle)")
            }
            offset += length
            defer { Sodium.wipe(&plaintext) }
            if message == 0 {
                guard let opened = BundleManifest(decoding: plaintext), opened.format == Int(read.version) else {
                    throw .decode("bundle: its manifest is malformed")
                }
                manifest = opened
            } else {
                var batch: [BundleItem] = []
                // The batch holds the only copy of each opened secret once `each` returns.
                defer { for n in batch.indices where batch[n].secret != nil { Sodium.wipe(&batch[n].secret!) } }
                try readBatch(plaintext, message: message, version: read.version, into: &batch)
                for item in batch {
                    recount.count(item.itemClass, group: item.group, protection: item.protection, keychain: item.keychain)
                    try each(item)
                }
            }
            message += 1
        }
        guard offset == bundle.count else {
            throw .decode("bundle: \(bundle.count - offset) bytes follow its final message")
        }
        guard let manifest else { throw truncated }
        recount.format = manifest.format
        recount.created = manifest.created
        recount.leftBehind = manifest.leftBehind
        guard recount == manifest else {
            throw .decode("bundle: its manifest does not count the \(recount.itemCount) items it holds")
        }
        return manifest
    }

    private static let truncated = KeychainError.authFailed("bundle: truncated: it ends before its final message")

    private static func readBatch(_ plaintext: [UInt8], message: Int, version: UInt8, into items: inout [BundleItem])
        throws(KeychainError)
    {
        let malformed = KeychainError.decode("bundle: message \(message) holds a malformed item")
        guard var reader = SealedEncoding.Reader(plaintext), let count = reader.uint32() else { throw malformed }
        for _ in 0..<count {
            var keychain: String?
            if version >= 2 {
                guard let name = reader.byteString().map({ String(decoding: $0, as: UTF8.self) }), KeychainName.isValid(name)
                else { throw .decode("bundle: message \(message) holds an item of a malformed keychain name") }
                keychain = name
            }
            guard let classCode = reader.byte(), let protectionCode = reader.byte(), let sync = reader.byte(), sync <= 1,
                let created = reader.int64(), let modified = reader.int64(), let ref = reader.byteString(),
                ref.count == PersistentRef.length, var attributes = reader.byteString(), let hasSecret = reader.byte(),
                hasSecret <= 1
            else { throw malformed }
            defer { Sodium.wipe(&attributes) }
            guard let itemClass = ItemClass(rawValue: Int(classCode)) else {
                throw .noSuchClass("class: the bundle holds an item of an unknown class (\(classCode))")
            }
            guard let protection = Protection(rawValue: Int(protectionCode)) else {
                throw .param("accessible: the bundle holds an item of an unknown protection class (\(protectionCode))")
            }
            guard let (group, values, access) = SealedAttributes.decode(attributes) else {
                throw .decode("bundle: an item's attributes are malformed or name an attribute this build lacks")
            }
            var secret: [UInt8]?
            if hasSecret == 1 {
                guard let bytes = reader.byteString() else { throw malformed }
                secret = bytes
            }
            items.append(
                BundleItem(
                    keychain: keychain, itemClass: itemClass, protection: protection, synchronizable: sync == 1, created: created,
                    modified: modified, ref: ref, group: group, attributes: values, secret: secret, access: access))
        }
        guard reader.isAtEnd else { throw malformed }
    }
}
