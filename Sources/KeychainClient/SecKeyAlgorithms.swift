// swift-format-ignore-file: AlwaysUseLowerCamelCase

// Apple's SecKeyAlgorithm constants: the algorithms the server uses keys with, each the
// name the server takes (Apple's constant without `kSecKeyAlgorithm`, first letter lowercased).

/// The algorithm `ecdsaSignatureDigestX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA1: SecKeyAlgorithm = "ecdsaSignatureDigestX962SHA1"
/// The algorithm `ecdsaSignatureDigestX962SHA224`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA224: SecKeyAlgorithm = "ecdsaSignatureDigestX962SHA224"
/// The algorithm `ecdsaSignatureDigestX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256: SecKeyAlgorithm = "ecdsaSignatureDigestX962SHA256"
/// The algorithm `ecdsaSignatureDigestX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA384: SecKeyAlgorithm = "ecdsaSignatureDigestX962SHA384"
/// The algorithm `ecdsaSignatureDigestX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA512: SecKeyAlgorithm = "ecdsaSignatureDigestX962SHA512"
/// The algorithm `ecdsaSignatureMessageX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA1: SecKeyAlgorithm = "ecdsaSignatureMessageX962SHA1"
/// The algorithm `ecdsaSignatureMessageX962SHA224`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA224: SecKeyAlgorithm = "ecdsaSignatureMessageX962SHA224"
/// The algorithm `ecdsaSignatureMessageX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256: SecKeyAlgorithm = "ecdsaSignatureMessageX962SHA256"
/// The algorithm `ecdsaSignatureMessageX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA384: SecKeyAlgorithm = "ecdsaSignatureMessageX962SHA384"
/// The algorithm `ecdsaSignatureMessageX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA512: SecKeyAlgorithm = "ecdsaSignatureMessageX962SHA512"
/// The algorithm `rsaSignatureDigestPKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1: SecKeyAlgorithm = "rsaSignatureDigestPKCS1v15SHA1"
/// The algorithm `rsaSignatureDigestPKCS1v15SHA224`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224: SecKeyAlgorithm = "rsaSignatureDigestPKCS1v15SHA224"
/// The algorithm `rsaSignatureDigestPKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256: SecKeyAlgorithm = "rsaSignatureDigestPKCS1v15SHA256"
/// The algorithm `rsaSignatureDigestPKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384: SecKeyAlgorithm = "rsaSignatureDigestPKCS1v15SHA384"
/// The algorithm `rsaSignatureDigestPKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512: SecKeyAlgorithm = "rsaSignatureDigestPKCS1v15SHA512"
/// The algorithm `rsaSignatureMessagePKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1: SecKeyAlgorithm = "rsaSignatureMessagePKCS1v15SHA1"
/// The algorithm `rsaSignatureMessagePKCS1v15SHA224`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224: SecKeyAlgorithm = "rsaSignatureMessagePKCS1v15SHA224"
/// The algorithm `rsaSignatureMessagePKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256: SecKeyAlgorithm = "rsaSignatureMessagePKCS1v15SHA256"
/// The algorithm `rsaSignatureMessagePKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384: SecKeyAlgorithm = "rsaSignatureMessagePKCS1v15SHA384"
/// The algorithm `rsaSignatureMessagePKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512: SecKeyAlgorithm = "rsaSignatureMessagePKCS1v15SHA512"
/// The algorithm `rsaSignatureDigestPSSSHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA1: SecKeyAlgorithm = "rsaSignatureDigestPSSSHA1"
/// The algorithm `rsaSignatureDigestPSSSHA224`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA224: SecKeyAlgorithm = "rsaSignatureDigestPSSSHA224"
/// The algorithm `rsaSignatureDigestPSSSHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA256: SecKeyAlgorithm = "rsaSignatureDigestPSSSHA256"
/// The algorithm `rsaSignatureDigestPSSSHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA384: SecKeyAlgorithm = "rsaSignatureDigestPSSSHA384"
/// The algorithm `rsaSignatureDigestPSSSHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA512: SecKeyAlgorithm = "rsaSignatureDigestPSSSHA512"
/// The algorithm `rsaSignatureMessagePSSSHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA1: SecKeyAlgorithm = "rsaSignatureMessagePSSSHA1"
/// The algorithm `rsaSignatureMessagePSSSHA224`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA224: SecKeyAlgorithm = "rsaSignatureMessagePSSSHA224"
/// The algorithm `rsaSignatureMessagePSSSHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA256: SecKeyAlgorithm = "rsaSignatureMessagePSSSHA256"
/// The algorithm `rsaSignatureMessagePSSSHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA384: SecKeyAlgorithm = "rsaSignatureMessagePSSSHA384"
/// The algorithm `rsaSignatureMessagePSSSHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA512: SecKeyAlgorithm = "rsaSignatureMessagePSSSHA512"
/// The algorithm `edDSASignatureMessageCurve25519SHA512`.
public let kSecKeyAlgorithmEdDSASignatureMessageCurve25519SHA512: SecKeyAlgorithm = "edDSASignatureMessageCurve25519SHA512"
/// The algorithm `rsaEncryptionPKCS1`.
public let kSecKeyAlgorithmRSAEncryptionPKCS1: SecKeyAlgorithm = "rsaEncryptionPKCS1"
/// The algorithm `rsaEncryptionOAEPSHA1`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1: SecKeyAlgorithm = "rsaEncryptionOAEPSHA1"
/// The algorithm `rsaEncryptionOAEPSHA224`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224: SecKeyAlgorithm = "rsaEncryptionOAEPSHA224"
/// The algorithm `rsaEncryptionOAEPSHA256`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256: SecKeyAlgorithm = "rsaEncryptionOAEPSHA256"
/// The algorithm `rsaEncryptionOAEPSHA384`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384: SecKeyAlgorithm = "rsaEncryptionOAEPSHA384"
/// The algorithm `rsaEncryptionOAEPSHA512`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512: SecKeyAlgorithm = "rsaEncryptionOAEPSHA512"
/// The algorithm `eciesEncryptionStandardVariableIVX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM: SecKeyAlgorithm =
    "eciesEncryptionStandardVariableIVX963SHA224AESGCM"
/// The algorithm `eciesEncryptionStandardVariableIVX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM: SecKeyAlgorithm =
    "eciesEncryptionStandardVariableIVX963SHA256AESGCM"
/// The algorithm `eciesEncryptionStandardVariableIVX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM: SecKeyAlgorithm =
    "eciesEncryptionStandardVariableIVX963SHA384AESGCM"
/// The algorithm `eciesEncryptionStandardVariableIVX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM: SecKeyAlgorithm =
    "eciesEncryptionStandardVariableIVX963SHA512AESGCM"
/// The algorithm `eciesEncryptionCofactorVariableIVX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM: SecKeyAlgorithm =
    "eciesEncryptionCofactorVariableIVX963SHA224AESGCM"
/// The algorithm `eciesEncryptionCofactorVariableIVX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM: SecKeyAlgorithm =
    "eciesEncryptionCofactorVariableIVX963SHA256AESGCM"
/// The algorithm `eciesEncryptionCofactorVariableIVX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM: SecKeyAlgorithm =
    "eciesEncryptionCofactorVariableIVX963SHA384AESGCM"
/// The algorithm `eciesEncryptionCofactorVariableIVX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM: SecKeyAlgorithm =
    "eciesEncryptionCofactorVariableIVX963SHA512AESGCM"
/// The algorithm `ecdhKeyExchangeStandard`.
public let kSecKeyAlgorithmECDHKeyExchangeStandard: SecKeyAlgorithm = "ecdhKeyExchangeStandard"
/// The algorithm `ecdhKeyExchangeStandardX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1: SecKeyAlgorithm = "ecdhKeyExchangeStandardX963SHA1"
/// The algorithm `ecdhKeyExchangeStandardX963SHA224`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224: SecKeyAlgorithm = "ecdhKeyExchangeStandardX963SHA224"
/// The algorithm `ecdhKeyExchangeStandardX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256: SecKeyAlgorithm = "ecdhKeyExchangeStandardX963SHA256"
/// The algorithm `ecdhKeyExchangeStandardX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384: SecKeyAlgorithm = "ecdhKeyExchangeStandardX963SHA384"
/// The algorithm `ecdhKeyExchangeStandardX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512: SecKeyAlgorithm = "ecdhKeyExchangeStandardX963SHA512"
/// The algorithm `ecdhKeyExchangeCofactor`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactor: SecKeyAlgorithm = "ecdhKeyExchangeCofactor"
/// The algorithm `ecdhKeyExchangeCofactorX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1: SecKeyAlgorithm = "ecdhKeyExchangeCofactorX963SHA1"
/// The algorithm `ecdhKeyExchangeCofactorX963SHA224`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224: SecKeyAlgorithm = "ecdhKeyExchangeCofactorX963SHA224"
/// The algorithm `ecdhKeyExchangeCofactorX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256: SecKeyAlgorithm = "ecdhKeyExchangeCofactorX963SHA256"
/// The algorithm `ecdhKeyExchangeCofactorX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384: SecKeyAlgorithm = "ecdhKeyExchangeCofactorX963SHA384"
/// The algorithm `ecdhKeyExchangeCofactorX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512: SecKeyAlgorithm = "ecdhKeyExchangeCofactorX963SHA512"
