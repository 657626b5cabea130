import Foundation
import Hummingbird
import SelfieCore

/// `GET /media/<blob>?expires=…&sig=…`: serves blobs through signed URLs (the filesystem store's
/// image URLs). No session is needed and none is looked at: the signature is the permission.
struct MediaController {
    let blobs: any BlobStore
    let signer: MediaURLSigner

    static let pattern = RouterPath(MediaURLSigner.path + "/:blob")

    /// Media has no session and no page around it: its errors are the router's plain error pages.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Self.pattern, use: serve)
        router.head(Self.pattern, use: serve)
    }

    func serve(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let key = context.parameters.get("blob").flatMap(BlobKey.init) else {
            throw Refusal(.notFound, "error-media-none")
        }
        let query = request.uri.queryParameters
        switch signer.verify(blob: key, expires: query["expires"].map(String.init), signature: query["sig"].map(String.init)) {
        case .valid: break
        case .badSignature: throw Refusal(.forbidden, "error-media-link-invalid")
        case .expired: throw Refusal(.forbidden, "error-media-link-expired")
        }

        var headers: HTTPFields = [
            .eTag: "\"\(key.value)\"",
            // Blobs never change under their key; the URL itself stays the same for a quarter of an hour.
            .cacheControl: "private, max-age=\(Self.maxAge(expires: query["expires"])), immutable",
            .acceptRanges: "bytes",
            .xContentTypeOptions: "nosniff",
        ]
        if request.headers[.ifNoneMatch] == "\"\(key.value)\"" {
            // Blobs never change, but a deleted one must not be confirmed from the cache.
            guard try await blobs.exists(key) else { throw Refusal(.notFound, "error-media-gone") }
            return Response(status: .notModified, headers: headers)
        }
        let range = request.headers[.range].flatMap(ByteRangeRequest.init(header:))
        let content: BlobContent
        do {
            guard let found = try await blobs.read(key, range: range) else {
                throw Refusal(.notFound, "error-media-gone")
            }
            content = found
        } catch let error as BlobRangeNotSatisfiable {
            headers[.contentRange] = "bytes */\(error.size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentType] = content.contentType
        headers[.contentDisposition] = "inline"
        let length = content.totalSize == 0 ? 0 : content.range.count
        headers[.contentLength] = String(length)
        var status = HTTPResponse.Status.ok
        if range != nil {
            status = .partialContent
            headers[.contentRange] = "bytes \(content.range.lowerBound)-\(content.range.upperBound)/\(content.totalSize)"
        }
        return Response(status: status, headers: headers, body: request.method == .head ? ResponseBody() : ResponseBody(content.body, contentLength: length))
    }

    /// Browsers may cache the image until its link expires.
    static func maxAge(expires: Substring?) -> Int {
        guard let expires = expires.flatMap({ Int($0) }) else { return 0 }
        return max(0, expires - Int(Date.now.timeIntervalSince1970))
    }
}
