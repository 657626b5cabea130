import Crypto
import Foundation
import Hummingbird
import SelfieCore

/// The files under `Public/`, read once at start-up and served from memory at their paths
/// (`/assets/css/app.css`), each with a strong ETag: no file system on the request path.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
        let eTag: String
    }

    static let pattern: RouterPath = "/assets/**"
    /// Shown for a photo whose renditions are still being made.
    static let preparingImage = "/assets/img/preparing.png"
    let assets: [String: Asset]

    /// Reads every file under `directory`; a file type not in `contentTypes` is not served.
    init(directory: String) throws {
        var assets: [String: Asset] = [:]
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        for case let url as URL in walker {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true,
                let contentType = Self.contentTypes[url.pathExtension.lowercased()]
            else { continue }
            let data = try Data(contentsOf: url)
            let relative = url.standardizedFileURL.path.dropFirst(root.path.count)
            let digest = SHA256.hash(data: data).prefix(12).hexString
            assets[String(relative)] = Asset(body: ByteBuffer(bytes: data), contentType: contentType, eTag: "\"\(digest)\"")
        }
        self.assets = assets
    }

    static let contentTypes = [
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
        "webp": "image/webp",
        "woff2": "font/woff2",
        "txt": "text/plain; charset=utf-8",
    ]

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Self.pattern, use: serve)
    }

    func serve(_ request: Request, context: AppRequestContext) throws -> Response {
        guard let asset = assets[request.uri.path] else { throw AppError.notFound() }
        var headers: HTTPFields = [
            .contentType: asset.contentType,
            .eTag: asset.eTag,
            .cacheControl: "public, max-age=3600",
        ]
        if request.headers[.ifNoneMatch] == asset.eTag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(asset.body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
