import Foundation
import Hummingbird
import SelfieCore

/// Albums and share links for the app: `/api/albums…` and `/api/share_links…`, with the user's
/// token. Someone else's album or link is a 404, like one that does not exist.
extension APIController {
    var albumRoutes: [Route] {
        [
            Route(method: .get, path: "/api/albums", handler: .token(listAlbums)),
            Route(method: .post, path: "/api/albums", handler: .token(createAlbum)),
            Route(method: .get, path: "/api/albums/:id", handler: .token(showAlbum)),
            Route(method: .patch, path: "/api/albums/:id", handler: .token(updateAlbum)),
            Route(method: .delete, path: "/api/albums/:id", handler: .token(deleteAlbum)),
            Route(method: .post, path: "/api/albums/:id/photos", handler: .token(addToAlbum)),
            Route(method: .delete, path: "/api/albums/:id/photos", handler: .token(removeFromAlbum)),
            Route(method: .get, path: "/api/share_links", handler: .token(listShareLinks)),
            // Link passwords are hashed with bcrypt: limited like other password work.
            Route(method: .post, path: "/api/share_links", handler: .token(createShareLink), rateLimit: .signIn),
            Route(method: .delete, path: "/api/share_links/:id", handler: .token(revokeShareLink)),
        ]
    }

    // MARK: JSON

    struct AlbumJSON: Encodable, Sendable {
        let id: String
        let title: String
        let description: String
        let photoCount: Int
        /// The chosen cover's `random_id` (null: the album shows its latest photo).
        let coverRandomID: String?
        let createdAt: String
        let updatedAt: String

        init(_ album: Album, cover: String?) {
            id = album.publicID
            title = album.title
            description = album.description
            photoCount = album.photoCount
            coverRandomID = cover
            createdAt = APIDate.format(album.createdAt)
            updatedAt = APIDate.format(album.updatedAt)
        }

        enum CodingKeys: String, CodingKey {
            case id, title, description
            case photoCount = "photo_count"
            case coverRandomID = "cover_random_id"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
            try container.encode(description, forKey: .description)
            try container.encode(photoCount, forKey: .photoCount)
            try container.encode(coverRandomID, forKey: .coverRandomID)  // null when absent, not left out
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(updatedAt, forKey: .updatedAt)
        }
    }

    struct AlbumPageJSON: Encodable, Sendable {
        let album: AlbumJSON
        let photos: [PhotoJSON]
        /// Pass as `after` for the next photos; null at the end.
        let nextAfter: String?

        enum CodingKeys: String, CodingKey {
            case album, photos
            case nextAfter = "next_after"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(album, forKey: .album)
            try container.encode(photos, forKey: .photos)
            try container.encode(nextAfter, forKey: .nextAfter)
        }
    }

    struct ShareLinkJSON: Encodable, Sendable {
        let id: String
        /// Only when the link is made: it is never stored.
        let url: String?
        let albumID: String?
        let randomID: String?
        let title: String
        let expiresAt: String?
        let hasPassword: Bool
        let allowDownload: Bool
        let views: Int64
        let lastViewedAt: String?
        let createdAt: String
        /// The shared photo is in the trash: the link shows nothing until it is restored.
        let photoInTrash: Bool

        init(_ link: ShareLink, url: String? = nil) {
            id = link.publicID
            self.url = url
            switch link.target {
            case .album(let album): (albumID, randomID) = (album, nil)
            case .photo(let photo): (albumID, randomID) = (nil, photo)
            }
            title = link.targetTitle
            expiresAt = link.expiresAt.map(APIDate.format)
            hasPassword = link.hasPassword
            allowDownload = link.allowDownload
            views = link.views
            lastViewedAt = link.lastViewedAt.map(APIDate.format)
            createdAt = APIDate.format(link.createdAt)
            photoInTrash = link.targetTrashed
        }

        enum CodingKeys: String, CodingKey {
            case id, url, title, views
            case albumID = "album_id"
            case randomID = "random_id"
            case expiresAt = "expires_at"
            case hasPassword = "has_password"
            case allowDownload = "allow_download"
            case lastViewedAt = "last_viewed_at"
            case createdAt = "created_at"
            case photoInTrash = "photo_in_trash"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            if let url { try container.encode(url, forKey: .url) }
            try container.encode(albumID, forKey: .albumID)
            try container.encode(randomID, forKey: .randomID)
            try container.encode(title, forKey: .title)
            try container.encode(expiresAt, forKey: .expiresAt)
            try container.encode(hasPassword, forKey: .hasPassword)
            try container.encode(allowDownload, forKey: .allowDownload)
            try container.encode(views, forKey: .views)
            try container.encode(lastViewedAt, forKey: .lastViewedAt)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(photoInTrash, forKey: .photoInTrash)
        }
    }

    // MARK: Requests

    struct AlbumBody: Decodable {
        let title: String?
        let description: String?
        /// PATCH only: a photo of the album as its cover; null goes back to its latest photo.
        let coverRandomID: String??

        enum CodingKeys: String, CodingKey {
            case title, description
            case coverRandomID = "cover_random_id"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decodeIfPresent(String.self, forKey: .title)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            coverRandomID = try container.decodeNullable(String.self, forKey: .coverRandomID)
        }
    }

    struct PhotoIDsBody: Decodable {
        let randomIDs: [String]

        enum CodingKeys: String, CodingKey {
            case randomIDs = "random_ids"
        }
    }

    struct ShareLinkBody: Decodable {
        let albumID: String?
        let randomID: String?
        /// Absent: 7 days; null: never (which must be asked for); else 1, 7 or 30.
        let expiresInDays: Int??
        let password: String?
        let allowDownload: Bool?

        enum CodingKeys: String, CodingKey {
            case albumID = "album_id"
            case randomID = "random_id"
            case expiresInDays = "expires_in_days"
            case password
            case allowDownload = "allow_download"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            albumID = try container.decodeIfPresent(String.self, forKey: .albumID)
            randomID = try container.decodeIfPresent(String.self, forKey: .randomID)
            expiresInDays = try container.decodeNullable(Int.self, forKey: .expiresInDays)
            password = try container.decodeIfPresent(String.self, forKey: .password)
            allowDownload = try container.decodeIfPresent(Bool.self, forKey: .allowDownload)
        }
    }

    /// The request's JSON object as `T`; a body that is not one, or a field of the wrong type, is
    /// a 400 that names the field.
    func decodeBody<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let body = try await APIRequestFields.collectBody(of: request)
        let data = body.readableBytes == 0 ? Data("{}".utf8) : Data(buffer: body)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw APIError.missingField(key.stringValue)
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty
        {
            guard let key = context.codingPath.first?.stringValue else { throw APIError.invalidJSON }
            throw AppError(.badRequest, "The field \(key) has the wrong type.")
        } catch {
            throw APIError.invalidJSON
        }
    }

    private func albumJSON(_ album: Album, of user: User) async throws -> AlbumJSON {
        var cover: String?
        if let coverID = album.coverPhotoID {
            cover = try await photos.photos(ids: [coverID], of: user).first?.publicID
        }
        return AlbumJSON(album, cover: cover)
    }

    // MARK: Albums

    func listAlbums(_ request: Request, context: APITokenContext) async throws -> Response {
        let cards = try await albums.cards(for: context.user)
        // The chosen cover only while the card shows it: one in the trash is no cover (the card
        // shows the album's latest photo instead), as `albumJSON` answers for one album.
        let listed = cards.map { card in
            AlbumJSON(card.album, cover: card.cover.flatMap { $0.id == card.album.coverPhotoID ? $0.publicID : nil })
        }
        return try JSONResponse(body: listed).response(from: request, context: context)
    }

    func createAlbum(_ request: Request, context: APITokenContext) async throws -> Response {
        let body = try await decodeBody(AlbumBody.self, from: request)
        guard let title = body.title else { throw APIError.missingField("title") }
        let album = try await albums.create(for: context.user, title: title, description: body.description ?? "")
        return try JSONResponse(status: .created, body: AlbumJSON(album, cover: nil)).response(from: request, context: context)
    }

    /// The album and its photos in gallery order (`limit` 1–200, default 200; `after` the
    /// previous answer's `next_after`).
    func showAlbum(_ request: Request, context: APITokenContext) async throws -> Response {
        let album = try await albums.album(try context.parameters.require("id"), of: context.user)
        let limit = try request.queryInteger("limit", in: Self.pageLimits) ?? Self.pageLimits.upperBound
        let after = try request.queryPosition("after")
        let (found, hasMore) = try await photos.page(for: context.user, album: album.id, after: after, size: limit)
        let page = AlbumPageJSON(
            album: try await albumJSON(album, of: context.user),
            photos: found.map(json(for:)),
            nextAfter: hasMore ? found.last?.position.text : nil
        )
        return try JSONResponse(body: page).response(from: request, context: context)
    }

    func updateAlbum(_ request: Request, context: APITokenContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let body = try await decodeBody(AlbumBody.self, from: request)
        var album = try await albums.album(id, of: context.user)
        // Everything checked before anything is written: a refused cover leaves the title as it was.
        // (Only what is being changed: an album's stored text is not refused again for a new cover.)
        if body.title != nil || body.description != nil {
            _ = try AlbumService.validated(title: body.title ?? album.title, description: body.description ?? album.description)
        }
        if case .some(let cover) = body.coverRandomID {
            try await albums.setCover(cover, of: id, of: context.user)
        }
        if body.title != nil || body.description != nil {
            album = try await albums.update(id, of: context.user, title: body.title ?? album.title, description: body.description ?? album.description)
        } else if body.coverRandomID != nil {
            album = try await albums.album(id, of: context.user)
        }
        return try JSONResponse(body: try await albumJSON(album, of: context.user)).response(from: request, context: context)
    }

    func deleteAlbum(_ request: Request, context: APITokenContext) async throws -> Response {
        try await albums.delete(try context.parameters.require("id"), of: context.user, origin: context.origin)
        return try JSONResponse(body: StatusJSON(status: 200, message: "Album deleted")).response(from: request, context: context)
    }

    /// Adds the photos (all of them, or none when one is not the user's: a 404).
    func addToAlbum(_ request: Request, context: APITokenContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let body = try await decodeBody(PhotoIDsBody.self, from: request)
        try await albums.add(body.randomIDs, to: id, of: context.user)
        return try JSONResponse(body: try await albumJSON(try await albums.album(id, of: context.user), of: context.user))
            .response(from: request, context: context)
    }

    func removeFromAlbum(_ request: Request, context: APITokenContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let body = try await decodeBody(PhotoIDsBody.self, from: request)
        try await albums.remove(body.randomIDs, from: id, of: context.user)
        return try JSONResponse(body: try await albumJSON(try await albums.album(id, of: context.user), of: context.user))
            .response(from: request, context: context)
    }

    // MARK: Share links

    func listShareLinks(_ request: Request, context: APITokenContext) async throws -> Response {
        let links = try await sharing.links(for: context.user)
        return try JSONResponse(body: links.map { ShareLinkJSON($0) }).response(from: request, context: context)
    }

    /// Makes a link; its `url` is in this answer only.
    func createShareLink(_ request: Request, context: APITokenContext) async throws -> Response {
        let body = try await decodeBody(ShareLinkBody.self, from: request)
        let target = try ShareTarget(album: body.albumID, photo: body.randomID)
        let expiry: ShareExpiry
        switch body.expiresInDays {
        case .none: expiry = .default
        case .some(nil): expiry = .never
        case .some(let days?): expiry = try ShareExpiry(days: days)
        }
        let made = try await sharing.create(
            for: context.user,
            target: target,
            expiry: expiry,
            password: body.password,
            allowDownload: body.allowDownload ?? false,
            origin: context.origin
        )
        return try JSONResponse(status: .created, body: ShareLinkJSON(made.link, url: made.url)).response(from: request, context: context)
    }

    func revokeShareLink(_ request: Request, context: APITokenContext) async throws -> Response {
        try await sharing.revoke(try context.parameters.require("id"), of: context.user, origin: context.origin)
        return try JSONResponse(body: StatusJSON(status: 200, message: "Link revoked")).response(from: request, context: context)
    }
}

extension KeyedDecodingContainer {
    /// A field where `null` means something other than leaving it out: `.none` when absent,
    /// `.some(nil)` when null, else its value.
    func decodeNullable<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T?? {
        guard contains(key) else { return .none }
        return .some(try decodeNil(forKey: key) ? nil : try decode(T.self, forKey: key))
    }
}
