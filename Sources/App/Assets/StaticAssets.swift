import Crypto
import Foundation
import Hummingbird
import SelfieCore

/// The files under `Public/`, read once at start-up and served from memory: no file system on the
/// request path. Each is served at its plain path (`/assets/css/app.css`, cached for an hour) and at
/// a fingerprinted one carrying a hash of its bytes (`/assets/css/app.3f2a9c0d1e4b5a6f.css`), which
/// is what pages link to: its bytes can never change, so browsers keep it for a year without asking
/// again (`immutable`). Both answer with a strong ETag. A well-formed fingerprint that is not the
/// file's (a page from another version, while a rolling deploy runs two) gets the current bytes
/// with `no-cache`, never `immutable`, so the page keeps its styles and nothing wrong is kept.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        let body: ByteBuffer
        /// Content type, length, ETag and caching: built once, copied into each answer.
        let headers: HTTPFields
        let eTag: String
    }

    /// Where the files are served: the router's route, and what `answer` answers.
    static let prefix = "/assets/"
    static let pattern = RouterPath(prefix + "**")
    /// Shown for a photo whose renditions are still being made.
    static let preparingImage = "/assets/img/preparing.png"
    static let plainCaching = "public, max-age=3600"
    static let fingerprintedCaching = "public, max-age=31536000, immutable"
    static let otherVersionCaching = "no-cache"
    static let fingerprintHexDigits = 16
    let assets: [String: Asset]
    /// Plain path → the file as an answer to another version's fingerprint.
    private let otherVersions: [String: Asset]
    /// Plain path → fingerprinted path.
    private let fingerprintedPaths: [String: String]

    /// Reads every file under `directory`; a file type not in `contentTypes` is not served. The
    /// `securityHeaders` that are the same on every answer go into each file's headers here, once:
    /// only the request id is added per request.
    init(directory: String, securityHeaders: SecurityHeaders) throws {
        var assets: [String: Asset] = [:]
        var fingerprintedPaths: [String: String] = [:]
        var otherVersions: [String: Asset] = [:]
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        for case let url as URL in walker {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true,
                let contentType = Self.contentTypes[url.pathExtension.lowercased()]
            else { continue }
            let data = try Data(contentsOf: url)
            let path = String(url.standardizedFileURL.path.dropFirst(root.path.count))
            let digest = SHA256.hash(data: data)
            let eTag = "\"\(digest.prefix(12).hexString)\""
            let body = ByteBuffer(bytes: data)
            func asset(caching: String) -> Asset {
                var headers: HTTPFields = [
                    .contentType: contentType,
                    .eTag: eTag,
                    .cacheControl: caching,
                    .contentLength: String(body.readableBytes),
                ]
                securityHeaders.addFixed(to: &headers)
                return Asset(body: body, headers: headers, eTag: eTag)
            }
            let fingerprinted = Self.fingerprinted(path, hash: digest.prefix(Self.fingerprintHexDigits / 2).hexString)
            assets[path] = asset(caching: Self.plainCaching)
            assets[fingerprinted] = asset(caching: Self.fingerprintedCaching)
            otherVersions[path] = asset(caching: Self.otherVersionCaching)
            fingerprintedPaths[path] = fingerprinted
        }
        self.assets = assets
        self.otherVersions = otherVersions
        self.fingerprintedPaths = fingerprintedPaths
    }

    /// `/assets/css/app.css` with `hash` before its extension: `/assets/css/app.<hash>.css`.
    static func fingerprinted(_ path: String, hash: String) -> String {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        guard let dot = path[slash...].lastIndex(of: "."), dot > path.index(after: slash) else { return "\(path).\(hash)" }
        return "\(path[..<dot]).\(hash)\(path[dot...])"
    }

    /// The plain path of a fingerprinted one (`app.<16 hex digits>.css` → `app.css`), whatever
    /// the hash; nil when `path` does not carry a well-formed fingerprint.
    static func unfingerprinted(_ path: String) -> String? {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let name = path[slash...]
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        // The hash is the next-to-last part (`app.<hash>.css`) or, for a name without an
        // extension, the last one (`LICENSE.<hash>`); fingerprinted() then says which.
        for index in [parts.count - 2, parts.count - 1] where index >= 1 {
            let hash = parts[index]
            guard hash.utf8.count == fingerprintHexDigits,
                hash.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
            else { continue }
            var plainParts = parts
            plainParts.remove(at: index)
            let plain = String(path[..<slash]) + plainParts.joined(separator: ".")
            if fingerprinted(plain, hash: String(hash)) == path { return plain }
        }
        return nil
    }

    /// Every file's fingerprinted URL, sorted: what the service worker keeps for offline use.
    var fingerprintedURLs: [(plain: String, fingerprinted: String)] {
        fingerprintedPaths.sorted { $0.key < $1.key }.map { (plain: $0.key, fingerprinted: $0.value) }
    }

    /// The URL a page links the file at `path` (under `Public/`) with: its fingerprinted one. A path
    /// that is not a served file is a programming error, caught at start-up (`AssetURLs`).
    func url(for path: String) throws -> String {
        guard let url = fingerprintedPaths[path] else { throw AssetMissing(path: path) }
        return url
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

    /// What a GET of `path` (without its query) answers: the file, or 304 without a body when the
    /// browser already holds these bytes (`ifNoneMatch`). Nil when no file is served there.
    func answer(path: some StringProtocol, ifNoneMatch: String?) -> Answer? {
        guard path.hasPrefix(Self.prefix) else { return nil }
        let path = String(path)
        guard let asset = assets[path] ?? Self.unfingerprinted(path).flatMap({ otherVersions[$0] }) else { return nil }
        if ifNoneMatch == asset.eTag {
            var headers = asset.headers
            headers[.contentLength] = nil
            return Answer(status: .notModified, headers: headers, body: nil)
        }
        return Answer(status: .ok, headers: asset.headers, body: asset.body)
    }

    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer?
    }

    /// Through the router: a request that could not be answered on its connection's loop
    /// (`StaticAssetsOnTheLoop`: one sent while an earlier request on its connection was still
    /// being answered) and a path that is not a file (the 404 page).
    func serve(_ request: Request, context: AppRequestContext) throws -> Response {
        guard let answer = answer(path: request.uri.path, ifNoneMatch: request.headers[.ifNoneMatch]) else {
            throw Refusal(.notFound, "error-status-404")
        }
        return Response(status: answer.status, headers: answer.headers, body: answer.body.map { .init(byteBuffer: $0) } ?? .init())
    }
}

/// The static files pages link to, at their fingerprinted URLs: what layouts use as
/// `{{assets.stylesheet}}` and the like. Made once at start-up.
struct AssetURLs: Sendable {
    let stylesheet: String
    let favicon: String
    let uploadScript: String
    let tusScript: String
    let passkeysScript: String
    /// Selecting many photos in a grid (shift-click ranges, the selection bar).
    let selectionScript: String
    /// The photo page as a viewer (arrow keys, swipes).
    let viewerScript: String
    /// "Copy" next to a new share link.
    let shareScript: String
    /// On every page: keeps the browser's time zone in a cookie, applies the footer's choices.
    let preferencesScript: String
    /// On every page: registers the service worker (offline page, share target).
    let installScript: String
    /// On every page: a form is sent once, whatever number of times its button is pressed.
    let formsScript: String
    /// The upload page: puts photos shared into the installed app into the form.
    let sharedPhotosScript: String

    init(_ assets: StaticAssets) throws {
        try self.init { try assets.url(for: $0) }
    }

    /// The plain paths, for renderers that have no `StaticAssets` at hand (tests of templates alone).
    static let plain = AssetURLs { $0 }

    /// Each file pages link to, under `Public/`, through `url`.
    private init(_ url: (String) throws -> String) rethrows {
        stylesheet = try url("/assets/css/app.css")
        favicon = try url("/assets/favicon.svg")
        uploadScript = try url("/assets/js/upload.js")
        tusScript = try url("/assets/js/tus.js")
        passkeysScript = try url("/assets/js/passkeys.js")
        selectionScript = try url("/assets/js/selection.js")
        viewerScript = try url("/assets/js/viewer.js")
        shareScript = try url("/assets/js/share.js")
        preferencesScript = try url("/assets/js/preferences.js")
        installScript = try url("/assets/js/install.js")
        formsScript = try url("/assets/js/forms.js")
        sharedPhotosScript = try url("/assets/js/shared-photos.js")
    }
}

struct AssetMissing: Error, CustomStringConvertible {
    let path: String
    var description: String { "a page links to \(path), which is not under Public/" }
}
