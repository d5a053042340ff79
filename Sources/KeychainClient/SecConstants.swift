// The Keychain Services constants, with the values Apple's Security framework gives them
// (SecItem.h), so that a query dictionary written for Apple platforms reads the same here.

/// A Keychain Services result code: 0 is success, anything else an `errSec…` value.
public typealias OSStatus = Int32

// MARK: - Classes

/// The key of an item's class.
public let kSecClass = "class"
public let kSecClassGenericPassword = "genp"
public let kSecClassInternetPassword = "inet"
public let kSecClassCertificate = "cert"
public let kSecClassKey = "keys"
public let kSecClassIdentity = "idnt"

// MARK: - Attributes

public let kSecAttrAccessGroup = "agrp"
public let kSecAttrAccessible = "pdmn"
public let kSecAttrSynchronizable = "sync"
/// As a value of `kSecAttrSynchronizable` in a query: match synchronizable items and others.
public let kSecAttrSynchronizableAny = "syna"
public let kSecAttrCreationDate = "cdat"
public let kSecAttrModificationDate = "mdat"
public let kSecAttrLabel = "labl"
public let kSecAttrDescription = "desc"
public let kSecAttrComment = "icmt"
public let kSecAttrCreator = "crtr"
public let kSecAttrType = "type"
public let kSecAttrIsInvisible = "invi"
public let kSecAttrIsNegative = "nega"
public let kSecAttrAccount = "acct"
public let kSecAttrService = "svce"
public let kSecAttrGeneric = "gena"
public let kSecAttrSecurityDomain = "sdmn"
public let kSecAttrServer = "srvr"
public let kSecAttrProtocol = "ptcl"
public let kSecAttrAuthenticationType = "atyp"
public let kSecAttrPort = "port"
public let kSecAttrPath = "path"
public let kSecAttrCertificateType = "ctyp"
public let kSecAttrCertificateEncoding = "cenc"
public let kSecAttrSubject = "subj"
public let kSecAttrIssuer = "issr"
public let kSecAttrSerialNumber = "slnr"
public let kSecAttrSubjectKeyID = "skid"
public let kSecAttrPublicKeyHash = "pkhh"
public let kSecAttrKeyClass = "kcls"
public let kSecAttrApplicationLabel = "klbl"
public let kSecAttrApplicationTag = "atag"
public let kSecAttrKeyType = "type"
public let kSecAttrKeySizeInBits = "bsiz"
public let kSecAttrEffectiveKeySize = "esiz"
public let kSecAttrStartDate = "sdat"
public let kSecAttrEndDate = "edat"
public let kSecAttrIsPermanent = "perm"
public let kSecAttrIsExtractable = "extr"
public let kSecAttrIsSensitive = "sens"
public let kSecAttrCanEncrypt = "encr"
public let kSecAttrCanDecrypt = "decr"
public let kSecAttrCanDerive = "drve"
public let kSecAttrCanSign = "sign"
public let kSecAttrCanVerify = "vrfy"
public let kSecAttrCanWrap = "wrap"
public let kSecAttrCanUnwrap = "unwp"

// MARK: - Attribute values

public let kSecAttrAccessibleWhenUnlocked = "ak"
public let kSecAttrAccessibleAfterFirstUnlock = "ck"
public let kSecAttrAccessibleAlways = "dk"
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly = "aku"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly = "cku"
public let kSecAttrAccessibleAlwaysThisDeviceOnly = "dku"

public let kSecAttrProtocolFTP = "ftp "
public let kSecAttrProtocolFTPAccount = "ftpa"
public let kSecAttrProtocolHTTP = "http"
public let kSecAttrProtocolIRC = "irc "
public let kSecAttrProtocolNNTP = "nntp"
public let kSecAttrProtocolPOP3 = "pop3"
public let kSecAttrProtocolSMTP = "smtp"
public let kSecAttrProtocolSOCKS = "sox "
public let kSecAttrProtocolIMAP = "imap"
public let kSecAttrProtocolLDAP = "ldap"
public let kSecAttrProtocolAppleTalk = "atlk"
public let kSecAttrProtocolAFP = "afp "
public let kSecAttrProtocolTelnet = "teln"
public let kSecAttrProtocolSSH = "ssh "
public let kSecAttrProtocolFTPS = "ftps"
public let kSecAttrProtocolHTTPS = "htps"
public let kSecAttrProtocolHTTPProxy = "htpx"
public let kSecAttrProtocolHTTPSProxy = "htsx"
public let kSecAttrProtocolFTPProxy = "ftpx"
public let kSecAttrProtocolSMB = "smb "
public let kSecAttrProtocolRTSP = "rtsp"
public let kSecAttrProtocolRTSPProxy = "rtsx"
public let kSecAttrProtocolDAAP = "daap"
public let kSecAttrProtocolEPPC = "eppc"
public let kSecAttrProtocolIPP = "ipp "
public let kSecAttrProtocolNNTPS = "ntps"
public let kSecAttrProtocolLDAPS = "ldps"
public let kSecAttrProtocolTelnetS = "tels"
public let kSecAttrProtocolIMAPS = "imps"
public let kSecAttrProtocolIRCS = "ircs"
public let kSecAttrProtocolPOP3S = "pops"

public let kSecAttrAuthenticationTypeNTLM = "ntlm"
public let kSecAttrAuthenticationTypeMSN = "msna"
public let kSecAttrAuthenticationTypeDPA = "dpaa"
public let kSecAttrAuthenticationTypeRPA = "rpaa"
public let kSecAttrAuthenticationTypeHTTPBasic = "http"
public let kSecAttrAuthenticationTypeHTTPDigest = "httd"
public let kSecAttrAuthenticationTypeHTMLForm = "form"
public let kSecAttrAuthenticationTypeDefault = "dflt"

public let kSecAttrKeyClassPublic = "0"
public let kSecAttrKeyClassPrivate = "1"
public let kSecAttrKeyClassSymmetric = "2"

public let kSecAttrKeyTypeRSA = "42"
public let kSecAttrKeyTypeEC = "73"
public let kSecAttrKeyTypeECSECPrimeRandom = "73"

// MARK: - Search

public let kSecMatchLimit = "m_Limit"
public let kSecMatchLimitOne = "m_LimitOne"
public let kSecMatchLimitAll = "m_LimitAll"
public let kSecMatchCaseInsensitive = "m_CaseInsensitive"
public let kSecMatchHostOrSubdomainOfHost = "m_HostOrSubdomainOfHost"
public let kSecMatchSubjectContains = "m_SubjectContains"
public let kSecMatchSubjectStartsWith = "m_SubjectStartsWith"
public let kSecMatchSubjectEndsWith = "m_SubjectEndsWith"
public let kSecMatchSubjectWholeString = "m_SubjectWholeString"
public let kSecMatchIssuers = "m_Issuers"
public let kSecMatchEmailAddressIfPresent = "m_EmailAddressIfPresent"
public let kSecMatchValidOnDate = "m_ValidOnDate"

// MARK: - Return types and values

public let kSecReturnData = "r_Data"
public let kSecReturnAttributes = "r_Attributes"
public let kSecReturnRef = "r_Ref"
public let kSecReturnPersistentRef = "r_PersistentRef"
public let kSecValueData = "v_Data"
public let kSecValueRef = "v_Ref"
public let kSecValuePersistentRef = "v_PersistentRef"
/// Accepted and ignored, so that dictionaries written for Apple platforms can be sent unchanged.
public let kSecUseDataProtectionKeychain = "u_DataProtectionKeychain"

/// Core Foundation's booleans, for dictionaries written with them.
public let kCFBooleanTrue = true
public let kCFBooleanFalse = false
