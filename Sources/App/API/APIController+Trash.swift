import Foundation
import Hummingbird
import SelfieCore

/// The trash for the app: what `DELETE /api/delete_photo` moved there (its answer is the seed's,
/// unchanged), restoring some of it, and emptying it.
extension APIController {
    var trashRoutes: [Route] {
        [
            Route(method: .get, path: "/api/trash", handler: .token(listTrash)),
            Route(method: .post, path: "/api/trash/restore", handler: .token(restoreFromTrash)),
            Route(method: .delete, path: "/api/trash", handler: .token(emptyTrash)),
        ]
    }

    /// A photo in the trash: the photo's fields, when it was deleted, and when it goes for good.
    struct TrashedPhotoJSON: Encodable, Sendable {
        let photo: PhotoJSON
        let trashedAt: String
        let purgeAt: String?

        enum CodingKeys: String, CodingKey {
            case trashedAt = "trashed_at"
            case purgeAt = "purge_at"
        }

        func encode(to encoder: any Encoder) throws {
            try photo.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(trashedAt, forKey: .trashedAt)
            try container.encode(purgeAt, forKey: .purgeAt)
        }
    }

    func listTrash(_ request: Request, context: APITokenContext) async throws -> Response {
        let trashed = try await photos.trash(of: context.user).map { photo in
            TrashedPhotoJSON(
                photo: json(for: photo),
                trashedAt: APIDate.format(photo.trashedAt ?? photo.createdAt),
                purgeAt: photos.purgeDate(of: photo).map(APIDate.format)
            )
        }
        return try JSONResponse(body: trashed).response(from: request, context: context)
    }

    /// `{"random_ids": [...]}`: those of them in the trash go back where they were.
    func restoreFromTrash(_ request: Request, context: APITokenContext) async throws -> Response {
        let body = try await decodeBody(PhotoIDsBody.self, from: request)
        try AlbumService.checkCount(body.randomIDs)
        let restored = try await photos.restore(body.randomIDs, of: context.user, origin: context.origin)
        return try JSONResponse(body: StatusJSON(status: 200, message: "\(restored) photo(s) restored")).response(from: request, context: context)
    }

    /// Deletes everything in the trash for good.
    func emptyTrash(_ request: Request, context: APITokenContext) async throws -> Response {
        let deleted = try await photos.deleteForever(nil, of: context.user, origin: context.origin)
        return try JSONResponse(body: StatusJSON(status: 200, message: "\(deleted) photo(s) deleted for good")).response(from: request, context: context)
    }
}
