import Crypto
import Foundation
import Hummingbird
import SelfieCore

/// Selfie as an app on the home screen: the web app manifest (name, colours, icons, and the share
/// target that puts Selfie in the phone's share sheet), the service worker at `/sw.js` (scope `/`),
/// the offline page it keeps, and the answer to a share that reaches the server because no
/// service worker took it. Everything here is the same for every visitor: no session, no database.
///
/// The service worker is `Public/assets/js/service-worker.js` with a first line written here at
/// start-up: the fingerprinted static files to keep, and a version made from them and the offline
/// pages, so that any deploy that changes what it keeps installs a new worker.
struct InstallableApp: Sendable {
    static let manifestPath = "/manifest.webmanifest"
    static let serviceWorkerPath = "/sw.js"
    static let offlinePath = "/offline"
    /// The manifest's `share_target.action`: the service worker takes the POST, keeps the files
    /// and sends the browser to `sharedPhotosPage`; without a worker the server answers it.
    static let shareTargetPath = "/share-target"
    /// The multipart field the share sheet puts the files in.
    static let sharedFilesField = "photos"
    /// The upload form, told to pick up the shared files the worker kept.
    static let sharedPhotosPage = WebPath.newPhoto + "?shared=1"
    /// The upload form with "your photos did not reach Selfie, choose them here": what a share gets
    /// when no worker could keep its files.
    static let shareAgainPage = WebPath.newPhoto + "?notice=" + Notice.shareAgain.rawValue
    /// The worker's source under `Public/`; not itself kept for offline use.
    static let workerSource = "/assets/js/service-worker.js"
    /// `--paper` in light mode (app.css), the header's colour: the browser's bar blends with it.
    static let themeColor = "#ffffff"
    /// `--wash` in light mode (app.css): behind every page, and the splash screen's colour.
    static let backgroundColor = "#f4f6f9"
    /// What the share sheet may offer Selfie: photos, HEIC included (some systems call it
    /// `application/octet-stream`; its extension still matches).
    static let acceptedFiles = ["image/*", "image/heic", "image/heif", ".heic", ".heif", ".jpg", ".jpeg", ".png", ".webp", ".gif"]

    private let manifests: [Language: ByteBuffer]
    private let serviceWorker: ByteBuffer
    /// Names this build of the worker (its ETag, its cache).
    let version: String
    private let pages: PageRenderer

    init(assets: StaticAssets, pages: PageRenderer) throws {
        self.pages = pages
        let icons = try [
            Manifest.Icon(src: assets.url(for: "/assets/icons/icon-192.png"), sizes: "192x192", purpose: "any"),
            Manifest.Icon(src: assets.url(for: "/assets/icons/icon-512.png"), sizes: "512x512", purpose: "any"),
            Manifest.Icon(src: assets.url(for: "/assets/icons/maskable-192.png"), sizes: "192x192", purpose: "maskable"),
            Manifest.Icon(src: assets.url(for: "/assets/icons/maskable-512.png"), sizes: "512x512", purpose: "maskable"),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var manifests: [Language: ByteBuffer] = [:]
        for language in Language.allCases {
            let manifest = Manifest(
                description: pages.translations.format("manifest-description", in: language),
                lang: language.rawValue,
                icons: icons
            )
            manifests[language] = ByteBuffer(bytes: try encoder.encode(manifest))
        }
        self.manifests = manifests

        guard let source = assets.assets[Self.workerSource] else { throw AssetMissing(path: Self.workerSource) }
        let precache = assets.fingerprintedURLs
            .filter { $0.plain.hasPrefix("/assets/") && $0.plain != Self.workerSource }
            .map { $0.fingerprinted }
        var digest = SHA256()
        for url in precache { digest.update(data: Data(url.utf8)) }
        digest.update(data: Data(source.body.readableBytesView))
        for language in Language.allCases {
            let offline = try pages.renderOffline(viewer: Viewer(language: language, timeZone: nil, theme: .system))
            digest.update(data: Data(offline.body))
        }
        version = digest.finalize().prefix(8).hexString
        let settings = WorkerSettings(
            version: version,
            precache: precache,
            offline: Self.offlinePath,
            shareTarget: Self.shareTargetPath,
            sharedFilesField: Self.sharedFilesField,
            sharedPhotosPage: Self.sharedPhotosPage,
            shareAgainPage: Self.shareAgainPage
        )
        encoder.keyEncodingStrategy = .useDefaultKeys
        var body = ByteBuffer()
        body.writeString("const SELFIE = ")
        body.writeBytes(try encoder.encode(settings))
        body.writeString(";  // written by the server at start-up (InstallableApp)\n")
        var sourceBody = source.body
        body.writeBuffer(&sourceBody)
        self.serviceWorker = body
    }

    /// The manifest: what Chromium reads to offer "Install" and to list Selfie in the share sheet.
    struct Manifest: Encodable {
        struct Icon: Encodable {
            let src: String
            let sizes: String
            var type = "image/png"
            let purpose: String
        }

        struct ShareTarget: Encodable {
            struct Params: Encodable {
                struct Files: Encodable {
                    let name: String
                    let accept: [String]
                }
                let files: [Files]
            }
            let action: String
            let method: String
            let enctype: String
            let params: Params
        }

        /// The app's identity: stays the same whatever `start_url` becomes.
        var id = "/"
        var name = "Selfie"
        var shortName = "Selfie"
        let description: String
        let lang: String
        var startUrl = WebPath.gallery
        var scope = "/"
        var display = "standalone"
        var themeColor = InstallableApp.themeColor
        var backgroundColor = InstallableApp.backgroundColor
        let icons: [Icon]
        var shareTarget = ShareTarget(
            action: InstallableApp.shareTargetPath,
            method: "POST",
            enctype: "multipart/form-data",
            params: .init(files: [.init(name: InstallableApp.sharedFilesField, accept: InstallableApp.acceptedFiles)])
        )
    }

    /// The service worker's first line: `const SELFIE = {…}`.
    struct WorkerSettings: Encodable {
        let version: String
        let precache: [String]
        let offline: String
        let shareTarget: String
        let sharedFilesField: String
        let sharedPhotosPage: String
        let shareAgainPage: String
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(RouterPath(Self.manifestPath), use: manifest)
        router.get(RouterPath(Self.serviceWorkerPath), use: worker)
        router.get(RouterPath(Self.offlinePath), use: offline)
        router.post(RouterPath(Self.shareTargetPath), use: shareWithoutWorker)
    }

    /// In the browser's language (`Accept-Language`: a manifest is fetched without cookies).
    func manifest(_ request: Request, context: AppRequestContext) -> Response {
        let language = ViewerPreferences.browserChoices(of: request).language ?? .english
        let body = manifests[language] ?? manifests[.english]!
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/manifest+json",
                .contentLength: String(body.readableBytes),
                .cacheControl: "no-cache",
                .vary: "Accept-Language",
            ],
            body: .init(byteBuffer: body)
        )
    }

    /// The worker, never taken from a cache without asking (a new deploy must reach it), and
    /// allowed to fetch only from this site.
    func worker(_ request: Request, context: AppRequestContext) -> Response {
        let eTag = "\"\(version)\""
        var headers: HTTPFields = [
            .contentType: "text/javascript; charset=utf-8",
            .cacheControl: "no-cache",
            .eTag: eTag,
            .contentSecurityPolicy: "default-src 'self'",
        ]
        if request.headers[.ifNoneMatch] == eTag { return Response(status: .notModified, headers: headers) }
        headers[.contentLength] = String(serviceWorker.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: serviceWorker))
    }

    /// The page the worker keeps: in the language and theme the browser's cookies and
    /// `Accept-Language` say. No session is read here, so it can hold nobody's data.
    func offline(_ request: Request, context: AppRequestContext) throws -> Response {
        return try pages.renderOffline(viewer: ViewerPreferences.viewer(of: request, account: nil)).response(from: request, context: context)
    }

    /// A share that reached the server: the browser had no service worker yet (the app installed
    /// but its worker not running, or a browser that ignores it). The files are not read, let
    /// alone kept: the upload form takes photos only with its CSRF token and a session. The
    /// browser goes to the upload form, which asks to choose the photos again (after signing in,
    /// for a visitor who is not).
    func shareWithoutWorker(_ request: Request, context: AppRequestContext) -> Response {
        context.logger.info("a share reached the server without the service worker: sent to the upload form")
        return .seeOther(Self.shareAgainPage)
    }
}
