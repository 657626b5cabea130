@testable import SelfieCore
import Foundation
import ImagingTypes
import NIOCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A read that fails (a disk's EIO, a stale NFS handle) is an error of the request that asked for
/// it, never the end of the process: NIO traps on a byte count of -1, so each read from a
/// descriptor goes through `ByteBuffer.appendRead`.
@Suite("Reads that fail")
struct ReadErrorTests {
    @Test("a blob that cannot be read fails its own body with a storage error, and the store goes on")
    func blobReadFails() async throws {
        let root = temporaryBlobDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try Self.store(at: root)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        // A directory where the file should be: `stat` and `open` succeed, every `pread` fails (EISDIR).
        try FileManager.default.createDirectory(atPath: store.path(for: key), withIntermediateDirectories: true)
        let content = try #require(try await store.read(key, range: ByteRangeRequest?.none))
        var received = 0
        await #expect(throws: BlobStoreError.self) {
            try await content.body.write { received += $0.readableBytes }
        }
        #expect(received == 0)

        let readable = try #require(BlobKey.random(contentType: "image/jpeg"))
        let writer = try await store.makeWriter(for: readable)
        try await writer.write(ByteBuffer(string: "still here"))
        try await writer.commit()
        var stored = ByteBuffer()
        try await #require(try await store.read(readable, range: ByteRangeRequest?.none)).body.write { stored.writeImmutableBuffer($0) }
        #expect(String(buffer: stored) == "still here")
    }

    @Test("a blob the store cannot look at (here ELOOP; EACCES, EIO or ESTALE alike) is the store failing, not the blob missing: a storage error, never \"gone\"")
    func lookFails() async throws {
        let root = temporaryBlobDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try Self.store(at: root)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        let shard = (store.path(for: key) as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: (shard as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // The shard folder a link to itself: every look inside it fails with ELOOP.
        try #require(symlink((shard as NSString).lastPathComponent, shard) == 0)
        await #expect(throws: BlobStoreError.self) { _ = try await store.read(key, range: ByteRangeRequest?.none) }
        await #expect(throws: BlobStoreError.self) { _ = try await store.exists(key) }

        // A blob that is simply not there is still "missing".
        let absent = try #require(BlobKey.random(contentType: "image/jpeg"))
        #expect(try await store.read(absent, range: ByteRangeRequest?.none) == nil)
        #expect(try await store.exists(absent) == false)
    }

    static func store(at root: String) throws -> FileBlobStore {
        try FileBlobStore(
            root: root,
            signer: MediaURLSigner(secretKey: try SecretKey("test-secret-key-that-is-long-enough-0123456789"), publicURL: URL(string: "http://localhost")!)
        )
    }

    @Test("a pipe read that fails is the pipe's error with its errno")
    func pipeReadFails() throws {
        let path = temporaryBlobDirectory() + ".pipe"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        // Readable at once for `poll` (a regular file), but opened only for writing: `read` gives -1.
        #expect(throws: ImageWorkPipe.Failure.failed(errno: EBADF)) {
            _ = try ImageWorkPipe(descriptor: descriptor).read(exactly: 4, until: .now + .seconds(5))
        }
    }

    @Test("appendRead gives the system call's -1 and errno, and keeps what the buffer held")
    func appendReadKeepsErrno() {
        var buffer = ByteBuffer(string: "ab")
        errno = 0
        #expect(buffer.appendRead(from: -1, count: 16) == -1)
        #expect(errno == EBADF)
        #expect(String(buffer: buffer) == "ab")
    }
}
