import Foundation
import Hummingbird
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
    private let templates: [Language: TemplateSet]
    /// The static files the layout links to, at their fingerprinted URLs.
    let assets: AssetURLs
    let translations: Translations

    init(templatesDirectory: String, translations: Translations, assets: AssetURLs = .plain) async throws {
        self.assets = assets
        self.translations = translations
        let directory = URL(fileURLWithPath: templatesDirectory)
        var sources: [String: String] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: templatesDirectory) where file.hasSuffix(".mustache") {
            sources[String(file.dropLast(".mustache".count))] = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        }
        let missing = Template.allCases.filter { sources[$0.rawValue] == nil }
        guard missing.isEmpty else { throw TemplateMissing(names: missing.map(\.rawValue)) }
        var templates: [Language: TemplateSet] = [:]
        for language in Language.allCases {
            var translated: [String: String] = [:]
            for (name, source) in sources {
                translated[name] = try TranslatedTemplates.translate(source, named: name, into: language, with: translations)
            }
            // Every template escapes values for HTML; no template can forget to ask for it.
            templates[language] = try TemplateSet(sources: translated, escaping: .html)
        }
        self.templates = templates
    }

    /// Renders `template` in `language` (the templates of every language hold the same names).
    private func render(_ object: Any, _ template: Template, in language: Language) -> [UInt8]? {
        templates[language]?.renderUTF8(object, template: template.rawValue)
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
            ?? Array("<!doctype html><title>\(status.code)</title><p>\(status.code) \(status.reasonPhrase)</p>".utf8)
        return HTML(body: body, status: status)
    }
}

struct TemplateMissing: Error, CustomStringConvertible {
    let names: [String]
    var description: String { "templates missing from the Templates folder: \(names.joined(separator: ", "))" }
}

// A template finds a value by name: through `TemplateValues` when the type has it, each value
// saying what it is (`templateValue`, no cast), else by reflection (a `Mirror` of the whole value
// for every name looked up, at every level of the stack), which took more than half of the
// gallery's CPU. The types every page renders (and the gallery's) answer by name;
// `ByteLevelEquivalenceTests.templateViews` checks each answers every stored property as `Mirror`
// would.

extension PageRenderer.Page: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "title": title.templateValue
        case "assets": assets.templateValue
        case "user": user.templateValue
        case "csrfToken": csrfToken.templateValue
        case "notice": notice.templateValue
        case "page": TemplateValue(any: page)
        case "chrome": chrome.templateValue
        default: nil
        }
    }
}

extension PageRenderer.Chrome: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "language": language.templateValue
        case "theme": theme.templateValue
        case "languages": languages.templateValue
        case "themes": themes.templateValue
        case "scriptWordsAttribute": scriptWordsAttribute.templateValue
        default: nil
        }
    }
}

extension PageRenderer.Chrome.Choice: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "value": value.templateValue
        case "label": label.templateValue
        case "selected": selected.templateValue
        default: nil
        }
    }
}

extension PageRenderer.UserView: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "fullName": fullName.templateValue
        case "email": email.templateValue
        case "isAdmin": isAdmin.templateValue
        case "awaitingConfirmation": awaitingConfirmation.templateValue
        default: nil
        }
    }
}

extension AssetURLs: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "stylesheet": stylesheet.templateValue
        case "favicon": favicon.templateValue
        case "uploadScript": uploadScript.templateValue
        case "tusScript": tusScript.templateValue
        case "passkeysScript": passkeysScript.templateValue
        case "selectionScript": selectionScript.templateValue
        case "viewerScript": viewerScript.templateValue
        case "shareScript": shareScript.templateValue
        case "preferencesScript": preferencesScript.templateValue
        case "installScript": installScript.templateValue
        case "formsScript": formsScript.templateValue
        case "sharedPhotosScript": sharedPhotosScript.templateValue
        default: nil
        }
    }
}
