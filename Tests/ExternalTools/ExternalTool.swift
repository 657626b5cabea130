import Foundation

/// Runs a command-line tool found on PATH, with stdin/stdout/stderr going through temporary files
/// (so large outputs cannot dead-lock on a full pipe), and waits without blocking a test thread.
public struct ExternalTool {
    public struct Output: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: String
    }

    public struct Failure: Error, CustomStringConvertible {
        let command: [String]
        let output: Output
        public var description: String { "\(command.joined(separator: " ")) exited \(output.status): \(output.stderr)" }
    }

    /// Runs `command` (tool name first) and throws unless it exits 0.
    @discardableResult
    public static func run(_ command: [String], stdin: Data? = nil) async throws -> Output {
        let output = try await runAllowingFailure(command, stdin: stdin)
        guard output.status == 0 else { throw Failure(command: command, output: output) }
        return output
    }

    public static func runAllowingFailure(_ command: [String], stdin: Data? = nil) async throws -> Output {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tool-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inURL = directory.appendingPathComponent("stdin")
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        try (stdin ?? Data()).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Output(
            status: status,
            stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }
}
