import Foundation
import Hummingbird
import SelfieCore

/// The share form on an album's or a photo's page: how long the link lives (a week unless
/// chosen; "never" only when picked), an optional password, whether its photos may be downloaded.
struct ShareForm: Sendable {
    struct Expiry: Sendable {
        let value: String
        let label: String
        let isDefault: Bool
    }

    let album: String?
    let photo: String?
    let expiries: [Expiry]
    let passwordMinimum = PasswordPolicy.minimumCharacters

    init(album: String, words: Words) {
        self.album = album
        self.photo = nil
        self.expiries = Self.expiries(words)
    }

    init(photo: String, words: Words) {
        self.album = nil
        self.photo = photo
        self.expiries = Self.expiries(words)
    }

    private static func expiries(_ words: Words) -> [Expiry] {
        [1, 7, 30].map { Expiry(value: String($0), label: words("share-days", ["count": .number($0)]), isDefault: $0 == 7) }
            + [Expiry(value: "never", label: words("share-never"), isDefault: false)]
    }
}

/// One of the owner's links as "my links" and the album page list it.
struct LinkRow: Sendable {
    let id: String
    let what: String
    let whatURL: String
    let isAlbum: Bool
    /// Its photo is in the trash: the link shows nothing, and leads the owner to the trash.
    let inTrash: Bool
    let expires: String
    let hasExpired: Bool
    let hasPassword: Bool
    let allowsDownload: Bool
    let views: Int64
    let lastView: String
    let revokeURL: String

    init(_ link: ShareLink, now: Date, words: Words) {
        id = link.publicID
        switch link.target {
        case .album(let album):
            isAlbum = true
            what = link.targetTitle
            whatURL = WebPath.album(album)
        case .photo(let photo):
            isAlbum = false
            what = link.targetTitle.isEmpty ? words("links-a-photo") : link.targetTitle
            whatURL = link.targetTrashed ? WebPath.trash : WebPath.photo(photo)
        }
        inTrash = link.targetTrashed
        let expired = link.hasExpired(at: now)
        hasExpired = expired
        expires = link.expiresAt.map { expired ? words("links-expired-on", ["date": .text(words.time($0))]) : words.time($0) } ?? words("links-never")
        hasPassword = link.hasPassword
        allowsDownload = link.allowDownload
        views = link.views
        lastView = link.lastViewedAt.map(words.time) ?? words("links-not-yet")
        revokeURL = WebPath.revokeLink(link.publicID)
    }
}

/// The owner's side of sharing: making a link (its address shown once), "my links", revoking one.
struct ShareLinkPagesController {
    let sharing: ShareLinkService
    let pages: PageRenderer
    let protection: BruteForceProtection

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(RouterPath(WebPath.links), use: list)
        // A link's password is hashed with bcrypt: limited like other password work.
        group.limited(.signIn, by: protection).post(RouterPath(WebPath.links), use: create)
        group.post(WebPath.revokeLinkPattern, use: revoke)
    }

    struct LinksPage: Sendable {
        let links: [LinkRow]
        let hasLinks: Bool
    }

    func list(_ request: Request, context: SignedInContext) async throws -> Response {
        let links = try await sharing.links(for: context.user)
        let now = sharing.now()
        let page = LinksPage(links: links.map { LinkRow($0, now: now, words: pages.words(for: context)) }, hasLinks: !links.isEmpty)
        return try pages.render(.links, title: "title-links", page: page, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    struct CreateForm: Decodable {
        let album: String?
        let photo: String?
        let expires: String?
        let password: String?
        let allowDownload: String?

        enum CodingKeys: String, CodingKey {
            case album, photo, expires, password
            case allowDownload = "allow_download"
        }
    }

    struct CreatedPage: Sendable {
        let url: String
        let what: String
        let expires: String
        let hasPassword: Bool
        let allowsDownload: Bool
        let backURL: String
    }

    /// Makes the link and shows its address: the only time it can be (only its hash is kept).
    func create(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(CreateForm.self, from: request, context: context)
        let target = try ShareTarget(album: form.album, photo: form.photo)
        let expiry: ShareExpiry
        switch form.expires {
        case nil, "": expiry = .default
        case "never": expiry = .never
        case let days?:
            guard let number = Int(days) else { throw ShareLinkError.unknownExpiry }
            expiry = try ShareExpiry(days: number)
        }
        let made = try await sharing.create(
            for: context.user,
            target: target,
            expiry: expiry,
            password: form.password,
            allowDownload: form.allowDownload == "on",
            origin: context.origin(request)
        )
        let row = LinkRow(made.link, now: sharing.now(), words: pages.words(for: context))
        let page = CreatedPage(
            url: made.url,
            what: row.what,
            expires: row.expires,
            hasPassword: made.link.hasPassword,
            allowsDownload: made.link.allowDownload,
            backURL: row.whatURL
        )
        return try pages.render(.linkCreated, title: "title-link-created", page: page, context: context, status: .created)
            .response(from: request, context: context)
    }

    func revoke(_ request: Request, context: SignedInContext) async throws -> Response {
        try await sharing.revoke(try context.parameters.require("id"), of: context.user, origin: context.origin(request))
        // Back to the page the button was on (the album's, or "my links"), never off the site.
        let back = SafeRedirect.localPath(request.uri.queryParameters["back"].map(String.init), default: WebPath.links)
        return .seeOther("\(back)\(back.contains("?") ? "&" : "?")notice=\(Notice.linkRevoked.rawValue)")
    }
}
