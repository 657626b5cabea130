import Foundation

/// A stored selfie. `publicID` names it to clients; `blobKey` names its original bytes in the blob
/// store, which only its owner ever downloads: pages and the API show its renditions.
public struct Photo: Sendable, Equatable {
    public let id: Int64
    public let publicID: String
    public let userID: Int64
    public let title: String
    public let blobKey: BlobKey
    public let contentType: String
    public let byteSize: Int64
    public let createdAt: Date
    /// The original's dimensions as shown (after its EXIF orientation); nil until it is processed.
    public let width: Int?
    public let height: Int?
    /// Empty for a photo stored before renditions existed, until `selfie photos reprocess` runs.
    public let renditions: [PhotoRendition]

    public func rendition(_ name: RenditionName) -> PhotoRendition? {
        renditions.first { $0.name == name }
    }

    /// Every blob of the photo: the original and each rendition.
    public var blobKeys: [BlobKey] { [blobKey] + renditions.map(\.blobKey) }
}

/// The copies made of every photo, by the name stored with them.
public enum RenditionName: String, Sendable, CaseIterable {
    /// 400 px on the long edge, WebP: the gallery grid.
    case thumbnail400 = "thumb-400"
    /// 800 px, WebP: the grid on dense screens, admin pages.
    case thumbnail800 = "thumb-800"
    /// ≤ 2048 px, progressive JPEG: the photo page and the API's `image_url`.
    case display = "display-2048"
}

/// One rendition of a photo, stored as its own blob.
public struct PhotoRendition: Sendable, Equatable {
    public let name: RenditionName
    public let blobKey: BlobKey
    public let contentType: String
    public let width: Int
    public let height: Int
    public let byteSize: Int64
}
