import Foundation
import HTTPTypes
import Hummingbird
import SelfieCore

/// What a share link opens, for anyone who holds it — no account needed: the album's grid (or the
/// one photo), each photo with previous and next, its images, and a ZIP of the display copies if
/// the owner allowed it. Only renditions are ever served (no original, no file name, no owner's
/// address); every image request checks the link again, so a revoked or expired link's images stop
/// at once. A password-protected link asks for its password first and keeps the proof in a cookie
/// scoped to the link's path.
struct SharedPagesController {
    let sharing: ShareLinkService
    let pages: PageRenderer
    let cookies: BrowserCookies
    let csrf: CSRFTokens
    let publicURL: String
    static let pageSize = 24

    /// The routes, in a group of their own whose every answer — errors and CSRF refusals too — is
    /// private. (A path no route takes is the router's plain 404, with no link behind it.)
    func addRoutes(to web: RouterGroup<WebRequestContext>) {
        let group = web.group()
            .add(middleware: SharedPagePrivacyMiddleware())
            .add(middleware: WebErrorMiddleware<WebRequestContext>(pages: pages))
            .add(middleware: CSRFMiddleware(tokens: csrf, staleFormsSignIn: false))
        group.get(WebPath.sharedPattern, use: show)
        group.post(WebPath.sharedPattern, use: unlock)
        group.get(WebPath.sharedPhotoPattern, use: showPhoto)
        group.get(WebPath.sharedImagePattern, use: image)
        group.get(WebPath.sharedDownloadPattern, use: download)
    }

    /// The link of the path's token, and whether this browser has unlocked it.
    private func open(_ request: Request, context: WebRequestContext) async throws -> (link: ShareLink, token: String, unlocked: Bool) {
        let token = try context.parameters.require("token")
        let link = try await sharing.open(token: token)
        let proof = request.cookies[BrowserCookies.shareUnlockName]?.value
        return (link, token, sharing.isUnlocked(link, proof: proof))
    }

    struct SharedPage: Sendable {
        let title: String
        let description: String
        let isAlbum: Bool
        let months: [MonthGroup]
        let photo: PhotoCard?
        let olderPageURL: String?
        let downloadURL: String?
        let preview: Preview
    }

    /// What a messenger shows for the link: its title and an 800 px thumbnail (neither for a
    /// link with a password, whose title may be private too).
    struct Preview: Sendable {
        let title: String
        let imageURL: String?
        let url: String
    }

    func show(_ request: Request, context: WebRequestContext) async throws -> Response {
        let (link, token, unlocked) = try await open(request, context: context)
        guard unlocked else { return try passwordPage(token: token, error: nil, status: .unauthorized, request: request, context: context) }
        let after = try request.queryPosition("after")
        let (found, hasMore) = try await sharing.page(of: link, after: after, size: Self.pageSize)
        // A view is a GET of the first page; a HEAD (a link checker, a chat app's probe) is not one.
        if after == nil, request.method == .get { sharing.recordView(of: link) }
        let isAlbum = link.albumID != nil
        let words = pages.words(for: context)
        let title = link.targetTitle.isEmpty ? words(isAlbum ? "shared-album" : "shared-photo") : link.targetTitle
        let card = { (photo: Photo) in self.card(photo, token: token, words: words) }
        let cover = found.first
        let page = SharedPage(
            title: title,
            description: "",
            isAlbum: isAlbum,
            months: isAlbum ? MonthGroup.grouping(found, words: pages.words(for: context), card: card) : [],
            photo: isAlbum ? nil : cover.map(card),
            olderPageURL: hasMore ? found.last.map { WebPath.shared(token, after: $0.position) } : nil,
            downloadURL: link.allowDownload ? WebPath.sharedDownload(token) : nil,
            preview: preview(of: link, title: title, cover: cover, token: token, words: words)
        )
        return try pages.render(.shared, title: .verbatim(title), page: page, context: context).response(from: request, context: context)
    }

    private func preview(of link: ShareLink, title: String, cover: Photo?, token: String, words: Words) -> Preview {
        let url = publicURL + WebPath.shared(token)
        guard !link.hasPassword else { return Preview(title: words("shared-preview-title"), imageURL: nil, url: url) }
        let image = cover.flatMap { $0.rendition(.thumbnail800) != nil ? publicURL + WebPath.sharedImage(token, $0.publicID, .thumbnail800) : nil }
        return Preview(title: title, imageURL: image, url: url)
    }

    private func card(_ photo: Photo, token: String, words: Words) -> PhotoCard {
        PhotoCard(photo, href: WebPath.sharedPhoto(token, photo.publicID), words: words) { WebPath.sharedImage(token, photo.publicID, $0.name) }
    }

    struct PasswordPage: Sendable {
        let action: String
        let error: String?
    }

    private func passwordPage(token: String, error: String?, status: HTTPResponse.Status, request: Request, context: WebRequestContext) throws
        -> Response
    {
        let page = PasswordPage(action: WebPath.shared(token), error: error)
        return try pages.render(.sharedPassword, title: "title-shared-password", page: page, context: context, status: status)
            .response(from: request, context: context)
    }

    struct PasswordForm: Decodable {
        let password: String
    }

    /// The password form's target: right, a cookie for this link's path and back to it; wrong,
    /// the form again with the error; too many tries, 429.
    func unlock(_ request: Request, context: WebRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let link = try await sharing.open(token: token)
        let form = try await URLEncodedFormDecoder().decode(PasswordForm.self, from: request, context: context)
        do {
            let proof = try await sharing.unlock(link, password: form.password, client: context.remoteAddress, origin: context.origin(request))
            var response = Response.seeOther(WebPath.shared(token))
            response.setCookie(cookies.shareUnlock(proof, token: token, expiresAt: link.expiresAt))
            return response
        } catch ShareLinkError.wrongPassword {
            let error = pages.words(for: context)("shared-wrong-password")
            return try passwordPage(token: token, error: error, status: .unauthorized, request: request, context: context)
        }
    }

    struct SharedPhotoPage: Sendable {
        /// "Back to Holidays", or to "the album" when it has no title.
        let backLabel: String
        let photo: PhotoCard
        let newerURL: String?
        let olderURL: String?
        let backURL: String
        let downloadURL: String?
    }

    func showPhoto(_ request: Request, context: WebRequestContext) async throws -> Response {
        let (link, token, unlocked) = try await open(request, context: context)
        guard unlocked else { return try passwordPage(token: token, error: nil, status: .unauthorized, request: request, context: context) }
        let photo = try await sharing.photo(try context.parameters.require("photo"), in: link)
        let (newer, older) = try await sharing.neighbours(of: photo, in: link)
        let words = pages.words(for: context)
        let page = SharedPhotoPage(
            backLabel: link.targetTitle.isEmpty ? words("shared-back-to-album") : words("photo-back-album", ["album": .text(link.targetTitle)]),
            photo: card(photo, token: token, words: words),
            newerURL: newer.map { WebPath.sharedPhoto(token, $0) },
            olderURL: older.map { WebPath.sharedPhoto(token, $0) },
            backURL: WebPath.shared(token),
            downloadURL: link.allowDownload ? WebPath.sharedDownload(token) : nil
        )
        let title = photo.title.isEmpty ? words("shared-photo") : photo.title
        return try pages.render(.sharedPhoto, title: .verbatim(title), page: page, context: context).response(from: request, context: context)
    }

    /// One rendition of a photo of the link — thumbnails or the display copy, never the original.
    /// Checked against the link on every request; browsers revalidate (`no-cache`), so a revoked
    /// link's images stop at the next view.
    func image(_ request: Request, context: WebRequestContext) async throws -> Response {
        let (link, _, unlocked) = try await open(request, context: context)
        guard unlocked else { throw ShareLinkError.passwordRequired }
        guard let name = RenditionName(rawValue: try context.parameters.require("rendition")) else { throw PhotoError.notFound }
        let (rendition, open) = try await sharing.image(name, of: try context.parameters.require("photo"), in: link)
        let etag = "\"\(rendition.blobKey.value)\""
        var response: Response
        if request.headers[.ifNoneMatch] == etag {
            response = Response(status: .notModified)
        } else {
            let content = try await open()
            response = Response(
                status: .ok,
                headers: [.contentType: content.contentType, .contentLength: String(content.totalSize), .contentDisposition: "inline"],
                body: ResponseBody(content.body, contentLength: content.totalSize)
            )
        }
        response.headers[.eTag] = etag
        response.headers[.cacheControl] = "private, no-cache"
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    /// The display copies as one ZIP, when the owner allowed downloading.
    func download(_ request: Request, context: WebRequestContext) async throws -> Response {
        let (link, _, unlocked) = try await open(request, context: context)
        guard unlocked else { throw ShareLinkError.passwordRequired }
        let name = link.targetTitle.isEmpty ? "photos" : "shared-photos"
        let archive = try sharing.archive(of: link, client: context.remoteAddress, logger: context.logger)
        return try await Response.download(for: request, filename: "\(name).zip", contentType: "application/zip", make: archive)
    }
}

/// Every answer under a share link — its pages, images, errors — is kept out of search engines
/// and sends no referrer (which would carry the token to wherever a visitor goes next).
struct SharedPagePrivacyMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xRobotsTag] = "noindex, nofollow"
        response.headers[.referrerPolicy] = "no-referrer"
        return response
    }
}

extension HTTPField.Name {
    static let xRobotsTag = Self("X-Robots-Tag")!
}

// Looked up by name rather than by reflection (see `PageRenderer.Page`): every name a card does not
// hold is looked for here too.
extension SharedPagesController.SharedPage: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "title": title.templateValue
        case "description": description.templateValue
        case "isAlbum": isAlbum.templateValue
        case "months": months.templateValue
        case "photo": photo.templateValue
        case "olderPageURL": olderPageURL.templateValue
        case "downloadURL": downloadURL.templateValue
        case "preview": preview.templateValue
        default: nil
        }
    }
}

extension SharedPagesController.Preview: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "title": title.templateValue
        case "imageURL": imageURL.templateValue
        case "url": url.templateValue
        default: nil
        }
    }
}
