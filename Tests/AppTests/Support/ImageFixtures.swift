import Foundation
import NIOCore

/// The test photos, made by `Tests/Fixtures/make_images.py` (Pillow, exiftool, heif-enc) once per
/// version of the script and kept in the temporary folder.
enum PhotoFixtures {
    private static let made: Result<URL, any Error> = Result { try make() }

    static func url(_ name: String) throws -> URL {
        try made.get().appendingPathComponent(name)
    }

    static func bytes(_ name: String) throws -> ByteBuffer {
        ByteBuffer(bytes: try Data(contentsOf: url(name)))
    }

    /// Made once per version of the script and kept in the temporary folder: later runs reuse them.
    private static func make() throws -> URL {
        let temporary = FileManager.default.temporaryDirectory
        let finished = temporary.appendingPathComponent("selfie-photo-fixtures-\(scriptVersion)")
        if FileManager.default.fileExists(atPath: finished.appendingPathComponent("complete").path) {
            return finished
        }
        let building = temporary.appendingPathComponent("selfie-photo-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: building, withIntermediateDirectories: true)
        try Tool.run("python3", [scriptPath, building.path])
        _ = FileManager.default.createFile(atPath: building.appendingPathComponent("complete").path, contents: nil)
        try? FileManager.default.removeItem(at: finished)
        do {
            try FileManager.default.moveItem(at: building, to: finished)
            return finished
        } catch {
            return building  // another test process won the race; ours are as good
        }
    }

    static let scriptPath = "\(repositoryRoot)/Tests/Fixtures/make_images.py"

    /// FNV-1a of the script text, so that editing the script makes new fixtures.
    private static var scriptVersion: String {
        let script = (try? String(contentsOfFile: scriptPath, encoding: .utf8)) ?? ""
        let hash = script.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { hash, byte in
            (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// Runs command-line peers (python3, exiftool) and returns their standard output.
enum Tool {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        // A file, not a pipe, so that a chatty stderr cannot block the tool while stdout is being read.
        let errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-tool-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorLog) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            throw Failed(description: "\(tool) exited \(process.terminationStatus): \(errors)")
        }
        return data
    }
}

/// Renditions written to a fresh temporary folder, for the command-line peers to read.
struct OutputFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func write(_ bytes: ByteBuffer, as name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes.readableBytesView).write(to: file)
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
