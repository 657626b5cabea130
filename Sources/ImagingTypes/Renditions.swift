/// How a rendition is encoded.
public enum RenditionFormat: Sendable, Hashable {
    /// Lossy WebP; alpha is kept.
    case webp(quality: Int)
    /// Progressive JPEG; alpha is flattened onto white.
    case progressiveJPEG(quality: Int)

    public var mimeType: String {
        switch self {
        case .webp: "image/webp"
        case .progressiveJPEG: "image/jpeg"
        }
    }
}

/// One output of the pipeline: the image fitted inside `longEdge` × `longEdge`, never upscaled.
public struct RenditionSpec: Sendable, Hashable {
    /// The app's name for it (a storage key suffix, an API field).
    public var name: String
    /// The box the rendition fits in, long edge in pixels; smaller images are never upscaled. The largest
    /// rendition of a JPEG may be up to 5% under it when libjpeg can decode straight to that size
    /// (4000×3000 → 2000×1500 for 2048), which halves the time.
    public var longEdge: Int
    public var format: RenditionFormat

    public init(name: String, longEdge: Int, format: RenditionFormat) {
        self.name = name
        self.longEdge = longEdge
        self.format = format
    }

    /// Grid thumbnail, 400 px, WebP.
    public static let thumbnail400 = RenditionSpec(name: "thumb-400", longEdge: 400, format: .webp(quality: 80))
    /// Grid thumbnail for dense screens, 800 px, WebP.
    public static let thumbnail800 = RenditionSpec(name: "thumb-800", longEdge: 800, format: .webp(quality: 80))
    /// Full-screen copy, ≤ 2048 px, progressive JPEG (the iOS client decodes JPEG and PNG only).
    public static let display2048 = RenditionSpec(
        name: "display-2048", longEdge: 2048, format: .progressiveJPEG(quality: 85))
}

/// The renditions made for every photo.
public struct RenditionSet: Sendable, Hashable {
    public var specs: [RenditionSpec]

    /// `specs` must be non-empty, with distinct names and long edges ≥ 1.
    public init(_ specs: [RenditionSpec]) {
        precondition(!specs.isEmpty, "a rendition set needs at least one rendition")
        precondition(Set(specs.map(\.name)).count == specs.count, "rendition names must be distinct")
        precondition(specs.allSatisfy { $0.longEdge >= 1 }, "a rendition's long edge must be at least 1")
        self.specs = specs
    }

    /// 400 and 800 px WebP thumbnails and a ≤ 2048 px progressive JPEG.
    public static let standard = RenditionSet([.thumbnail400, .thumbnail800, .display2048])
}
