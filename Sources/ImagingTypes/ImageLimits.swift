/// What an upload may be, checked on its header before any pixel is decoded.
public struct ImageLimits: Sendable, Hashable {
    /// Longest side over shortest side above which an image is refused (a 1×100 sliver, a 30000×10 strip).
    public static let maxAspectRatio = 20

    /// Width × height cap; larger images are refused with `ImageError.tooManyPixels`.
    public var maxPixels: Int

    public init(maxPixels: Int = 100_000_000) {
        self.maxPixels = maxPixels
    }
}
