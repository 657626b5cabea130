import CMagic
import Foundation
import NIOConcurrencyHelpers
import NIOPosix

/// Tells what a file really is from its first bytes, with libmagic: the client's filename and
/// Content-Type are never trusted for that.
///
/// Loading libmagic's database costs milliseconds and megabytes, so loaded handles are kept and
/// reused (a handle is not thread-safe: each is used by one call at a time). The work runs on
/// NIO's thread pool, off the event loops and the cooperative pool.
final class MediaSniffer: Sendable {
    static let shared = MediaSniffer()

    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "libmagic could not load its database" }
    }

    /// A loaded libmagic handle. Only ever used by one call at a time (taken out of `idle` and
    /// put back after), which is what makes sending it between threads safe.
    private struct Handle: @unchecked Sendable {
        let cookie: OpaquePointer
    }

    private let idle = NIOLockedValueBox<[Handle]>([])
    private let threadPool: NIOThreadPool

    init(threadPool: NIOThreadPool = .singleton) {
        self.threadPool = threadPool
    }

    /// The MIME type libmagic reads from `bytes` (e.g. `image/jpeg`). Throws if libmagic itself
    /// cannot work (a broken installation: the server's fault, not the upload's).
    func mimeType(of bytes: [UInt8]) async throws -> String {
        try await threadPool.runIfActive { try self.sniff(bytes) }
    }

    func sniff(_ bytes: [UInt8]) throws -> String {
        let handle = try checkOut()
        defer { idle.withLockedValue { $0.append(handle) } }
        let result = bytes.withUnsafeBytes { buffer in
            magic_buffer(handle.cookie, buffer.baseAddress, buffer.count).map { String(cString: $0) }
        }
        return result ?? "application/octet-stream"
    }

    private func checkOut() throws -> Handle {
        if let handle = idle.withLockedValue({ $0.popLast() }) { return handle }
        guard let cookie = magic_open(MAGIC_MIME_TYPE) else { throw Unavailable() }
        guard magic_load(cookie, nil) == 0 else {
            magic_close(cookie)
            throw Unavailable()
        }
        return Handle(cookie: cookie)
    }
}
