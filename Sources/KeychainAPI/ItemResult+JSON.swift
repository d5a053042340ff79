public import ExtrasBase64
import KeychainAudit
public import KeychainCore
public import KeychainJSON
import KeychainLog

extension ItemResult {
    /// `{ "attributes": {…}, "valueData": "…", "persistentRef": "…" }`: the requested parts.
    public var json: JSONObject {
        var json = JSONObject()
        if let attributes { json["attributes"] = .object(attributes.json) }
        if let secret { json["valueData"] = .string(Base64.encodeToString(bytes: secret)) }
        if let certificateData { json["certificateData"] = .string(Base64.encodeToString(bytes: certificateData)) }
        if let reference { json["valueRef"] = .object(reference.json) }
        if includesRef { json["persistentRef"] = .string(persistentRef) }
        return json
    }

    /// Appends `json`, serialized, to `out`: written straight from the parts, since every
    /// answer to a search goes through here.
    public func write(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let attributes {
            out.appendLiteral(#""attributes":"#)
            attributes.write(into: &out)
        }
        if let secret {
            if attributes != nil { out.append(UInt8(ascii: ",")) }
            out.appendLiteral(#""valueData":""#)
            out.appendBase64(secret)
            out.append(UInt8(ascii: "\""))
        }
        if let certificateData {
            if attributes != nil || secret != nil { out.append(UInt8(ascii: ",")) }
            out.appendLiteral(#""certificateData":""#)
            out.appendBase64(certificateData)
            out.append(UInt8(ascii: "\""))
        }
        if let reference {
            if attributes != nil || secret != nil || certificateData != nil { out.append(UInt8(ascii: ",")) }
            out.appendLiteral(#""valueRef":"#)
            JSON.object(reference.json).write(into: &out)
        }
        if includesRef {
            if attributes != nil || secret != nil || certificateData != nil || reference != nil { out.append(UInt8(ascii: ",")) }
            out.appendLiteral(#""persistentRef":""#)
            // A keychain's name needs no escaping (`KeychainName`).
            if !keychain.isSameBytes(as: KeychainName.default) {
                out.append(contentsOf: keychain.utf8)
                out.append(UInt8(ascii: "."))
            }
            out.appendBase64(ref, options: [.base64UrlAlphabet, .omitPaddingCharacter])
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension ItemReference {
    /// `{"certificate": "…", "key": "…", "keyType": "ec", "keyClass": "private"}`: the parts it has.
    public var json: JSONObject {
        var json = JSONObject()
        if let certificate { json["certificate"] = .string(Base64.encodeToString(bytes: certificate)) }
        if let key { json["key"] = .string(Base64.encodeToString(bytes: key)) }
        if let keyType { json["keyType"] = .string(keyType) }
        if let keyClass { json["keyClass"] = .string(keyClass) }
        return json
    }
}

extension ItemAttributes {
    /// The `attributes` object of an answer: the fields every item has, then the others in
    /// the order they were given.
    public var json: JSONObject {
        var entries: [(key: String, value: JSON)] = [
            ("class", .string(itemClass.name)), ("accessGroup", .string(accessGroup)), ("accessible", .string(accessible.name)),
            ("synchronizable", .bool(synchronizable)),
            ("creationDate", .string(RFC3339.format(milliseconds: creationDate))),
            ("modificationDate", .string(RFC3339.format(milliseconds: modificationDate))),
        ]
        entries.reserveCapacity(entries.count + values.count)
        for (key, value) in values { entries.append((key.name, value.json(as: key.type))) }
        return JSONObject(entries)
    }

    /// Appends `json`, serialized, to `out`: the same bytes, written straight from the fields
    /// (docs/performance.md#answers-written-from-their-parts).
    public func write(into out: inout [UInt8]) {
        func date(_ milliseconds: Int64) {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: RFC3339.format(milliseconds: milliseconds).utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.appendLiteral(#"{"class":"#)
        JSON.appendString(itemClass.name, to: &out)
        out.appendLiteral(#","accessGroup":"#)
        JSON.appendString(accessGroup, to: &out)
        out.appendLiteral(#","accessible":"#)
        JSON.appendString(accessible.name, to: &out)
        out.appendLiteral(synchronizable ? #","synchronizable":true"# : #","synchronizable":false"#)
        out.appendLiteral(#","creationDate":"#)
        date(creationDate)
        out.appendLiteral(#","modificationDate":"#)
        date(modificationDate)
        for n in values.indices {
            out.append(UInt8(ascii: ","))
            JSON.appendString(values[n].key.name, to: &out)
            out.append(UInt8(ascii: ":"))
            switch (values[n].value, values[n].key.type) {
            case (.int(let ms), .date): date(ms)
            case (.string(let s), _): JSON.appendString(s, to: &out)
            case (.bytes(let b), _):
                out.append(UInt8(ascii: "\""))
                out.appendBase64(b)
                out.append(UInt8(ascii: "\""))
            case (.int(let i), _): out.appendDecimal(i)
            case (.bool(let b), _): out.appendLiteral(b ? "true" : "false")
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension AttributeValue {
    /// The JSON an answer shows for a value of `type`.
    public func json(as type: ValueType) -> JSON {
        switch (self, type) {
        case (.int(let ms), .date): .string(RFC3339.format(milliseconds: ms))
        case (.string(let s), _): .string(s)
        case (.bytes(let b), _): .string(Base64.encodeToString(bytes: b))
        case (.int(let i), _): .int(i)
        case (.bool(let b), _): .bool(b)
        }
    }
}

extension [UInt8] {
    /// Appends the base64 encoding of `bytes` (standard alphabet, padded, unless `options`
    /// say otherwise), encoded in place without an intermediate array.
    public mutating func appendBase64(_ bytes: [UInt8], options: Base64.EncodingOptions = []) {
        let start = count
        let length = Base64.encodedLength(bytesCount: bytes.count, options: options)
        append(contentsOf: repeatElement(0, count: length))
        var whole = mutableSpan
        var output = whole.extracting(start..<start + length)
        Base64.encode(bytes: bytes.span, into: &output, options: options)
    }
}

extension ItemResult {
    /// The item's ref as the audit log records it (`AuditRecord.refBytes`).
    var auditedRef: [UInt8] { AuditRecord.refBytes(ref, keychain: keychain) }

    /// The refs of the items the answer read (`touchedRefs`), as the audit log records them.
    var auditedRefs: [[UInt8]] { touchedRefs.map { AuditRecord.refBytes($0, keychain: keychain) } }
}
