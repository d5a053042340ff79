import Foundation
import TestSupport
import Testing

@testable import KeychainHost

@Suite struct FilePermissionsTests {
    typealias Status = FilePermissions.Status
    static let user: UInt32 = 1000
    static let other: UInt32 = 65534

    static func problem(
        owner: UInt32, mode: UInt32, _ kind: FilePermissions.Kind, directory: Bool = false, user: UInt32 = user
    ) -> String? {
        FilePermissions.problem(Status(owner: owner, mode: mode, isDirectory: directory), path: "/p", kind: kind, user: user)
    }

    @Test(arguments: FilePermissions.Kind.allCases)
    func ownModeOwnerOnlyIsAccepted(kind: FilePermissions.Kind) {
        let directory = kind == .dataDirectory
        #expect(Self.problem(owner: Self.user, mode: directory ? 0o700 : 0o600, kind, directory: directory) == nil)
        #expect(Self.problem(owner: Self.user, mode: directory ? 0o500 : 0o400, kind, directory: directory) == nil)
    }

    @Test(arguments: FilePermissions.Kind.allCases, [0o644, 0o640, 0o604, 0o660, 0o606, 0o610, 0o601, 0o777])
    func anyAccessByGroupOrOthersIsRefusedNamingPathModeAndOwner(kind: FilePermissions.Kind, mode: UInt32) throws {
        let directory = kind == .dataDirectory
        let bits = directory ? mode | 0o100 : mode
        let problem = try #require(Self.problem(owner: Self.user, mode: bits, kind, directory: directory))
        #expect(problem.contains("/p has mode 0\(String(bits, radix: 8))"))
        #expect(problem.contains("owner uid 1000"))
        #expect(problem.contains("group and others must have no access"))
    }

    @Test(arguments: FilePermissions.Kind.allCases)
    func anotherUsersFileIsRefusedWhateverItsMode(kind: FilePermissions.Kind) throws {
        let directory = kind == .dataDirectory
        let problem = try #require(Self.problem(owner: Self.other, mode: directory ? 0o700 : 0o600, kind, directory: directory))
        #expect(problem.contains("owner uid 65534"))
        #expect(problem.contains("must be owned by uid 1000"))
    }

    @Test(arguments: FilePermissions.Kind.allCases)
    func rootsFileIsAcceptedOwnerOnly(kind: FilePermissions.Kind) {
        let directory = kind == .dataDirectory
        #expect(Self.problem(owner: 0, mode: directory ? 0o700 : 0o400, kind, directory: directory) == nil)
        #expect(Self.problem(owner: 0, mode: directory ? 0o700 : 0o600, kind, directory: directory, user: 0) == nil)
    }

    /// Kubernetes' `fsGroup` mounts a secret root:fsGroup 0440: root's grant, accepted for the
    /// secrets; never for the data directory or the database, never for others, never for write.
    @Test func rootMayShareASecretWithItsGroupForReadingOnly() {
        #expect(Self.problem(owner: 0, mode: 0o440, .keyFile) == nil)
        #expect(Self.problem(owner: 0, mode: 0o440, .passphraseFile) == nil)
        #expect(Self.problem(owner: 0, mode: 0o440, .databasePasswordFile) == nil)
        #expect(Self.problem(owner: 0, mode: 0o444, .passphraseFile)?.contains("others must have no access") == true)
        #expect(Self.problem(owner: 0, mode: 0o460, .keyFile) != nil)
        #expect(Self.problem(owner: 0, mode: 0o640, .databaseFile) != nil)
        #expect(Self.problem(owner: 0, mode: 0o750, .dataDirectory, directory: true) != nil)
        // Running as root, root's own file is held to the owner's rule.
        #expect(Self.problem(owner: 0, mode: 0o440, .keyFile, user: 0) != nil)
        // Another user's group-readable file is still another user's file.
        #expect(Self.problem(owner: Self.other, mode: 0o440, .keyFile) != nil)
    }

    @Test func aDataDirectoryMustBeADirectory() {
        let problem = Self.problem(owner: Self.user, mode: 0o600, .dataDirectory, directory: false)
        #expect(problem?.contains("not a directory") == true)
    }

    @Test func pathsOnDiskAreCheckedThroughLinksAndMissingOnesPass() throws {
        let directory = TemporaryDirectory()
        let file = directory.path + "/secret"
        let link = directory.path + "/link"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644]))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let problem = try #require(FilePermissions.check(path: link, kind: .passphraseFile))
        #expect(problem.contains("\(link) has mode 0644"))
        #expect(chmod(file, 0o600) == 0)
        #expect(FilePermissions.check(path: link, kind: .passphraseFile) == nil)
        #expect(FilePermissions.check(path: directory.path, kind: .dataDirectory) == nil)
        #expect(FilePermissions.check(path: directory.path + "/missing", kind: .keyFile) == nil)
    }
}
