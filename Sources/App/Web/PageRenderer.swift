import Foundation
import Hummingbird
import Mustache
import SelfieCore

/// The page templates, by name: a page names its template by case, so a typo does not compile,
/// and start-up fails if a file is missing.
enum Template: String, CaseIterable, Sendable {
    case signUp = "signup"
    case signIn = "signin"
    case gallery
    case upload
    case photo
    case photoDelete = "photo-delete"
    /// "Delete these N photos?" for the selection.
    case photosDelete = "photos-delete"
    case albums
    /// Deleted photos, to restore or delete for good.
    case trash
    case album
    case albumDelete = "album-delete"
    case links
    /// A new link's address, shown once.
    case linkCreated = "link-created"
    /// What a share link opens: the album's grid or the photo, and a photo of the album.
    case shared
    case sharedPhoto = "shared-photo"
    case sharedPassword = "shared-password"
    case account
    case error
    /// A heading, a few sentences, maybe one button: "check your mail", "confirm this address",
    /// "this link has expired".
    case message
    case forgotPassword = "forgot-password"
    case resetPassword = "reset-password"
    /// The code step of a sign-in with two-step verification.
    case signInCode = "signin-code"
    case twoFactorSetup = "two-factor-setup"
    case recoveryCodes = "recovery-codes"
    case confirmItsYou = "confirm"
    case adminDashboard = "admin-dashboard"
    case adminUsers = "admin-users"
    case adminUser = "admin-user"
    case adminConfirm = "admin-confirm"
    case adminAPIKeys = "admin-api-keys"
    case adminAudit = "admin-audit"
    case adminMail = "admin-mail"
    case adminIntegrity = "admin-integrity"
    /// What the service worker shows when a page cannot be reached: no layout, nobody's data.
    case offline
}

/// Renders `Templates/*.mustache` pages inside the shared layout. Mustache escapes every
/// `{{value}}`; templates never use the raw `{{{ }}}` form for anything a user typed.
struct PageRenderer: Sendable {
    /// The templates of each language, its words written in (`TranslatedTemplates`).
    private let libraries: [Language: MustacheLibrary]
    /// The static files the layout links to, at their fingerprinted URLs.
    let assets: AssetURLs
    let translations: Translations

    init(templatesDirectory: String, translations: Translations, assets: AssetURLs = .plain) async throws {
        self.assets = assets
        self.translations = translations
        MustacheContentTypes.register(ScalarHTMLEscaping(), named: ScalarHTMLEscaping.name)
        let directory = URL(fileURLWithPath: templatesDirectory)
        var sources: [String: String] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: templatesDirectory) where file.hasSuffix(".mustache") {
            sources[String(file.dropLast(".mustache".count))] = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        }
        let missing = Template.allCases.filter { sources[$0.rawValue] == nil }
        guard missing.isEmpty else { throw TemplateMissing(names: missing.map(\.rawValue)) }
        var libraries: [Language: MustacheLibrary] = [:]
        for language in Language.allCases {
            var library = MustacheLibrary()
            for (name, source) in sources {
                let translated = try TranslatedTemplates.translate(source, named: name, into: language, with: translations)
                // Every template escapes with ScalarHTMLEscaping; no template can forget to ask for it.
                library.register(try MustacheTemplate(string: "{{% CONTENT_TYPE: \(ScalarHTMLEscaping.name) }}" + translated), named: name)
            }
            libraries[language] = library
        }
        self.libraries = libraries
    }

    /// Renders `template` in `language` (the templates of every language hold the same names).
    private func render(_ object: Any, _ template: Template, in language: Language) -> String? {
        libraries[language]?.render(object, withTemplate: template.rawValue)
    }

    /// What every page template sees: the layout's data plus `page`, the template's own.
    struct Page<Content>: Sendable where Content: Sendable {
        let title: String
        let assets: AssetURLs
        let user: UserView?
        let csrfToken: String
        let notice: String?
        let page: Content
        let chrome: Chrome
    }

    /// What the layout itself needs of the viewer: `<html lang>`, the theme, the footer's picker.
    struct Chrome: Sendable {
        let language: String
        let theme: String
        let languages: [Choice]
        let themes: [Choice]
        /// The page scripts' words, as JSON escaped for `<html data-words>` (the layout's one raw tag).
        let scriptWordsAttribute: String

        struct Choice: Sendable {
            let value: String
            let label: String
            let selected: Bool
        }

        init(viewer: Viewer, translations: Translations) {
            language = viewer.language.rawValue
            theme = viewer.theme.rawValue
            scriptWordsAttribute = translations.scriptWordsAttribute(viewer.language)
            languages = Language.allCases.map { Choice(value: $0.rawValue, label: $0.nativeName, selected: $0 == viewer.language) }
            themes = Theme.allCases.map {
                Choice(value: $0.rawValue, label: translations.format("theme-\($0.rawValue)", in: viewer.language), selected: $0 == viewer.theme)
            }
        }
    }

    struct UserView: Sendable {
        let fullName: String
        let email: String
        let isAdmin: Bool
        /// The account has an address it has not confirmed yet: every page shows a banner.
        let awaitingConfirmation: Bool

        init(_ user: User) {
            self.fullName = user.fullName
            self.email = user.handle
            self.isAdmin = user.role == .admin
            self.awaitingConfirmation = user.email != nil && !user.emailVerified
        }
    }

    func render<Content: Sendable>(
        _ template: Template,
        title: LocalizedText,
        page: Content,
        context: some PageContext,
        notice: LocalizedText? = nil,
        status: HTTPResponse.Status = .ok
    ) throws -> HTML {
        let user = context.signedInUser.map(UserView.init)
        let language = context.viewer.language
        let object = Page(
            title: translations.text(title, in: language),
            assets: assets,
            user: user,
            csrfToken: context.csrfToken,
            notice: notice.map { translations.text($0, in: language) },
            page: page,
            chrome: Chrome(viewer: context.viewer, translations: translations)
        )
        guard let body = render(object, template, in: language) else {
            throw TemplateMissing(names: [template.rawValue])
        }
        return HTML(body: body, status: status)
    }

    /// An error page, with the signed-in user in the header when there is one.
    /// A message page (`Templates/message.mustache`), titled by its heading.
    func renderMessage(_ page: MessagePage, context: some PageContext, status: HTTPResponse.Status = .ok) throws -> HTML {
        try render(.message, title: .verbatim(page.heading), page: page, context: context, status: status)
    }

    /// The offline page (`Templates/offline.mustache`) as `viewer` reads it: signed out, no CSRF
    /// token, whoever asks, since the service worker keeps it in the browser.
    func renderOffline(viewer: Viewer) throws -> HTML {
        let page = Page(
            title: translations.format("title-offline", in: viewer.language),
            assets: assets,
            user: nil,
            csrfToken: "",
            notice: nil,
            page: "",
            chrome: Chrome(viewer: viewer, translations: translations)
        )
        guard let body = render(page, .offline, in: viewer.language) else {
            throw TemplateMissing(names: [Template.offline.rawValue])
        }
        return HTML(body: body)
    }

    func renderError(status: HTTPResponse.Status, message: String, viewer: Viewer = .default, user: User? = nil) -> HTML {
        struct ErrorPage: Sendable {
            let code: Int
            let heading: String
            let message: String
        }
        let heading = translations.catalogue(viewer.language).format("status-\(status.code)") ?? status.reasonPhrase
        let page = Page(
            title: heading,
            assets: assets,
            user: user.map(UserView.init),
            csrfToken: "",
            notice: nil,
            page: ErrorPage(code: status.code, heading: heading, message: message),
            chrome: Chrome(viewer: viewer, translations: translations)
        )
        let body =
            render(page, .error, in: viewer.language)
            ?? "<!doctype html><title>\(status.code)</title><p>\(status.code) \(status.reasonPhrase)</p>"
        return HTML(body: body, status: status)
    }
}

struct TemplateMissing: Error, CustomStringConvertible {
    let names: [String]
    var description: String { "templates missing from the Templates folder: \(names.joined(separator: ", "))" }
}

// Mustache finds a value by name: through `MustacheParent` when the type has it, else by reflection
// (a `Mirror` of the whole value for every name looked up, at every level of the context stack),
// which took more than half of the gallery's CPU. The types every page renders (and the gallery's)
// answer by name; `ByteLevelEquivalenceTests.mustacheViews` checks each answers every stored property as `Mirror` would.

extension PageRenderer.Page: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "assets": assets
        case "user": user
        case "csrfToken": csrfToken
        case "notice": notice
        case "page": page
        case "chrome": chrome
        default: nil
        }
    }
}

extension PageRenderer.Chrome: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "language": language
        case "theme": theme
        case "languages": languages
        case "themes": themes
        case "scriptWordsAttribute": scriptWordsAttribute
        default: nil
        }
    }
}

extension PageRenderer.Chrome.Choice: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "value": value
        case "label": label
        case "selected": selected
        default: nil
        }
    }
}

extension PageRenderer.UserView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "fullName": fullName
        case "email": email
        case "isAdmin": isAdmin
        case "awaitingConfirmation": awaitingConfirmation
        default: nil
        }
    }
}

extension AssetURLs: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "stylesheet": stylesheet
        case "favicon": favicon
        case "uploadScript": uploadScript
        case "tusScript": tusScript
        case "passkeysScript": passkeysScript
        case "selectionScript": selectionScript
        case "viewerScript": viewerScript
        case "shareScript": shareScript
        case "preferencesScript": preferencesScript
        case "installScript": installScript
        case "sharedPhotosScript": sharedPhotosScript
        default: nil
        }
    }
}

/// HTML escaping per Unicode scalar. swift-mustache's built-in escaper compares whole Characters,
/// so `"` followed by a combining mark (one Character) slipped through unescaped and could end an
/// attribute value; here every `<`, `>`, `&`, `"` and `'` scalar is escaped wherever it stands.
struct ScalarHTMLEscaping: MustacheContentType {
    static let name = "SELFIE_HTML"

    /// Works on the UTF-8 bytes: the five characters are ASCII, and an ASCII byte is always a
    /// scalar of its own in UTF-8, so this escapes exactly the scalars a scalar-wise pass would.
    /// Text with nothing to escape (most of it: names, dates, URLs without `&`) is returned as is.
    func escapeText(_ text: String) -> String {
        guard text.utf8.contains(where: Self.isSpecial) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"): true
        default: false
        }
    }
}
