import Foundation
import ImagingTypes
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Blobs as files under one folder, sharded two levels deep by the key's first characters
/// (`ab/cd/abcd….jpg`). A blob is written to a temporary file in its final folder, fsynced, then
/// renamed into place, so a reader never sees half a photo. All file I/O runs on NIO's thread pool.
public struct FileBlobStore: BlobStore {
    let root: String
    let signer: MediaURLSigner
    let threadPool: NIOThreadPool

    public init(root: String, signer: MediaURLSigner, threadPool: NIOThreadPool = .singleton) throws {
        self.root = root
        self.signer = signer
        self.threadPool = threadPool
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func path(for key: BlobKey) -> String {
        let name = key.value
        let shard1 = name.prefix(2)
        let shard2 = name.dropFirst(2).prefix(2)
        return "\(root)/\(shard1)/\(shard2)/\(name)"
    }

    public func makeWriter(for key: BlobKey) async throws -> any BlobWriter {
        let finalPath = path(for: key)
        let folder = (finalPath as NSString).deletingLastPathComponent
        let temporary = "\(folder)/.upload-\(RandomToken.urlSafe(byteCount: 12)).tmp"
        let root = self.root
        let descriptor = try await threadPool.runIfActive {
            // root/ab/cd: both levels made here, so a full or read-only disk is a clear error.
            for level in [(folder as NSString).deletingLastPathComponent, folder] where level.count > root.count {
                guard mkdir(level, 0o750) == 0 || errno == EEXIST else { throw FileBlobStore.error(errno, "create \(level)") }
            }
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
            guard fd >= 0 else { throw FileBlobStore.error(errno, "create \(temporary)") }
            return fd
        }
        return FileBlobWriter(descriptor: descriptor, temporaryPath: temporary, finalPath: finalPath, threadPool: threadPool)
    }

    public func read(_ key: BlobKey, range: ByteRangeRequest?) async throws -> BlobContent? {
        let path = path(for: key)
        guard let size = try await threadPool.runIfActive({ () -> Int? in
            var info = stat()
            guard stat(path, &info) == 0 else {
                guard Self.isAbsent(errno) else { throw FileBlobStore.error(errno, "stat \(path)") }
                return nil
            }
            return Int(info.st_size)
        }) else { return nil }
        var served = 0...max(size - 1, 0)
        if let range {
            guard let resolved = range.resolve(size: size) else { throw BlobRangeNotSatisfiable(size: size) }
            served = resolved
        }
        let length = size == 0 ? 0 : served.count
        let threadPool = self.threadPool
        let bytes = served
        let body = BlobBody { sink in
            guard length > 0 else { return }
            let fd = try await threadPool.runIfActive {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw FileBlobStore.error(errno, "open \(path)") }
                return fd
            }
            defer { close(fd) }
            var offset = bytes.lowerBound
            let chunk = 128 * 1024
            while offset <= bytes.upperBound {
                let count = min(chunk, bytes.upperBound - offset + 1)
                let start = offset
                let buffer = try await threadPool.runIfActive {
                    var buffer = ByteBuffer()
                    buffer.reserveCapacity(count)
                    let read = buffer.appendRead(from: fd, count: count, at: Int64(start))
                    guard read > 0 else { throw FileBlobStore.error(errno, "read \(path)") }
                    return buffer
                }
                offset += buffer.readableBytes
                try await sink(buffer)
            }
        }
        return BlobContent(totalSize: size, contentType: key.contentType, range: served, body: body)
    }

    public func exists(_ key: BlobKey) async throws -> Bool {
        let path = path(for: key)
        return try await threadPool.runIfActive {
            guard access(path, F_OK) == 0 else {
                guard Self.isAbsent(errno) else { throw FileBlobStore.error(errno, "look for \(path)") }
                return false
            }
            return true
        }
    }

    /// Whether a failed `stat`/`access` says the file is not there. Anything else (EACCES after a
    /// restore by another user, EIO, ESTALE, ELOOP) is the store failing, not the blob missing: a
    /// 503 rather than "gone", and the integrity check does not count the photo lost.
    static func isAbsent(_ code: Int32) -> Bool {
        code == ENOENT || code == ENOTDIR
    }

    public func delete(_ key: BlobKey) async throws {
        let path = path(for: key)
        try await threadPool.runIfActive {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileBlobStore.error(errno, "delete \(path)") }
        }
    }

    public func signedURL(for key: BlobKey, lifetime: Duration) -> String {
        signer.url(for: key, lifetime: lifetime)
    }

    /// Walks only the shard folders whose names can hold `prefix` (`ab/` for "a", "ab" or "abc").
    public func list(namesStartingWith prefix: String) async throws -> [BlobListing] {
        let root = self.root
        return try await threadPool.runIfActive {
            var listings: [BlobListing] = []
            let shards = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            for shard in shards where shard.hasPrefix(prefix) || prefix.hasPrefix(shard) {
                guard let walker = FileManager.default.enumerator(atPath: "\(root)/\(shard)") else { continue }
                while let relative = walker.nextObject() as? String {
                    let name = (relative as NSString).lastPathComponent
                    guard name.hasPrefix(prefix), let key = BlobKey(name) else { continue }
                    let attributes = try? FileManager.default.attributesOfItem(atPath: "\(root)/\(shard)/\(relative)")
                    let modified = attributes?[.modificationDate] as? Date ?? .now
                    listings.append(BlobListing(key: key, lastModified: modified))
                }
            }
            return listings
        }
    }

    /// Temporary files of uploads that never finished, and resumable uploads' part files
    /// (`.parts/<upload>.part`) whose upload is not in `keeping` (its row went with its account).
    public func removeIncompleteUploads(olderThan cutoff: Date, keeping: Set<String>) async throws -> Int {
        let root = self.root
        return try await threadPool.runIfActive {
            var removed = 0
            guard let walker = FileManager.default.enumerator(atPath: root) else { return 0 }
            while let relative = walker.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                let temporary = name.hasPrefix(".upload-") && name.hasSuffix(".tmp")
                let abandonedPart = relative.hasPrefix(".parts/") && name.hasSuffix(".part") && !keeping.contains(String(name.dropLast(5)))
                guard temporary || abandonedPart else { continue }
                let path = "\(root)/\(relative)"
                let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date ?? .now
                if modified < cutoff, unlink(path) == 0 { removed += 1 }
            }
            return removed
        }
    }

    /// Writes every byte of `bytes` to `fd` (blocking: on the thread pool).
    static func writeAll(_ bytes: ByteBuffer, to fd: Int32, path: String) throws {
        try bytes.withUnsafeReadableBytes { pointer in
            var written = 0
            while written < pointer.count {
                let result = Glibc.write(fd, pointer.baseAddress! + written, pointer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw FileBlobStore.error(errno, "write \(path)")
                }
                written += result
            }
        }
    }

    /// Disk full and quota errors are the store's capacity (507); the rest is the store failing (503).
    static func error(_ code: Int32, _ action: String) -> BlobStoreError {
        let reason = "\(action): \(String(cString: strerror(code)))"
        return code == ENOSPC || code == EDQUOT ? .insufficientStorage(reason) : .unavailable(reason)
    }
}

/// Writes into a temporary file; `commit` fsyncs and renames it into place, `abort` removes it.
final class FileBlobWriter: BlobWriter {
    private var descriptor: Int32?
    private let temporaryPath: String
    private let finalPath: String
    private let threadPool: NIOThreadPool

    init(descriptor: Int32, temporaryPath: String, finalPath: String, threadPool: NIOThreadPool) {
        self.descriptor = descriptor
        self.temporaryPath = temporaryPath
        self.finalPath = finalPath
        self.threadPool = threadPool
    }

    func write(_ bytes: ByteBuffer) async throws {
        guard let fd = descriptor else { throw BlobStoreError.unavailable("write after close") }
        let path = temporaryPath
        try await threadPool.runIfActive {
            try FileBlobStore.writeAll(bytes, to: fd, path: path)
        }
    }

    func commit() async throws {
        guard let fd = descriptor else { throw BlobStoreError.unavailable("commit after close") }
        descriptor = nil
        let (temporary, final, threadPool) = (temporaryPath, finalPath, self.threadPool)
        do {
            // Not cut short by a cancellation: the descriptor is closed either way.
            try await evenIfCancelled { try await threadPool.runIfActive {
                guard fsync(fd) == 0 else {
                    let code = errno
                    close(fd)
                    throw FileBlobStore.error(code, "fsync \(temporary)")
                }
                guard close(fd) == 0 else { throw FileBlobStore.error(errno, "close \(temporary)") }
                guard rename(temporary, final) == 0 else { throw FileBlobStore.error(errno, "rename \(temporary)") }
                // Make the rename itself durable.
                let folder = open((final as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if folder >= 0 {
                    fsync(folder)
                    close(folder)
                }
            } }
        } catch {
            _ = try? await evenIfCancelled { try await threadPool.runIfActive { unlink(temporary) } }
            throw error
        }
    }

    func abort() async {
        let fd = descriptor
        descriptor = nil
        let (temporary, threadPool) = (temporaryPath, self.threadPool)
        _ = try? await evenIfCancelled {
            try await threadPool.runIfActive {
                if let fd { close(fd) }
                unlink(temporary)
            }
        }
    }

    deinit {
        // A writer dropped without commit or abort (a cancelled request): leave nothing behind.
        if let fd = descriptor {
            close(fd)
            unlink(temporaryPath)
        }
    }
}
