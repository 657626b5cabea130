import Foundation

/// A named set of a user's photos. Deleting it leaves the photos where they are.
public struct Album: Sendable, Equatable {
    public let id: Int64
    /// What pages, links and the API call it.
    public let publicID: String
    public let userID: Int64
    public let title: String
    public let description: String
    /// The photo chosen as its cover; nil: its latest photo is shown.
    public let coverPhotoID: Int64?
    public let photoCount: Int
    public let createdAt: Date
    public let updatedAt: Date
}

/// An album and the photo its card shows (nil while it is empty).
public struct AlbumCard: Sendable {
    public let album: Album
    public let cover: Photo?
}

/// Why an album operation was refused. The surfaces turn each into a status and words.
public enum AlbumError: Error, Equatable, Sendable {
    /// No such album among the user's (someone else's album is "not found" too).
    case notFound
    case titleMissing
    case titleTooLong(maxCharacters: Int)
    case descriptionTooLong(maxCharacters: Int)
    /// A title or description with control characters (other than line breaks in a description).
    case controlCharacters
    /// The cover must be one of the album's photos.
    case coverNotInAlbum
    /// No photo was named (the bulk actions and the API need at least one).
    case noPhotos
    /// More photos at once than one request may name.
    case tooManyPhotos(max: Int)
    /// The account has as many albums as one may have.
    case tooManyAlbums(max: Int)
}
