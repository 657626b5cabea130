/// Why an upload cannot become a photo. Every case but `.processingFailed` is the uploader's fault (HTTP 422).
public enum ImageError: Error, Equatable, Sendable {
    /// Zero bytes.
    case empty
    /// Not an image format libvips recognises, or one we do not accept (SVG, PDF, TIFF, …).
    case unsupportedFormat
    /// A known format whose header or pixel data is damaged.
    case unreadable
    /// The file ends before the image data does (an interrupted upload or copy).
    case truncated
    /// Width × height, read from the header before any decoding, is above `ImageLimits.maxPixels`.
    case tooManyPixels(max: Int)
    /// One side is more than `ImageLimits.maxAspectRatio` times the other.
    case absurdAspectRatio
    /// libvips failed on a valid image (out of memory, an encoder error): the server's fault, HTTP 500.
    case processingFailed(reason: String)
}

extension ImageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .empty: "the file is empty"
        case .unsupportedFormat: "the file is not a JPEG, PNG, WebP, GIF, HEIC or AVIF image"
        case .unreadable: "the image is damaged and cannot be read"
        case .truncated: "the image is incomplete (the file is cut short)"
        case .tooManyPixels(let max): "the image has more than \(max) pixels"
        case .absurdAspectRatio: "the image is too narrow for its length"
        case .processingFailed(let reason): "the image could not be processed: \(reason)"
        }
    }
}
