// In-process throughput of the keychain core (no HTTP): durable adds per second while filling
// a keychain to N items, then searches by service and account with returnData per second.
//
//   swift run -c release --package-path Benchmarks keychaind-core-bench [items] [seconds] [threads]
import ExtrasBase64
import Foundation
import KeychainAPI
import KeychainCore
import KeychainCrypto
import KeychainJSON
import KeychainSQLite
import Logging
import Synchronization

let arguments = CommandLine.arguments
let items = arguments.count > 1 ? Int(arguments[1])! : 100_000
let seconds = arguments.count > 2 ? Double(arguments[2])! : 5
let threads = arguments.count > 3 ? Int(arguments[3])! : 1

func now() -> Double { Date().timeIntervalSinceReferenceDate }

let directory = NSTemporaryDirectory() + "kcd-core-bench-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: directory) }
var configuration = KeychainConfiguration(dataDirectory: directory)
configuration.defaultLockInterval = 0
var logger = Logger(label: "bench")
logger.logLevel = .warning
let keychain = try Keychain(configuration: configuration, store: SQLiteStore(directory: directory), logger: logger)
let admin = try keychain.initialize(passphrase: SecureBytes(utf8: "bench passphrase")).token
let secret = JSON.string(Base64.encodeToString(bytes: Array("a-32-byte-secret-for-benchmarks!".utf8)))

/// A query dictionary as the API parses it: the searches below cost what one over HTTP does
/// in the core, parsing included.
func query(_ object: JSONObject) -> ItemQuery { try! QueryParser.parse(object) }

// Fill: every add is its own durable transaction (WAL, synchronous=FULL).
let fillStart = now()
var lastReport = fillStart
var windowStart = fillStart
var windowCount = 0
var lastWindowRate = 0.0
for n in 0..<items {
    _ = try keychain.add(
        query(["class": "genericPassword", "service": .string("svc-\(n)"), "account": .string("acct-\(n)"), "valueData": secret]),
        token: admin)
    windowCount += 1
    let t = now()
    if t - windowStart >= 2 {
        lastWindowRate = Double(windowCount) / (t - windowStart)
        windowStart = t
        windowCount = 0
    }
    if t - lastReport >= 10 {
        FileHandle.standardError.write(Data("  \(n + 1) items, \(Int(lastWindowRate)) adds/s now\n".utf8))
        lastReport = t
    }
}
let fillSeconds = now() - fillStart
if windowCount > 0, now() - windowStart > 0.5 { lastWindowRate = Double(windowCount) / (now() - windowStart) }

// Search: random service+account with returnData, from `threads` threads for `seconds`, first
// with a service's read token of group `default` (the item is found by its primary key), then
// with the admin token of every group (found through lookup digests).
let reader = try keychain.createToken(
    name: "bench-reader", accessGroups: ["default"], capabilities: [.read], expiresAt: nil, caller: admin
).token

func searchesPerSecond(token: AccessToken) -> Double {
    let total = Atomic<Int>(0)
    let deadline = now() + seconds
    let group = DispatchGroup()
    let searchStart = now()
    for _ in 0..<threads {
        group.enter()
        Thread.detachNewThread {
            var generator = SystemRandomNumberGenerator()
            var count = 0
            while now() < deadline {
                for _ in 0..<100 {
                    let n = Int.random(in: 0..<items, using: &generator)
                    let search = query(["service": .string("svc-\(n)"), "account": .string("acct-\(n)"), "returnData": true])
                    let result = try! keychain.search(search, token: token)
                    precondition(result.count == 1 && result[0].secret != nil)
                    count += 1
                }
            }
            total.add(count, ordering: .relaxed)
            group.leave()
        }
    }
    group.wait()
    return Double(total.load(ordering: .relaxed)) / (now() - searchStart)
}

let readerRate = searchesPerSecond(token: reader)
let adminRate = searchesPerSecond(token: admin)
let durableAdd: JSONObject = ["class": "genericPassword", "service": "extra", "valueData": secret]
var extraAdds = 0
let extraStart = now()
while now() - extraStart < 3 {
    var add = durableAdd
    add["account"] = .string("extra-\(extraAdds)")
    _ = try keychain.add(query(add), token: admin)
    extraAdds += 1
}
let extraRate = Double(extraAdds) / (now() - extraStart)
keychain.close()

// Parsing a 1 MiB body, as an unauthenticated unlock body may be: one object of as many keys as
// fit (the shape that once took 26 s), and one long string. Beside each, Foundation's
// JSONSerialization on the same bytes, in the same run.
func body(keys: Bool) -> [UInt8] {
    var text = "{"
    if keys {
        var n = 0
        while text.utf8.count < (1 << 20) - 16 {
            text += (n > 0 ? "," : "") + "\"k\(n)\":\(n)"
            n += 1
        }
    } else {
        text += "\"passphrase\":\"" + String(repeating: "x", count: (1 << 20) - 20) + "\""
    }
    return Array((text + "}").utf8)
}

func millisecondsPerParse(_ bytes: [UInt8], _ parse: ([UInt8]) -> Void) -> Double {
    parse(bytes)
    var rounds = 0
    let start = now()
    while now() - start < 2 || rounds < 3 {
        parse(bytes)
        rounds += 1
    }
    return (now() - start) / Double(rounds) * 1000
}

var parseRows: [(String, Double, Double)] = []
for (name, bytes) in [("an object of keys", body(keys: true)), ("one long string", body(keys: false))] {
    let ours = millisecondsPerParse(bytes) { precondition((try? JSON.parse($0)) != nil) }
    let foundation = millisecondsPerParse(bytes) { precondition((try? JSONSerialization.jsonObject(with: Data($0))) != nil) }
    parseRows.append(("\(name), \(bytes.count) bytes", ours, foundation))
}

print("| figure | value |")
print("|---|---|")
print("| items | \(items) |")
print("| fill: durable adds/s (average over \(items)) | \(Int(Double(items) / fillSeconds)) |")
print("| durable adds/s at \(items) items (3 s) | \(Int(extraRate)) |")
print("| searches/s by service+account, returnData, \(threads) thread(s), read token of one group | \(Int(readerRate)) |")
print("| the same with the admin token of every group (each group's primary key) | \(Int(adminRate)) |")
for (name, ours, foundation) in parseRows {
    let figure = String(format: "%.1f / %.1f", ours, foundation)
    print("| JSON parse of a 1 MiB body (\(name)): KeychainJSON ms / Foundation JSONSerialization ms | \(figure) |")
}
