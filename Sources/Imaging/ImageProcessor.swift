import CVips
import NIOCore

/// Turns an uploaded photo into its renditions: decode once, turn upright, convert to sRGB,
/// drop every metadata block (EXIF, GPS, XMP, IPTC, comments, maker notes, ICC), encode.
///
/// Every method **blocks** the calling thread (CPU-bound, tens to hundreds of milliseconds):
/// call them from a thread pool, e.g. `NIOThreadPool.singleton.runIfActive { … }`, with at most one
/// call per core in flight. For part of its time one call keeps two cores busy (a progressive JPEG's luma and
/// chroma, the resize to the largest rendition on two libvips threads, the display copy's encode beside the
/// thumbnails).
public struct ImageProcessor: Sendable {
    public var limits: ImageLimits
    public var renditions: RenditionSet

    public init(limits: ImageLimits = ImageLimits(), renditions: RenditionSet = .standard) {
        self.limits = limits
        self.renditions = renditions
    }

    /// Starts libvips now rather than at the first photo (it loads its modules from files): the
    /// worker does this before it takes its own access to files away.
    public static func start() throws(ImageError) {
        try Libvips.start()
    }

    /// Reads the header only (no pixel is decoded) and applies the limits. Blocking, but fast (< 1 ms typical).
    /// Cannot see truncation (the header is intact); `process` does.
    public func probe(_ bytes: ByteBuffer) throws(ImageError) -> ImageProbe {
        try withInput(bytes) { input throws(ImageError) in try Header(input, limits: limits).probe }
    }

    /// Probes, then makes every rendition of `renditions`, in their order. Blocking: here ≈ 140 ms for a
    /// 12 MP JPEG and ≈ 1.1 s for a 12 MP HEIC, one core, libvips holding ≈ 25 MB (JPEG) or ≈ 140 MB (HEIC)
    /// while it runs.
    public func process(_ bytes: ByteBuffer) throws(ImageError) -> ProcessedImage {
        try withInput(bytes) { input throws(ImageError) in
            let header = try Header(input, limits: limits)
            let made = try Pipeline(input: input, header: header, specs: renditions.specs).run()
            return ProcessedImage(probe: header.probe, renditions: made)
        }
    }

    /// libvips reads the caller's bytes in place: every image made from them lives inside `body`.
    private func withInput<T>(
        _ bytes: ByteBuffer, _ body: (UnsafeRawBufferPointer) throws(ImageError) -> T
    ) throws(ImageError) -> T {
        guard bytes.readableBytes > 0 else { throw .empty }
        try Libvips.start()
        let result: Result<T, ImageError> = bytes.withUnsafeReadableBytes { input in
            do throws(ImageError) { return .success(try body(input)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
