import Foundation
import Logging

/// Albums for the browser pages and the API alike: make, rename, describe, delete; put photos in
/// and take them out; choose a cover. Every operation takes the owner: another user's album is
/// `AlbumError.notFound`, another user's photo `PhotoError.notFound`.
public struct AlbumService: Sendable {
    let albums: AlbumRepository
    let photos: PhotoRepository
    let audit: AuditRepository

    public static let maxTitleCharacters = 200
    public static let maxDescriptionCharacters = 2000
    /// The most photos one request may add, remove, download or delete.
    public static let maxPhotosAtOnce = 500
    /// The most albums one account may have (each gallery page lists their names).
    public static let maxAlbums = 1_000

    public init(albums: AlbumRepository, photos: PhotoRepository, audit: AuditRepository) {
        self.albums = albums
        self.photos = photos
        self.audit = audit
    }

    public func create(for user: User, title: String, description: String = "") async throws -> Album {
        let (title, description) = try Self.validated(title: title, description: description)
        return try await albums.insert(
            userID: user.id, publicID: RandomToken.urlSafe(byteCount: 18), title: title, description: description, limit: Self.maxAlbums
        )
    }

    /// A new album holding the user's photos: made only if every one of them is theirs (else
    /// `PhotoError.notFound`, and no album is left behind).
    public func create(for user: User, title: String, with photoIDs: [String]) async throws -> Album {
        try Self.checkCount(photoIDs)
        let album = try await create(for: user, title: title)
        do {
            try await add(photoIDs, to: album.publicID, of: user)
        } catch {
            // Taken back, not deleted by anyone: no audit event.
            _ = try await evenIfCancelled { try await albums.delete(userID: user.id, publicID: album.publicID) }
            throw error
        }
        return try await self.album(album.publicID, of: user)
    }

    /// The user's albums, latest made first, each with the photo its card shows.
    public func cards(for user: User) async throws -> [AlbumCard] {
        let listed = try await albums.list(userID: user.id)
        let covers = try await photos.find(userID: user.id, ids: listed.compactMap(\.coverID))
        let byID = Dictionary(covers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return listed.map { AlbumCard(album: $0.album, cover: $0.coverID.flatMap { byID[$0] }) }
    }

    /// The user's albums' public ids and titles, by title.
    public func names(for user: User) async throws -> [(publicID: String, title: String)] {
        try await albums.names(userID: user.id)
    }

    public func album(_ publicID: String, of user: User) async throws -> Album {
        guard let album = try await albums.find(userID: user.id, publicID: publicID) else { throw AlbumError.notFound }
        return album
    }

    /// The user's albums that hold the photo.
    public func albums(holding photo: Photo) async throws -> [Album] {
        try await albums.containing(photoID: photo.id, userID: photo.userID)
    }

    /// Renames and describes the album (both given: a form or a PATCH fills in what it leaves out).
    public func update(_ publicID: String, of user: User, title: String, description: String) async throws -> Album {
        let (title, description) = try Self.validated(title: title, description: description)
        guard let album = try await albums.update(userID: user.id, publicID: publicID, title: title, description: description) else {
            throw AlbumError.notFound
        }
        return album
    }

    /// Deletes the album and its share links; its photos stay in the gallery.
    public func delete(_ publicID: String, of user: User, origin: RequestOrigin) async throws {
        guard let deleted = try await albums.delete(userID: user.id, publicID: publicID) else { throw AlbumError.notFound }
        let target = "\(publicID) “\(deleted.title)”" + (deleted.links > 0 ? ", with \(deleted.links) share link(s)" : "")
        await audit.record(.albumDeleted, actor: user.id, targetUser: user.id, target: target, origin: origin)
    }

    /// Puts the user's photos in the album: all of them, or none if one is not theirs. Returns how
    /// many were not in it yet.
    @discardableResult
    public func add(_ photoIDs: [String], to albumID: String, of user: User) async throws -> Int {
        try Self.checkCount(photoIDs)
        switch try await albums.add(photoIDs: photoIDs, toAlbum: albumID, userID: user.id) {
        case .albumMissing: throw AlbumError.notFound
        case .photosMissing: throw PhotoError.notFound
        case .added(let count): return count
        }
    }

    /// Takes photos out of the album (they stay in the gallery); returns how many were in it.
    @discardableResult
    public func remove(_ photoIDs: [String], from albumID: String, of user: User) async throws -> Int {
        try Self.checkCount(photoIDs)
        guard let removed = try await albums.remove(photoIDs: photoIDs, fromAlbum: albumID, userID: user.id) else { throw AlbumError.notFound }
        return removed
    }

    /// Makes one of the album's photos its cover; nil goes back to showing its latest photo.
    public func setCover(_ photoID: String?, of albumID: String, of user: User) async throws {
        switch try await albums.setCover(photoID: photoID, album: albumID, userID: user.id) {
        case .albumMissing: throw AlbumError.notFound
        case .photoNotInAlbum: throw AlbumError.coverNotInAlbum
        case .set: break
        }
    }

    /// At least one photo, and no more than one request may name.
    public static func checkCount(_ photoIDs: [String]) throws {
        guard !photoIDs.isEmpty else { throw AlbumError.noPhotos }
        guard photoIDs.count <= maxPhotosAtOnce else { throw AlbumError.tooManyPhotos(max: maxPhotosAtOnce) }
    }

    /// The title trimmed and required; the description trimmed, its line breaks stored as "\n";
    /// both within their lengths and free of control characters (a description may have line
    /// breaks). A form sends a textarea's breaks as CRLF while its `maxlength` counts each as one
    /// character: counted after the breaks are made one, the limit is the one the browser showed.
    public static func validated(title: String, description: String) throws -> (String, String) {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        let description = Self.withUnixLineBreaks(description).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isBlankWhenShown else { throw AlbumError.titleMissing }
        guard title.unicodeScalars.count <= maxTitleCharacters else { throw AlbumError.titleTooLong(maxCharacters: maxTitleCharacters) }
        guard description.unicodeScalars.count <= maxDescriptionCharacters else {
            throw AlbumError.descriptionTooLong(maxCharacters: maxDescriptionCharacters)
        }
        func isControl(_ scalar: Unicode.Scalar, allowingLineBreaks: Bool) -> Bool {
            if allowingLineBreaks, scalar == "\n" || scalar == "\r" { return false }
            return scalar.value < 0x20 || scalar.value == 0x7F
        }
        guard !title.unicodeScalars.contains(where: { isControl($0, allowingLineBreaks: false) }),
            !description.unicodeScalars.contains(where: { isControl($0, allowingLineBreaks: true) }),
            !title.containsDirectionOverrides, !description.containsDirectionOverrides
        else { throw AlbumError.controlCharacters }
        return (title, description)
    }

    /// "\r\n" and a lone "\r" as "\n".
    static func withUnixLineBreaks(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\r")) else { return text }
        var scalars = String.UnicodeScalarView()
        var afterCarriageReturn = false
        for scalar in text.unicodeScalars {
            defer { afterCarriageReturn = scalar == "\r" }
            if scalar == "\n", afterCarriageReturn { continue }
            scalars.append(scalar == "\r" ? "\n" : scalar)
        }
        return String(scalars)
    }
}
