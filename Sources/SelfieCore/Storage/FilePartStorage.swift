import Foundation
import ImagingTypes
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Resumable uploads on the filesystem store: one part file per upload in `<BLOB_DIR>/.parts/`,
/// on the same filesystem as the blobs, so completing is a rename. Every append truncates the
/// file to the recorded offset, writes, and fsyncs before it returns. All I/O runs on NIO's thread pool.
public struct FilePartStorage: PartStorage {
    let store: FileBlobStore
    var folder: String { "\(store.root)/.parts" }

    public init(store: FileBlobStore) { self.store = store }

    func path(_ id: String) -> String { "\(folder)/\(id).part" }

    public func append<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes, to upload: ResumableUpload, limit: Int64) async throws -> PartProgress
    where Bytes.Element == ByteBuffer {
        let offset = upload.storedOffset
        let (path, folder, pool) = (self.path(upload.publicID), self.folder, store.threadPool)
        let fd = try await pool.runIfActive {
            guard mkdir(folder, 0o750) == 0 || errno == EEXIST else { throw FileBlobStore.error(errno, "create \(folder)") }
            // Made by the first append only: a later one whose file is gone, or shorter than what
            // the row records, must not go on over zeros.
            let fd = open(path, O_WRONLY | O_CLOEXEC | (offset == 0 ? O_CREAT : 0), 0o640)
            guard fd >= 0 else { throw errno == ENOENT ? PartMissing() : FileBlobStore.error(errno, "open \(path)") }
            var info = stat()
            guard fstat(fd, &info) == 0, Int64(info.st_size) >= offset else {
                close(fd)
                throw PartMissing()
            }
            guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
                let code = errno
                close(fd)
                throw FileBlobStore.error(code, "truncate \(path)")
            }
            return fd
        }
        var stored = offset
        do {
            for try await chunk in bytes {
                guard stored + Int64(chunk.readableBytes) <= limit else { throw PartLimitExceeded() }
                try await pool.runIfActive { try FileBlobStore.writeAll(chunk, to: fd, path: path) }
                stored += Int64(chunk.readableBytes)
            }
        } catch {
            // What arrived before the failure is kept (tus: as many bytes as possible), made durable
            // (and the file closed) even when the PATCH was cancelled: its deadline cancels it. When
            // they cannot be made durable, none of this PATCH's bytes count (the next append
            // truncates to the offset recorded before it).
            let durable = (try? await evenIfCancelled {
                try await pool.runIfActive { () -> Bool in
                    defer { close(fd) }
                    return fsync(fd) == 0
                }
            }) ?? false
            throw PartialAppend(progress: PartProgress(offset: durable ? stored : offset, state: PartState()), underlying: error)
        }
        // Even when the deadline cancelled the PATCH just after its last byte: else the file would
        // stay open, and its bytes unrecorded.
        try await evenIfCancelled {
            try await pool.runIfActive {
                guard fsync(fd) == 0 else {
                    let code = errno
                    close(fd)
                    throw FileBlobStore.error(code, "fsync \(path)")
                }
                close(fd)
            }
        }
        return PartProgress(offset: stored, state: PartState())
    }

    public func complete(_ upload: ResumableUpload, contentType: String) async throws -> BlobKey {
        guard let key = BlobKey.random(contentType: contentType) else { throw PhotoError.notAnImage }
        let (path, final, pool, length) = (self.path(upload.publicID), store.path(for: key), store.threadPool, upload.length)
        let root = store.root
        try await pool.runIfActive {
            var info = stat()
            guard stat(path, &info) == 0, Int64(info.st_size) >= length else { throw BlobStoreError.unavailable("part file \(path) is short") }
            guard truncate(path, off_t(length)) == 0 else { throw FileBlobStore.error(errno, "truncate \(path)") }
            let shard = (final as NSString).deletingLastPathComponent
            for level in [(shard as NSString).deletingLastPathComponent, shard] where level.count > root.count {
                guard mkdir(level, 0o750) == 0 || errno == EEXIST else { throw FileBlobStore.error(errno, "create \(level)") }
            }
            guard rename(path, final) == 0 else { throw FileBlobStore.error(errno, "rename \(path)") }
            let folder = open(shard, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        }
        return key
    }

    public func discard(_ upload: ResumableUpload) async throws {
        let path = self.path(upload.publicID)
        try await store.threadPool.runIfActive {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileBlobStore.error(errno, "remove \(path)") }
        }
    }

    public func head(of upload: ResumableUpload, count: Int) async throws -> ByteBuffer {
        let path = self.path(upload.publicID)
        return try await store.threadPool.runIfActive {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw FileBlobStore.error(errno, "open \(path)") }
            defer { close(fd) }
            var buffer = ByteBuffer()
            guard buffer.appendRead(from: fd, count: count) >= 0 else { throw FileBlobStore.error(errno, "read \(path)") }
            return buffer
        }
    }
}
