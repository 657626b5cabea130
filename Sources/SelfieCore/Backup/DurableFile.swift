import Crypto
import Foundation
import NIOCore

/// Files a backup writes: each one complete or absent. Bytes go to `<name>.partial`, are fsynced,
/// then renamed into place (and the folder fsynced), so a backup cut short never leaves a file
/// that looks whole.
enum DurableFile {
    static func write(_ data: Data, to url: URL) throws {
        let writer = try HashingFileWriter(destination: url)
        do {
            try writer.write(data)
            _ = try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// The size and SHA-256 (hex) of a file, read in 1 MiB pieces.
    static func sha256(of url: URL) throws -> (bytes: Int64, sha256: String) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        var bytes: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            bytes += Int64(chunk.count)
        }
        return (bytes, hasher.finalize().hexString)
    }
}

/// Writes one file as its bytes arrive, hashing them on the way.
final class HashingFileWriter {
    private let destination: URL
    private let partial: URL
    private let handle: FileHandle
    private var hasher = SHA256()
    private var bytes: Int64 = 0

    init(destination: URL) throws {
        self.destination = destination
        self.partial = destination.appendingPathExtension("partial")
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: BackupFolder.privateFolder
        )
        guard FileManager.default.createFile(atPath: partial.path, contents: nil, attributes: BackupFolder.privateFile) else {
            throw BackupError.cannotWrite(partial.path)
        }
        handle = try FileHandle(forWritingTo: partial)
    }

    func write(_ data: Data) throws {
        hasher.update(data: data)
        bytes += Int64(data.count)
        try handle.write(contentsOf: data)
    }

    func write(_ buffer: ByteBuffer) throws {
        try buffer.withUnsafeReadableBytes { raw in
            hasher.update(bufferPointer: raw)
            try handle.write(contentsOf: raw)
        }
        bytes += Int64(buffer.readableBytes)
    }

    /// Makes the file durable and visible under its name; its size and SHA-256.
    func finish() throws -> (bytes: Int64, sha256: String) {
        try handle.synchronize()
        try handle.close()
        guard rename(partial.path, destination.path) == 0 else { throw BackupError.cannotWrite(destination.path) }
        let folder = open(destination.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        return (bytes, hasher.finalize().hexString)
    }

    func abandon() {
        try? handle.close()
        try? FileManager.default.removeItem(at: partial)
    }
}
