import ArgumentParser
import Foundation
import KeychainAudit
import KeychainCore
import KeychainHost
import Logging

extension Keychaind {
    /// `keychaind audit hash|verify`: search the audit log for a value, check its chain. Both
    /// need only the instance key file, so they run beside a serving keychain.
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hash a value as the audit log writes it; verify an audit log's chain.",
            subcommands: [Hash.self, Verify.self])

        struct Hash: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print VALUE's keyed hash as the audit log writes query values (hmac:…), to search the log for it.")
            @OptionGroup var store: StoreOptions
            @Argument(help: "The value, as a query gives it (a service, an account, a server, …).") var value: String

            func run() throws {
                print(try store.auditKeys().hash(value))
            }
        }

        struct Verify: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Check audit log files (in order, as one chain); report the first line edited, removed or reordered.")
            @OptionGroup var store: StoreOptions
            @Argument(help: "Audit log files, oldest first.") var files: [String]
            @Flag(help: "Accept a new chain at each start of the process (an audit log written to standard output).")
            var allowRestarts = false

            func run() throws {
                var checker = AuditVerifier.Checker(keys: try store.auditKeys(), allowRestarts: allowRestarts)
                // The files read as one stream, a megabyte at a time: a line may run on from one
                // file into the next, as in the files joined, and only the line being read is held.
                var pending: [UInt8] = []
                for file in files where checker.report.problem == nil {
                    guard let handle = FileHandle(forReadingAtPath: file) else { throw ValidationError("cannot read \(file)") }
                    defer { try? handle.close() }
                    while checker.report.problem == nil {
                        let chunk: Data
                        do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch {
                            throw ValidationError("cannot read \(file)")
                        }
                        if chunk.isEmpty { break }
                        var bytes = [UInt8](chunk)[...]
                        while let newline = bytes.firstIndex(of: 0x0A) {
                            if pending.isEmpty {
                                checker.check(bytes[..<newline])
                            } else {
                                pending += bytes[..<newline]
                                checker.check(pending[...])
                                pending.removeAll(keepingCapacity: true)
                            }
                            bytes = bytes[(newline + 1)...]
                        }
                        pending += bytes
                    }
                }
                if !pending.isEmpty { checker.check(pending[...]) }  // a last line without its newline
                let report = checker.report
                var summary = "\(report.lines) lines"
                if report.continuesEarlierLog { summary += "; the first continues a chain from an earlier log" }
                if !report.restarts.isEmpty {
                    summary += "; a new chain starts at line \(report.restarts.map(String.init).joined(separator: ", "))"
                }
                if let problem = report.problem {
                    print("audit log: \(summary); the chain breaks at \(problem)")
                    throw ExitCode(1)
                }
                print(
                    "audit log: \(summary); the chain holds; last mac \(report.last ?? "-") (keep it elsewhere: it shows a log cut short)"
                )
            }
        }
    }
}
