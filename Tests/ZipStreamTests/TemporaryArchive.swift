import ExternalTools
import Foundation
import NIOCore
import ZipStream

/// A temporary file that archive bytes are appended to; removed by `remove()`.
final class TemporaryArchive {
    let url: URL
    let directory: URL
    private let handle: FileHandle

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("archive.zip")
        try Data().write(to: url)
        handle = try FileHandle(forWritingTo: url)
    }

    func append(_ buffer: ByteBuffer) throws {
        try handle.write(contentsOf: Data(buffer.readableBytesView))
    }

    /// Moves the end of the file forward without writing: the gap reads back as zeros, and on
    /// Linux file systems it takes no disk space (a hole).
    func skip(_ count: Int) throws {
        try handle.seek(toOffset: try handle.offset() + UInt64(count))
    }

    func close() throws { try handle.close() }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    var size: UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.uint64Value ?? 0
    }
}

/// Deterministic pseudo-random bytes (so contents can be checked without storing them).
func sampleBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: count)
    for index in bytes.indices {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}

/// Hex SHA-256 via Python, to compare with what `zipfile` extracted (keeps the tests free of swift-crypto).
func sha256Hex(of bytes: [UInt8]) async throws -> String {
    let output = try await ExternalTool.run(
        ["python3", "-c", "import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest(), end='')"],
        stdin: Data(bytes))
    return String(decoding: output.stdout, as: UTF8.self)
}
