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
    /// When it was taken (EXIF DateTimeOriginal), if the file said.
    public let takenAt: Date?
    /// The camera wrote no offset: `takenAt` is its clock's reading stored as if it were UTC, shown
    /// as written (`PhotoCard`), never moved into a viewer's zone.
    public let takenAtIsLocalTime: Bool
    /// When it was moved to the trash; nil while it is not there.
    public let trashedAt: Date?
    /// Empty for a photo stored before renditions existed, until `selfie photos reprocess` runs.
    public let renditions: [PhotoRendition]

    public func rendition(_ name: RenditionName) -> PhotoRendition? {
        renditions.first { $0.name == name }
    }

    /// Where galleries and albums put it: when it was taken, else when it was uploaded.
    public var shownAt: Date { takenAt ?? createdAt }

    /// Its place in a gallery or album, for the next page's cursor.
    public var position: PhotoPosition { PhotoPosition(shownAt: shownAt, id: id) }

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
    /// Of the bytes as stored: known when the rendition is made (and recorded with it), not read
    /// back with the photo.
    public var sha256: [UInt8]? = nil
}

/// A photo's place in the order galleries and albums show (latest `shownAt` first, then highest
/// id): the keyset cursor of "older photos" links. It keeps working when that photo is deleted.
public struct PhotoPosition: Sendable, Hashable {
    /// Microseconds since 1970, PostgreSQL's precision (a `Date` rounds to it exactly).
    public let microseconds: Int64
    public let id: Int64

    init(microseconds: Int64, id: Int64) {
        self.microseconds = microseconds
        self.id = id
    }

    public init(shownAt: Date, id: Int64) {
        self.microseconds = Int64((shownAt.timeIntervalSince1970 * 1_000_000).rounded())
        self.id = id
    }

    /// From 0001-01-01 to 9999-12-31 (inside PostgreSQL's range, and exact in a `Double`'s 53 bits).
    static let years1to9999: Range<Int64> = -62_135_596_800_000_000..<253_402_300_800_000_000

    /// As a link carries it: `<microseconds>_<id>`.
    public var text: String { "\(microseconds)_\(id)" }

    public init?(text: String) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let microseconds = Int64(parts[0]), let id = Int64(parts[1]), id > 0,
            Self.years1to9999.contains(microseconds)
        else { return nil }
        self.microseconds = microseconds
        self.id = id
    }
}
