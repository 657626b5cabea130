import Foundation
import Hummingbird
import SelfieCore

/// How much the user stores and may store, for the app to show before an upload is refused.
extension APIController {
    var usageRoutes: [Route] {
        [Route(method: .get, path: "/api/usage", handler: .token(usage))]
    }

    /// Bytes and counts: `used` counts originals, renditions and the trash; `quota` is null when
    /// there is no limit.
    struct UsageJSON: Encodable, Sendable {
        let used: Int64
        let quota: Int64?
        let available: Int64?
        let photos: Int
        let trash: Int
        let trashBytes: Int64

        enum CodingKeys: String, CodingKey {
            case used, quota, available, photos, trash
            case trashBytes = "trash_bytes"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(used, forKey: .used)
            try container.encode(quota, forKey: .quota)  // null, not left out: "no limit"
            try container.encode(available, forKey: .available)
            try container.encode(photos, forKey: .photos)
            try container.encode(trash, forKey: .trash)
            try container.encode(trashBytes, forKey: .trashBytes)
        }
    }

    func usage(_ request: Request, context: APITokenContext) async throws -> Response {
        let usage = try await photos.usage(of: context.user)
        let body = UsageJSON(
            used: usage.usedBytes,
            quota: usage.quotaBytes,
            available: usage.availableBytes,
            photos: usage.photos,
            trash: usage.trashedPhotos,
            trashBytes: usage.trashedBytes
        )
        return try JSONResponse(body: body).response(from: request, context: context)
    }
}
