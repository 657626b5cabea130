import CMagic

/// Tells what a file really is from its first bytes, with libmagic: the client's filename and
/// Content-Type are never trusted for that.
enum MediaSniffer {
    /// The MIME type libmagic reads from `bytes` (e.g. `image/jpeg`), or nil if libmagic is unusable.
    static func mimeType(of bytes: [UInt8]) -> String? {
        // A magic handle is not thread-safe: one per call.
        guard let cookie = magic_open(MAGIC_MIME_TYPE) else { return nil }
        defer { magic_close(cookie) }
        guard magic_load(cookie, nil) == 0 else { return nil }
        return bytes.withUnsafeBytes { buffer in
            magic_buffer(cookie, buffer.baseAddress, buffer.count).map { String(cString: $0) }
        }
    }
}
