import Foundation
import KeychainJSON

/// The API's canonical names (`account`, `genericPassword`) and Apple's values of the same
/// constants (`acct`, `genp`), for answers shaped as Keychain Services shapes them.
enum Names {
    /// Canonical attribute name → the value of its `kSecAttr…` constant.
    static let attributes: [String: String] = [
        "class": kSecClass, "accessGroup": kSecAttrAccessGroup, "accessible": kSecAttrAccessible,
        "synchronizable": kSecAttrSynchronizable, "label": kSecAttrLabel, "creationDate": kSecAttrCreationDate,
        "modificationDate": kSecAttrModificationDate, "account": kSecAttrAccount, "service": kSecAttrService,
        "generic": kSecAttrGeneric, "description": kSecAttrDescription, "comment": kSecAttrComment, "type": kSecAttrType,
        "isInvisible": kSecAttrIsInvisible, "isNegative": kSecAttrIsNegative, "securityDomain": kSecAttrSecurityDomain,
        "server": kSecAttrServer, "protocol": kSecAttrProtocol, "authenticationType": kSecAttrAuthenticationType,
        "port": kSecAttrPort, "path": kSecAttrPath, "certificateType": kSecAttrCertificateType,
        "certificateEncoding": kSecAttrCertificateEncoding, "subject": kSecAttrSubject, "issuer": kSecAttrIssuer,
        "serialNumber": kSecAttrSerialNumber, "subjectKeyID": kSecAttrSubjectKeyID, "publicKeyHash": kSecAttrPublicKeyHash,
        "keyClass": kSecAttrKeyClass, "applicationLabel": kSecAttrApplicationLabel, "applicationTag": kSecAttrApplicationTag,
        "keyType": kSecAttrKeyType, "keySizeInBits": kSecAttrKeySizeInBits, "effectiveKeySize": kSecAttrEffectiveKeySize,
        "creator": kSecAttrCreator, "startDate": kSecAttrStartDate, "endDate": kSecAttrEndDate,
        "isPermanent": kSecAttrIsPermanent, "canEncrypt": kSecAttrCanEncrypt, "canDecrypt": kSecAttrCanDecrypt,
        "canDerive": kSecAttrCanDerive, "canSign": kSecAttrCanSign, "canVerify": kSecAttrCanVerify,
        "canWrap": kSecAttrCanWrap, "canUnwrap": kSecAttrCanUnwrap, "isExtractable": kSecAttrIsExtractable,
        "isSensitive": kSecAttrIsSensitive,
    ]

    /// Canonical enumerated values → Apple's values, per attribute.
    static let values: [String: [String: String]] = [
        "class": Dictionary(uniqueKeysWithValues: ItemClass.allCases.map { ($0.rawValue, $0.constant) }),
        "accessible": [
            "whenUnlocked": kSecAttrAccessibleWhenUnlocked, "afterFirstUnlock": kSecAttrAccessibleAfterFirstUnlock,
            "always": kSecAttrAccessibleAlways, "whenUnlockedThisDeviceOnly": kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            "afterFirstUnlockThisDeviceOnly": kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            "alwaysThisDeviceOnly": kSecAttrAccessibleAlwaysThisDeviceOnly,
        ],
        "protocol": [
            "ftp": kSecAttrProtocolFTP, "ftpAccount": kSecAttrProtocolFTPAccount, "http": kSecAttrProtocolHTTP,
            "irc": kSecAttrProtocolIRC, "nntp": kSecAttrProtocolNNTP, "pop3": kSecAttrProtocolPOP3,
            "smtp": kSecAttrProtocolSMTP, "socks": kSecAttrProtocolSOCKS, "imap": kSecAttrProtocolIMAP,
            "ldap": kSecAttrProtocolLDAP, "appleTalk": kSecAttrProtocolAppleTalk, "afp": kSecAttrProtocolAFP,
            "telnet": kSecAttrProtocolTelnet, "ssh": kSecAttrProtocolSSH, "ftps": kSecAttrProtocolFTPS,
            "https": kSecAttrProtocolHTTPS, "httpProxy": kSecAttrProtocolHTTPProxy, "httpsProxy": kSecAttrProtocolHTTPSProxy,
            "ftpProxy": kSecAttrProtocolFTPProxy, "smb": kSecAttrProtocolSMB, "rtsp": kSecAttrProtocolRTSP,
            "rtspProxy": kSecAttrProtocolRTSPProxy, "daap": kSecAttrProtocolDAAP, "eppc": kSecAttrProtocolEPPC,
            "ipp": kSecAttrProtocolIPP, "nntps": kSecAttrProtocolNNTPS, "ldaps": kSecAttrProtocolLDAPS,
            "telnetS": kSecAttrProtocolTelnetS, "imaps": kSecAttrProtocolIMAPS, "ircs": kSecAttrProtocolIRCS,
            "pop3S": kSecAttrProtocolPOP3S,
        ],
        "authenticationType": [
            "ntlm": kSecAttrAuthenticationTypeNTLM, "msn": kSecAttrAuthenticationTypeMSN,
            "dpa": kSecAttrAuthenticationTypeDPA, "rpa": kSecAttrAuthenticationTypeRPA,
            "httpBasic": kSecAttrAuthenticationTypeHTTPBasic, "httpDigest": kSecAttrAuthenticationTypeHTTPDigest,
            "htmlForm": kSecAttrAuthenticationTypeHTMLForm, "default": kSecAttrAuthenticationTypeDefault,
        ],
        "keyClass": [
            "public": kSecAttrKeyClassPublic, "private": kSecAttrKeyClassPrivate, "symmetric": kSecAttrKeyClassSymmetric,
        ],
        "keyType": ["rsa": kSecAttrKeyTypeRSA, "ec": kSecAttrKeyTypeECSECPrimeRandom, "aes": kSecAttrKeyTypeAES],
    ]

    static let dates: Set = ["creationDate", "modificationDate", "startDate", "endDate"]
    static let bytes: Set = [
        "generic", "subject", "issuer", "serialNumber", "subjectKeyID", "publicKeyHash", "applicationLabel", "applicationTag",
    ]

    /// Apple's key for the canonical attribute `name` (itself when Apple has none).
    static func short(_ name: String) -> String { attributes[name] ?? name }

    /// The value Keychain Services gives for `value` of the attribute `name`.
    static func appleValue(_ name: String, _ value: AttributeValue) -> Any {
        if case .string(let s) = value, let apple = values[name]?[s] { return apple }
        return value.appleValue
    }

    /// An answer's attribute value, typed by what the attribute holds.
    static func attributeValue(_ name: String, _ json: JSON) -> AttributeValue? {
        switch json {
        case .string(let s):
            if dates.contains(name) { return RFC3339.date(s).map(AttributeValue.date) }
            if bytes.contains(name) { return Data(base64Encoded: s).map(AttributeValue.data) }
            return .string(s)
        case .int(let i): return .int(i)
        case .double(let d): return d.rounded() == d ? .int(Int64(d)) : nil
        case .bool(let b): return .bool(b)
        default: return nil
        }
    }
}
