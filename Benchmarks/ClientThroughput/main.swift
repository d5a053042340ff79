// Gc: GETs of one secret through KeychainClient, from 16 concurrent tasks on one client, for a
// number of seconds; printed in wrk's words (requests, Requests/sec, the 50% and 99% latencies)
// so that Benchmarks/wrk_result.py reads it as it reads Gw, wrk's run of the same GET. With
// `urlsession` last, Gu: the same GETs through URLSession, the transport KeychainClient did not
// take (docs/clients.md#transport).
//
// Usage: KEYCHAIND_TOKEN=... keychain-client-bench URL PERSISTENT_REF SECONDS [TASKS [urlsession]]

import Foundation
import KeychainClient
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 4, let seconds = Double(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: keychain-client-bench URL PERSISTENT_REF SECONDS [TASKS]\n".utf8))
    exit(2)
}
let tasks = arguments.count > 4 ? Int(arguments[4]) ?? 16 : 16
let ref = arguments[2]
var configuration = try KeychainClientConfiguration.fromEnvironment()
configuration.url = arguments[1]
configuration.maxConnections = tasks
configuration.retry = .never
let client = try KeychainClient(configuration)
let viaURLSession = arguments.count > 5 && arguments[5] == "urlsession"
let session: URLSession = {
    let sessionConfiguration = URLSessionConfiguration.ephemeral
    sessionConfiguration.httpMaximumConnectionsPerHost = tasks
    return URLSession(configuration: sessionConfiguration)
}()
let token = ProcessInfo.processInfo.environment["KEYCHAIND_TOKEN"] ?? ""
let itemURL = URL(string: "\(arguments[1])/v1/items/\(ref)?returnData=true")!

/// One GET of the secret: `true` when it came back.
@Sendable func get() async -> Bool {
    if viaURLSession {
        var request = URLRequest(url: itemURL)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        guard let (body, response) = try? await session.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 200 && !body.isEmpty
    }
    guard let item = try? await client.item(persistentRef: ref, returnData: true) else { return false }
    return item.data != nil
}

/// Each task's latencies in microseconds, and its failures.
final class Tally: Sendable {
    let latencies = Mutex<[Double]>([])
    let failures = Atomic<Int>(0)
}
let tally = Tally()
let clock = ContinuousClock()
let start = clock.now
let deadline = start + .milliseconds(Int64(seconds * 1000))
await withTaskGroup(of: [Double].self) { group in
    for _ in 0..<tasks {
        group.addTask {
            var mine: [Double] = []
            mine.reserveCapacity(1 << 16)
            while clock.now < deadline {
                let began = clock.now
                if await !get() { tally.failures.add(1, ordering: .relaxed) }
                let elapsed = clock.now - began
                mine.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
            }
            return mine
        }
    }
    for await latencies in group { tally.latencies.withLock { $0 += latencies } }
}
let elapsed = clock.now - start
let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
await client.shutdown()

let sorted = tally.latencies.withLock { $0.sorted() }
func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print("Running \(seconds)s test @ \(arguments[1]) through \(viaURLSession ? "URLSession" : "KeychainClient"), \(tasks) tasks")
print("  Latency Distribution")
print(String(format: "     50%%  %.2fus", percentile(0.50)))
print(String(format: "     99%%  %.2fus", percentile(0.99)))
print(String(format: "  %d requests in %.2fs, 0.00MB read", sorted.count, wall))
let failures = tally.failures.load(ordering: .relaxed)
if failures > 0 { print("  Non-2xx or 3xx responses: \(failures)") }
print(String(format: "Requests/sec: %.2f", Double(sorted.count) / wall))
