import ArgumentParser
import KeychainAudit
import KeychainCore
import KeychainHost

extension StoreOptions {
    /// The audit log's keys, from the instance key file (its permissions checked first).
    func auditKeys() throws -> AuditKeys {
        let configuration = try keychainConfiguration()
        if let problem = FilePermissions.check(path: configuration.resolvedKeyFile, kind: .keyFile),
            !(try insecurePermissionsAllowed())
        {
            throw InsecurePermissions(problems: [problem])
        }
        return try AuditKeys(instanceKey: configuration.readInstanceKey())
    }
}
