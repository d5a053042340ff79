// The Keychain Services constants, with the values Apple's Security framework gives them
// (SecItem.h), so that a query dictionary written for Apple platforms reads the same here.

/// A Keychain Services result code: 0 is success, anything else an `errSec…` value.
public typealias OSStatus = Int32

// MARK: - Classes

/// The key of an item's class.
public let kSecClass = "class"
/// The class of generic password items ("genp").
public let kSecClassGenericPassword = "genp"
/// The class of internet password items ("inet").
public let kSecClassInternetPassword = "inet"
/// The class of certificate items ("cert").
public let kSecClassCertificate = "cert"
/// The class of key items ("keys").
public let kSecClassKey = "keys"
/// The class of identity items ("idnt").
public let kSecClassIdentity = "idnt"

// MARK: - Attributes

/// The attribute `accessGroup` ("agrp").
public let kSecAttrAccessGroup = "agrp"
/// The attribute `accessible` ("pdmn").
public let kSecAttrAccessible = "pdmn"
/// The attribute `synchronizable` ("sync").
public let kSecAttrSynchronizable = "sync"
/// As a value of `kSecAttrSynchronizable` in a query: match synchronizable items and others.
public let kSecAttrSynchronizableAny = "syna"
/// The attribute `creationDate` ("cdat").
public let kSecAttrCreationDate = "cdat"
/// The attribute `modificationDate` ("mdat").
public let kSecAttrModificationDate = "mdat"
/// The attribute `label` ("labl").
public let kSecAttrLabel = "labl"
/// The attribute `description` ("desc").
public let kSecAttrDescription = "desc"
/// The attribute `comment` ("icmt").
public let kSecAttrComment = "icmt"
/// The attribute `creator` ("crtr").
public let kSecAttrCreator = "crtr"
/// The attribute `type` ("type").
public let kSecAttrType = "type"
/// The attribute `isInvisible` ("invi").
public let kSecAttrIsInvisible = "invi"
/// The attribute `isNegative` ("nega").
public let kSecAttrIsNegative = "nega"
/// The attribute `account` ("acct").
public let kSecAttrAccount = "acct"
/// The attribute `service` ("svce").
public let kSecAttrService = "svce"
/// The attribute `generic` ("gena").
public let kSecAttrGeneric = "gena"
/// The attribute `securityDomain` ("sdmn").
public let kSecAttrSecurityDomain = "sdmn"
/// The attribute `server` ("srvr").
public let kSecAttrServer = "srvr"
/// The attribute `protocol` ("ptcl").
public let kSecAttrProtocol = "ptcl"
/// The attribute `authenticationType` ("atyp").
public let kSecAttrAuthenticationType = "atyp"
/// The attribute `port` ("port").
public let kSecAttrPort = "port"
/// The attribute `path` ("path").
public let kSecAttrPath = "path"
/// The attribute `certificateType` ("ctyp").
public let kSecAttrCertificateType = "ctyp"
/// The attribute `certificateEncoding` ("cenc").
public let kSecAttrCertificateEncoding = "cenc"
/// The attribute `subject` ("subj").
public let kSecAttrSubject = "subj"
/// The attribute `issuer` ("issr").
public let kSecAttrIssuer = "issr"
/// The attribute `serialNumber` ("slnr").
public let kSecAttrSerialNumber = "slnr"
/// The attribute `subjectKeyID` ("skid").
public let kSecAttrSubjectKeyID = "skid"
/// The attribute `publicKeyHash` ("pkhh").
public let kSecAttrPublicKeyHash = "pkhh"
/// The attribute `keyClass` ("kcls").
public let kSecAttrKeyClass = "kcls"
/// The attribute `applicationLabel` ("klbl").
public let kSecAttrApplicationLabel = "klbl"
/// The attribute `applicationTag` ("atag").
public let kSecAttrApplicationTag = "atag"
/// The attribute `keyType` ("type").
public let kSecAttrKeyType = "type"
/// The attribute `keySizeInBits` ("bsiz").
public let kSecAttrKeySizeInBits = "bsiz"
/// The attribute `effectiveKeySize` ("esiz").
public let kSecAttrEffectiveKeySize = "esiz"
/// The attribute `startDate` ("sdat").
public let kSecAttrStartDate = "sdat"
/// The attribute `endDate` ("edat").
public let kSecAttrEndDate = "edat"
/// The attribute `isPermanent` ("perm").
public let kSecAttrIsPermanent = "perm"
/// The attribute `isExtractable` ("extr").
public let kSecAttrIsExtractable = "extr"
/// The attribute `isSensitive` ("sens").
public let kSecAttrIsSensitive = "sens"
/// The attribute `canEncrypt` ("encr").
public let kSecAttrCanEncrypt = "encr"
/// The attribute `canDecrypt` ("decr").
public let kSecAttrCanDecrypt = "decr"
/// The attribute `canDerive` ("drve").
public let kSecAttrCanDerive = "drve"
/// The attribute `canSign` ("sign").
public let kSecAttrCanSign = "sign"
/// The attribute `canVerify` ("vrfy").
public let kSecAttrCanVerify = "vrfy"
/// The attribute `canWrap` ("wrap").
public let kSecAttrCanWrap = "wrap"
/// The attribute `canUnwrap` ("unwp").
public let kSecAttrCanUnwrap = "unwp"

// MARK: - Attribute values

/// The protection class `whenUnlocked` ("ak").
public let kSecAttrAccessibleWhenUnlocked = "ak"
/// The protection class `afterFirstUnlock` ("ck").
public let kSecAttrAccessibleAfterFirstUnlock = "ck"
/// The protection class `always` ("dk").
public let kSecAttrAccessibleAlways = "dk"
/// The protection class `whenUnlockedThisDeviceOnly` ("aku").
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly = "aku"
/// The protection class `afterFirstUnlockThisDeviceOnly` ("cku").
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly = "cku"
/// The protection class `alwaysThisDeviceOnly` ("dku").
public let kSecAttrAccessibleAlwaysThisDeviceOnly = "dku"

/// The protocol FTP ("ftp "), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolFTP = "ftp "
/// The protocol FTPAccount ("ftpa"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolFTPAccount = "ftpa"
/// The protocol HTTP ("http"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolHTTP = "http"
/// The protocol IRC ("irc "), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolIRC = "irc "
/// The protocol NNTP ("nntp"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolNNTP = "nntp"
/// The protocol POP3 ("pop3"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolPOP3 = "pop3"
/// The protocol SMTP ("smtp"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolSMTP = "smtp"
/// The protocol SOCKS ("sox "), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolSOCKS = "sox "
/// The protocol IMAP ("imap"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolIMAP = "imap"
/// The protocol LDAP ("ldap"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolLDAP = "ldap"
/// The protocol AppleTalk ("atlk"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolAppleTalk = "atlk"
/// The protocol AFP ("afp "), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolAFP = "afp "
/// The protocol Telnet ("teln"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolTelnet = "teln"
/// The protocol SSH ("ssh "), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolSSH = "ssh "
/// The protocol FTPS ("ftps"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolFTPS = "ftps"
/// The protocol HTTPS ("htps"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolHTTPS = "htps"
/// The protocol HTTPProxy ("htpx"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolHTTPProxy = "htpx"
/// The protocol HTTPSProxy ("htsx"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolHTTPSProxy = "htsx"
/// The protocol FTPProxy ("ftpx"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolFTPProxy = "ftpx"
/// The protocol SMB ("smb "), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolSMB = "smb "
/// The protocol RTSP ("rtsp"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolRTSP = "rtsp"
/// The protocol RTSPProxy ("rtsx"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolRTSPProxy = "rtsx"
/// The protocol DAAP ("daap"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolDAAP = "daap"
/// The protocol EPPC ("eppc"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolEPPC = "eppc"
/// The protocol IPP ("ipp "), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolIPP = "ipp "
/// The protocol NNTPS ("ntps"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolNNTPS = "ntps"
/// The protocol LDAPS ("ldps"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolLDAPS = "ldps"
/// The protocol TelnetS ("tels"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolTelnetS = "tels"
/// The protocol IMAPS ("imps"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolIMAPS = "imps"
/// The protocol IRCS ("ircs"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolIRCS = "ircs"
/// The protocol POP3S ("pops"), a value of ``kSecAttrProtocol``.
public let kSecAttrProtocolPOP3S = "pops"

/// The authentication type NTLM ("ntlm"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeNTLM = "ntlm"
/// The authentication type MSN ("msna"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeMSN = "msna"
/// The authentication type DPA ("dpaa"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeDPA = "dpaa"
/// The authentication type RPA ("rpaa"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeRPA = "rpaa"
/// The authentication type HTTPBasic ("http"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeHTTPBasic = "http"
/// The authentication type HTTPDigest ("httd"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeHTTPDigest = "httd"
/// The authentication type HTMLForm ("form"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeHTMLForm = "form"
/// The authentication type Default ("dflt"), a value of ``kSecAttrAuthenticationType``.
public let kSecAttrAuthenticationTypeDefault = "dflt"

/// A public key ("0"), a value of ``kSecAttrKeyClass``.
public let kSecAttrKeyClassPublic = "0"
/// A private key ("1"), a value of ``kSecAttrKeyClass``.
public let kSecAttrKeyClassPrivate = "1"
/// A symmetric key ("2"), a value of ``kSecAttrKeyClass``.
public let kSecAttrKeyClassSymmetric = "2"

/// The key type RSA ("42"), a value of ``kSecAttrKeyType``.
public let kSecAttrKeyTypeRSA = "42"
/// The key type EC ("73"), a value of ``kSecAttrKeyType``.
public let kSecAttrKeyTypeEC = "73"
/// The key type ECSECPrimeRandom ("73"), a value of ``kSecAttrKeyType``.
public let kSecAttrKeyTypeECSECPrimeRandom = "73"
/// The key type AES ("2147483649"), a value of ``kSecAttrKeyType``.
public let kSecAttrKeyTypeAES = "2147483649"

// MARK: - Search

/// The search option `matchLimit` ("m_Limit").
public let kSecMatchLimit = "m_Limit"
/// As ``kSecMatchLimit``: the first match, the default ("m_LimitOne").
public let kSecMatchLimitOne = "m_LimitOne"
/// As ``kSecMatchLimit``: every match ("m_LimitAll").
public let kSecMatchLimitAll = "m_LimitAll"
/// The search option `matchCaseInsensitive` ("m_CaseInsensitive").
public let kSecMatchCaseInsensitive = "m_CaseInsensitive"
/// The search option `matchHostOrSubdomainOfHost` ("m_HostOrSubdomainOfHost").
public let kSecMatchHostOrSubdomainOfHost = "m_HostOrSubdomainOfHost"
/// The search option `matchSubjectContains` ("m_SubjectContains").
public let kSecMatchSubjectContains = "m_SubjectContains"
/// The search option `matchSubjectStartsWith` ("m_SubjectStartsWith").
public let kSecMatchSubjectStartsWith = "m_SubjectStartsWith"
/// The search option `matchSubjectEndsWith` ("m_SubjectEndsWith").
public let kSecMatchSubjectEndsWith = "m_SubjectEndsWith"
/// The search option `matchSubjectWholeString` ("m_SubjectWholeString").
public let kSecMatchSubjectWholeString = "m_SubjectWholeString"
/// The search option `matchIssuers` ("m_Issuers").
public let kSecMatchIssuers = "m_Issuers"
/// The search option `matchEmailAddressIfPresent` ("m_EmailAddressIfPresent").
public let kSecMatchEmailAddressIfPresent = "m_EmailAddressIfPresent"
/// The search option `matchValidOnDate` ("m_ValidOnDate").
public let kSecMatchValidOnDate = "m_ValidOnDate"

// MARK: - Return types and values

/// Whether a search or an add returns the item's data ("r_Data").
public let kSecReturnData = "r_Data"
/// Whether a search or an add returns the item's attributes ("r_Attributes").
public let kSecReturnAttributes = "r_Attributes"
/// Whether a search or an add returns the item's ref ("r_Ref").
public let kSecReturnRef = "r_Ref"
/// Whether a search or an add returns the item's persistent ref ("r_PersistentRef").
public let kSecReturnPersistentRef = "r_PersistentRef"
/// The item's data ("v_Data").
public let kSecValueData = "v_Data"
/// The item's ref ("v_Ref").
public let kSecValueRef = "v_Ref"
/// The item's persistent ref ("v_PersistentRef").
public let kSecValuePersistentRef = "v_PersistentRef"
/// Accepted and ignored, so that dictionaries written for Apple platforms can be sent unchanged.
public let kSecUseDataProtectionKeychain = "u_DataProtectionKeychain"
/// The keychain an add goes to, or a search, update or delete looks in: its name ("u_Keychain").
public let kSecUseKeychain = "u_Keychain"
/// The keychains a search looks in, in order: an array of names ("m_SearchList").
public let kSecMatchSearchList = "m_SearchList"

/// Core Foundation's true, for dictionaries written with it.
public let kCFBooleanTrue = true
/// Core Foundation's false, for dictionaries written with it.
public let kCFBooleanFalse = false
