import Crypto
import Foundation
import ImagingTypes
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// One S3 part on its way up, kept on local disk rather than in memory: bytes are appended as they
/// arrive (hashed on the way, since SigV4 signs the payload's SHA-256) and then streamed to S3 from
/// the file. Eight uploads at once then hold a few 64 KiB buffers, not eight 5 MiB parts.
///
/// The file is created in the temporary folder (`TMPDIR`) and unlinked at once: nothing is left
/// behind whatever happens to the process. Not for concurrent use; I/O runs on NIO's thread pool.
final class S3PartSpool: @unchecked Sendable {
    private let descriptor: Int32
    private let pool: NIOThreadPool
    private var hasher = SHA256()
    private(set) var count = 0
    /// Bytes read from the file per chunk when it is sent.
    static let chunkSize = 64 * 1024

    private init(descriptor: Int32, pool: NIOThreadPool) {
        self.descriptor = descriptor
        self.pool = pool
    }

    deinit {
        close(descriptor)
    }

    static func make(pool: NIOThreadPool = .singleton) async throws -> S3PartSpool {
        let folder = FileManager.default.temporaryDirectory.path
        let descriptor = try await pool.runIfActive {
            var template = Array("\(folder)/selfie-s3-part-XXXXXX".utf8CString)
            let descriptor = mkstemp(&template)
            guard descriptor >= 0 else { throw FileBlobStore.error(errno, "create a spool file in \(folder)") }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            return descriptor
        }
        return S3PartSpool(descriptor: descriptor, pool: pool)
    }

    /// The hex SHA-256 of everything appended since the last `reset`.
    var hexSHA256: String { hasher.finalize().hexString }

    func append(_ bytes: ByteBuffer) async throws {
        let descriptor = self.descriptor
        try await pool.runIfActive { try FileBlobStore.writeAll(bytes, to: descriptor, path: "a spool file") }
        hasher.update(data: bytes.readableBytesView)
        count += bytes.readableBytes
    }

    /// Empties the spool for the next part. It counts as empty from the start, even when the
    /// truncation then fails (or is cancelled): its bytes were sent, and must not be kept again
    /// as an upload's tail. A spool whose reset threw is not appended to again.
    func reset() async throws {
        hasher = SHA256()
        count = 0
        let descriptor = self.descriptor
        try await pool.runIfActive {
            // Appends write at the file's offset, so it goes back to the start with the length.
            guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw FileBlobStore.error(errno, "truncate a spool file")
            }
        }
    }

    /// Everything appended, in memory: for a remainder smaller than a part, kept in the database row.
    func contents() async throws -> ByteBuffer {
        var all = ByteBuffer()
        for try await chunk in chunks() { all.writeImmutableBuffer(chunk) }
        return all
    }

    /// The spooled bytes in order, read from the file as they are consumed.
    func chunks() -> Chunks { Chunks(spool: self, count: count) }

    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        /// The spool itself, not its descriptor's number: an HTTP client may ask for one more chunk
        /// after its request has failed and the spool was let go, and the file must still be open
        /// (not closed, its number perhaps another file's) for that read.
        let spool: S3PartSpool
        let count: Int

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunks: Chunks
            var offset = 0

            mutating func next() async throws -> ByteBuffer? {
                guard offset < chunks.count else { return nil }
                let (spool, start, length) = (chunks.spool, offset, Swift.min(S3PartSpool.chunkSize, chunks.count - offset))
                let chunk = try await spool.pool.runIfActive {
                    let descriptor = spool.descriptor
                    var buffer = ByteBufferAllocator().buffer(capacity: length)
                    while buffer.readableBytes < length {
                        let (already, wanted) = (buffer.readableBytes, length - buffer.readableBytes)
                        let read = buffer.appendRead(from: descriptor, count: wanted, at: Int64(start + already))
                        if read < 0 && errno == EINTR { continue }
                        guard read > 0 else { throw BlobStoreError.unavailable("a spool file is shorter than written") }
                    }
                    return buffer
                }
                offset += length
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
    }
}
