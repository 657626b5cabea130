import Foundation
import NIOCore

/// The upload formats accepted.
public enum SourceFormat: String, Sendable, Hashable {
    case jpeg, png, webp, gif, heic, avif
}

/// What an image's header says, without decoding pixels.
public struct ImageProbe: Sendable, Hashable {
    public var format: SourceFormat
    /// Upright width: EXIF orientations 5–8 (a quarter turn) swap the stored width and height.
    public var width: Int
    /// Upright height.
    public var height: Int
    /// Frames of an animation or pages of a HEIF collection; 1 for a still image.
    public var frameCount: Int
    /// When the photo was taken (EXIF `DateTimeOriginal`, in its `OffsetTimeOriginal` when the camera
    /// wrote one, else read as UTC), read before the metadata is stripped; nil when it has none.
    public var takenAt: Date?
    /// The camera wrote no offset: `takenAt` is its clock's reading in a zone nobody knows, stored as
    /// if it were UTC — to be shown as written, never moved into a viewer's zone.
    public var takenAtIsLocalTime: Bool

    public init(format: SourceFormat, width: Int, height: Int, frameCount: Int, takenAt: Date? = nil, takenAtIsLocalTime: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.takenAt = takenAt
        self.takenAtIsLocalTime = takenAt != nil && takenAtIsLocalTime
    }
}

/// One encoded rendition of a photo.
public struct Rendition: Sendable {
    public var name: String
    public var bytes: ByteBuffer
    public var width: Int
    public var height: Int
    public var mimeType: String

    public init(name: String, bytes: ByteBuffer, width: Int, height: Int, mimeType: String) {
        self.name = name
        self.bytes = bytes
        self.width = width
        self.height = height
        self.mimeType = mimeType
    }
}

/// Everything `ImageProcessor.process` makes from one upload.
public struct ProcessedImage: Sendable {
    public var probe: ImageProbe
    /// In the order of the rendition set's specs.
    public var renditions: [Rendition]

    public init(probe: ImageProbe, renditions: [Rendition]) {
        self.probe = probe
        self.renditions = renditions
    }

    public subscript(name: String) -> Rendition? {
        renditions.first { $0.name == name }
    }
}
