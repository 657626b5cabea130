import Foundation

/// A child process whose exit can be awaited without blocking a thread.
final class ChildProcess: Sendable {
    private let process: Process
    private let exitStatus: AsyncStream<Int32>
    /// Kept open so the child can notice (stdin EOF) when the test process dies.
    private let stdin: Pipe

    init(arguments: [String], log: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        process.standardOutput = logHandle
        process.standardError = logHandle
        let stdin = Pipe()
        process.standardInput = stdin
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            continuation.yield(finished.terminationStatus)
            continuation.finish()
        }
        try process.run()
        try logHandle.close()
        self.process = process
        self.exitStatus = stream
        self.stdin = stdin
    }

    var isRunning: Bool { self.process.isRunning }

    func waitForExit() async -> Int32 {
        for await status in self.exitStatus {
            return status
        }
        return self.process.terminationStatus
    }

    func stop() async {
        try? self.stdin.fileHandleForWriting.close()
        if self.process.isRunning {
            self.process.terminate()
        }
        _ = await self.waitForExit()
    }

    /// Runs a command to completion; throws with its output when it fails.
    static func run(_ arguments: [String], in directory: URL) async throws {
        let log = directory.appendingPathComponent("command-\(UUID().uuidString).log")
        let child = try ChildProcess(arguments: arguments, log: log)
        let status = await child.waitForExit()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: log)
        guard status == 0 else {
            throw TestSetupError("\(arguments.joined(separator: " ")) exited with \(status): \(output)")
        }
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh directory under the system temp directory.
func makeTemporaryDirectory(_ prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
