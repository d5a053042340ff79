import Foundation
import FuzzTargets
import Testing

/// Every committed fuzzing input (the seeds, and each input that once crashed or hung, kept as a
/// regression) through every target, in `swift test`: none may trap.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("corpus")

    static func inputs(_ target: FuzzTarget) throws -> [URL] {
        let directory = corpus.appendingPathComponent(target.rawValue)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyCommittedInputRuns(target: FuzzTarget) throws {
        let files = try Self.inputs(target)
        #expect(!files.isEmpty, "no seeds for \(target.rawValue)")
        for file in files { target.run(Array(try Data(contentsOf: file))) }
        // Each target also gets the others' inputs: a seed for one is a mutation for another.
        for other in FuzzTarget.allCases where other != target {
            for file in try Self.inputs(other) { target.run(Array(try Data(contentsOf: file))) }
        }
    }
}
