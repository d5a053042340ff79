import TestSupport
import Testing

@testable import KeychainCore

@Suite struct ValidationTests {
    @Test func constantAndShortNamesAreAcceptedAndOutputIsCanonical() throws {
        let f = try Fixture()
        _ = try f.keychain.add(
            [
                "kSecClass": "kSecClassGenericPassword", "kSecAttrService": "svc", "acct": "me",
                "kSecAttrAccessible": "kSecAttrAccessibleAfterFirstUnlock", "labl": "L", "kSecValueData": "cHc=",
            ], token: f.admin)
        _ = try f.keychain.add(
            ["class": "inet", "srvr": "h", "ptcl": "kSecAttrProtocolHTTPS", "atyp": "kSecAttrAuthenticationTypeHTMLForm"],
            token: f.admin)
        let found = try f.keychain.search(
            [
                "kSecClass": "genp", "svce": "svc", "kSecMatchLimit": "kSecMatchLimitAll", "r_Attributes": true,
                "kSecReturnData": true,
            ],
            token: f.admin)
        let attributes = try #require(found[0].attributesJSON)
        #expect(attributes["class"] == "genericPassword")
        #expect(attributes["service"] == "svc")
        #expect(attributes["account"] == "me")
        #expect(attributes["label"] == "L")
        #expect(attributes["accessible"] == "afterFirstUnlock")
        #expect(found[0].secretString == "pw")
        let inet = try f.keychain.search(["server": "h"], token: f.admin)[0].attributesJSON
        #expect(inet?["protocol"] == "https")
        #expect(inet?["authenticationType"] == "htmlForm")
    }

    @Test func theSameKeyUnderTwoNamesIsParam() throws {
        let f = try Fixture()
        expectError(.anyParam, naming: "acct") {
            _ = try f.keychain.add(["class": "genericPassword", "account": "a", "acct": "b"], token: f.admin)
        }
    }

    @Test func anAttributeTheClassDoesNotHaveIsNoSuchAttr() throws {
        let f = try Fixture()
        expectError(.anyNoSuchAttr, naming: "server") {
            _ = try f.keychain.add(["class": "genericPassword", "server": "h"], token: f.admin)
        }
        expectError(.anyNoSuchAttr, naming: "service") {
            _ = try f.keychain.search(["class": "internetPassword", "service": "s"], token: f.admin)
        }
    }

    @Test func anUnknownClassIsNoSuchClass() throws {
        let f = try Fixture()
        expectError(.anyNoSuchClass, naming: "class") { _ = try f.keychain.add(["class": "wallet"], token: f.admin) }
    }

    @Test func anIdentityAddWithoutItsCertificateIsParam() throws {
        let f = try Fixture()
        expectError(.anyParam, naming: "certificateData") { _ = try f.keychain.add(["class": "identity"], token: f.admin) }
    }

    @Test(arguments: [
        ("service", JSON.int(3)), ("port", JSON.string("80")), ("port", JSON.int(70000)), ("isInvisible", JSON.string("yes")),
        ("generic", JSON.string("not base64!")), ("protocol", JSON.string("gopher")), ("creator", JSON.string("toolong")),
    ])
    func aValueOfTheWrongTypeIsParam(key: String, value: JSON) throws {
        let f = try Fixture()
        let itemClass: JSON = ["port", "protocol"].contains(key) ? "internetPassword" : "genericPassword"
        expectError(.anyParam, naming: key) { _ = try f.keychain.add(["class": itemClass, key: value], token: f.admin) }
    }

    @Test func anUnknownKeyIsParam() throws {
        let f = try Fixture()
        expectError(.anyParam, naming: "colour") {
            _ = try f.keychain.add(["class": "genericPassword", "colour": "red"], token: f.admin)
        }
    }

    @Test func fourCharCodesAcceptTextAndIntegers() throws {
        let f = try Fixture()
        _ = try f.keychain.add(["class": "genericPassword", "service": "a", "creator": "aapl"], token: f.admin)
        let found = try f.keychain.search(["creator": 0x6161_706C], token: f.admin)
        #expect(found[0].attributesJSON?["creator"] == 0x6161_706C)
    }

    @Test func urlParametersAreParsedLeniently() throws {
        let f = try Fixture()
        _ = try f.keychain.add(["class": "internetPassword", "server": "h", "port": 443, "valueData": "eA=="], token: f.admin)
        let found = try f.keychain.search(
            ["server": "h", "port": "443", "returnData": "true", "matchLimit": "2"], token: f.admin, lenient: true)
        #expect(found[0].secretString == "x")
        expectError(.anyParam, naming: "port") { _ = try f.keychain.search(["port": "443"], token: f.admin) }
    }
}

@Suite struct EmptyDefaultTests {
    @Test func anAbsentPrimaryKeyEnumMatchesItsEmptyDefault() throws {
        let f = try Fixture()
        _ = try f.keychain.add(["class": "internetPassword", "server": "h", "account": "u"], token: f.admin)
        let found = try f.keychain.search(
            ["class": "internetPassword", "server": "h", "protocol": "", "authenticationType": ""], token: f.admin)
        #expect(found.count == 1)
        #expect(found[0].attributesJSON?["protocol"] == "")
    }
}
