import Foundation
import FuzzTargets

// Built with `-sanitize=fuzzer -D FUZZING` (Tests/fuzz/run.sh), this is a libFuzzer target: the
// environment variable KEYCHAIND_FUZZ_TARGET names which `FuzzTarget` runs. Built without, it
// replays files: `keychaind-fuzz TARGET FILE...`.

/// Read once: libFuzzer calls the entry point millions of times.
private let selected: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["KEYCHAIND_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("KEYCHAIND_FUZZ_TARGET must name one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selected.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if FUZZING
    // SwiftPM links an executable's entry point under this name (and `main` to it), so libFuzzer's own
    // `main` is not the one that runs: this hands over to libFuzzer's driver instead.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    @_cdecl("keychaind_fuzz_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var vector = argv
        return runFuzzerDriver(&count, &vector) { data, size in
            guard let data else { return 0 }
            return fuzzOneInput(data, size)
        }
    }
#else
    @main
    struct Replay {
        static func main() throws {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                print("usage: keychaind-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...")
                exit(2)
            }
            for path in arguments.dropFirst() {
                target.run(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            }
        }
    }
#endif
