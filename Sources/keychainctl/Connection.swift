import ArgumentParser
import Foundation
import KeychainClient
import KeychainJSON

/// Where the server is and which token to send: flags, then the environment, then the config
/// file (`$KEYCHAINCTL_CONFIG`, default `~/.config/keychainctl/config.json`). A token is never
/// taken from an argument, where `ps` would show it.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("url"), help: "The server (env KEYCHAIND_URL; default http://127.0.0.1:8700).")
    var url: String?

    @Option(name: .customLong("token-file"), help: "A file whose first line is the token (env KEYCHAIND_TOKEN_FILE).")
    var tokenFile: String?

    @Option(name: .customLong("ca-file"), help: "PEM certificate authorities trusted for https (env KEYCHAIND_CA_FILE).")
    var caFile: String?

    /// What the config file says: `{"url": …, "tokenFile": …, "token": …, "caFile": …}`.
    struct FileSettings {
        var url, tokenFile, token, caFile: String?
    }

    static func configFile(_ environment: [String: String]) throws(ToolFailure) -> FileSettings {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let path = environment["KEYCHAINCTL_CONFIG"] ?? "\(home)/.config/keychainctl/config.json"
        guard let data = FileManager.default.contents(atPath: path) else { return FileSettings() }
        guard let object = try? JSON.parse(Array(data)).objectValue else {
            throw ToolFailure(message: "\(path): not a JSON object")
        }
        var settings = FileSettings(
            url: object["url"]?.stringValue, tokenFile: object["tokenFile"]?.stringValue, token: object["token"]?.stringValue,
            caFile: object["caFile"]?.stringValue)
        if settings.token != nil {
            // A token kept in a file others can read is no secret: refused, as ssh refuses such a key.
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & 0o077 != 0 {
                settings.token = nil
                throw ToolFailure(message: "\(path): holds a token but group or others may read it (chmod 600)")
            }
        }
        return settings
    }

    func configuration() throws(ToolFailure) -> KeychainClientConfiguration {
        // A variable set to nothing counts as unset.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.value.isEmpty }
        let file = try Self.configFile(environment)
        var configuration = KeychainClientConfiguration(
            url: url ?? environment["KEYCHAIND_URL"] ?? file.url ?? KeychainClientConfiguration.defaultURL)
        do {
            if let tokenFile {
                configuration.token = try BearerToken(file: tokenFile)
            } else if let secret = environment["KEYCHAIND_TOKEN"], !secret.isEmpty {
                configuration.token = try BearerToken(secret, source: "KEYCHAIND_TOKEN")
            } else if let path = environment["KEYCHAIND_TOKEN_FILE"], !path.isEmpty {
                configuration.token = try BearerToken(file: path)
            } else if let secret = file.token {
                configuration.token = try BearerToken(secret, source: "config file token")
            } else if let path = file.tokenFile {
                configuration.token = try BearerToken(file: path)
            }
        } catch {
            throw ToolFailure(message: error.message)
        }
        configuration.certificateAuthorityFile = caFile ?? environment["KEYCHAIND_CA_FILE"] ?? file.caFile
        return configuration
    }

    func client() throws(ToolFailure) -> KeychainClient {
        do {
            return try KeychainClient(try configuration())
        } catch let error as KeychainError {
            throw ToolFailure(message: error.message)
        } catch let error as ToolFailure {
            throw error
        } catch {
            throw ToolFailure(message: "\(error)")
        }
    }
}
