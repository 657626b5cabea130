import Foundation
import SelfieCore

/// Selfie's mail in words: `Templates/mail/<kind>.text.mustache` and `.html.mustache` for every
/// kind of notice, read at start-up (a missing one stops it). Every word comes from
/// `Locales/<language>/mail.ftl` in the recipient's language (the account's; English when it has
/// none). Values are escaped in the HTML part; the text part is plain text.
struct MailTemplates: MailComposer {
    let text: TemplateSet
    let html: TemplateSet
    let publicURL: String
    let translations: Translations

    init(directory: String, translations: Translations, publicURL: URL) throws {
        self.translations = translations
        var textSources: [String: String] = [:]
        var htmlSources: [String: String] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
            let source = try String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)
            if file.hasSuffix(".text.mustache") {
                textSources[String(file.dropLast(".text.mustache".count))] = source
            } else if file.hasSuffix(".html.mustache") {
                htmlSources[String(file.dropLast(".mustache".count))] = source  // the layout is a partial, "layout.html"
            }
        }
        let text = try TemplateSet(sources: textSources, escaping: .none)
        let html = try TemplateSet(sources: htmlSources, escaping: .html)
        let missing = MailNotice.Kind.allCases.filter { !text.contains($0.rawValue) || !html.contains("\($0.rawValue).html") }
        guard missing.isEmpty else { throw TemplateMissing(names: missing.map { "mail/\($0.rawValue)" }) }
        self.text = text
        self.html = html
        self.publicURL = publicURL.absoluteString
    }

    /// What every mail template can use.
    struct Values: Sendable {
        let subject: String
        /// "Hello Ada," — or the language's greeting without a name.
        let greeting: String
        /// The message's own link (confirm, reset), if it has one: its line in the text part, its button.
        let link: String?
        /// What changed, in a sentence (`securityChange`).
        let change: String?
        /// The recipient's language: `<html lang>`.
        let language: String
        /// This mail's messages with its values in place (`MailMessages`).
        let t: MailMessages
    }

    func compose(_ notice: MailNotice, to recipient: MailRecipient) throws -> ComposedMail {
        let token = notice.params["token"] ?? ""
        let language = recipient.language.flatMap(Language.init(rawValue:)) ?? .english
        let link: String? = switch notice.kind {
        case .verifyEmail: publicURL + WebPath.verifyEmail(token: token)
        case .passwordReset: publicURL + WebPath.resetPassword(token: token)
        case .confirmNewEmail: publicURL + WebPath.confirmEmailChange(token: token)
        default: nil
        }
        // Every value a sentence of any mail may hold; a message uses the ones it names.
        var arguments = [
            "recipient": recipient.address,
            "forgotLink": publicURL + WebPath.forgotPassword,
            "signInLink": publicURL + WebPath.signIn,
            "accountLink": publicURL + WebPath.account,
            "sessionsLink": publicURL + WebPath.account + "#sessions",
            "newEmail": notice.params["newEmail"] ?? "",
            "provider": notice.params["providerName"] ?? "",
            "network": notice.params["network"] ?? "",
            "device": device(notice.params["userAgent"] ?? "", in: language),
        ]
        arguments["link"] = link
        let greeting = switch recipient.name {
        case let name? where !name.isEmpty: translations.format("mail-greeting", ["name": .text(name)], in: language)
        default: translations.format("mail-greeting-no-name", in: language)
        }
        let values = Values(
            subject: subject(of: notice, in: language),
            greeting: greeting,
            link: link,
            change: sentence(of: notice, in: language),
            language: language.rawValue,
            t: MailMessages(translations: translations, language: language, arguments: arguments)
        )
        guard let text = text.render(values, template: notice.kind.rawValue),
            let html = html.render(values, template: "\(notice.kind.rawValue).html")
        else { throw TemplateMissing(names: ["mail/\(notice.kind.rawValue)"]) }
        return ComposedMail(subject: values.subject, text: text, html: html)
    }

    /// `mail-<kind>-subject`; a security change has one per change (`mail-security-<change>-subject`).
    func subject(of notice: MailNotice, in language: Language) -> String {
        guard notice.kind == .securityChange else {
            return translations.format("mail-\(Self.key(notice.kind.rawValue))-subject", ["provider": .text(notice.params["providerName"] ?? "")], in: language)
        }
        return translations.format("\(Self.securityKey(of: notice))-subject", in: language)
    }

    /// The sentence of a `securityChange` notice (`mail-security-<change>`), naming the passkey
    /// or provider it is about.
    func sentence(of notice: MailNotice, in language: Language) -> String? {
        guard notice.kind == .securityChange else { return nil }
        return translations.format(Self.securityKey(of: notice), ["name": .text(notice.params["name"] ?? "")], in: language)
    }

    private static func securityKey(of notice: MailNotice) -> String {
        let change = notice.params["change"].flatMap(MailNotice.SecurityChange.init(rawValue:))
        return "mail-security-\(key(change?.rawValue ?? "unknown"))"
    }

    /// "password_reset" → "password-reset", as catalogue keys are written.
    private static func key(_ rawValue: String) -> String { rawValue.replacingOccurrences(of: "_", with: "-") }

    /// The browser or app of a new sign-in in the recipient's words. Like `UserAgentSummary.describe`
    /// ("Chrome on Linux"), whose product names stay; the words around them ("on", "Unknown
    /// browser") are the language's, formed to stand where `mail-new-sign-in-intro` puts them.
    func device(_ userAgent: String, in language: Language) -> String {
        guard !userAgent.isEmpty else { return translations.format("mail-device-unknown", in: language) }
        let family = UserAgentFamily(userAgent)
        return switch (family.browser, family.system) {
        case let (browser?, system?): translations.format("mail-device-browser-on-system", ["browser": .text(browser), "system": .text(system)], in: language)
        case let (browser?, nil): browser
        case let (nil, system?): translations.format("mail-device-system-only", ["system": .text(system)], in: language)
        default: String(userAgent.prefix(60))
        }
    }
}

/// One mail's messages, with its values in place, as templates read them:
///
/// - `{{t.mail-…}}`: a message as plain text; the HTML part escapes it, values included, like any value.
/// - `{{{t.mail-…-html}}}`: a message of the HTML part with markup — `<strong>…</strong>` and
///   `<a href="{ $someLink }">…</a>`, nothing else. Its words and values are escaped here and only
///   those tags are put back, so neither a translation nor a value can add markup.
///
/// A key missing in the language falls back to English, then shows as the key (`MailTemplateTests`
/// keeps that from shipping).
struct MailMessages: Sendable, TemplateValues {
    let translations: Translations
    let language: Language
    let arguments: [String: String]

    func value(named key: String) -> TemplateValue? {
        .text(key.hasSuffix("-html") ? html(key) : translations.format(key, arguments.mapValues(MessageArgument.text), in: language))
    }

    func html(_ key: String) -> String {
        // Each value goes in as a marker, so the message's own text can be escaped apart from them.
        let (open, close): (Character, Character) = ("\u{1}", "\u{2}")
        let marked = Dictionary(uniqueKeysWithValues: arguments.keys.map { ($0, MessageArgument.text("\(open)\($0)\(close)")) })
        let escape = ScalarHTMLEscaping()
        var html = escape.escapeText(translations.format(key, marked, in: language))
        for tag in ["strong", "/strong", "/a"] {
            html = html.replacingOccurrences(of: "&lt;\(tag)&gt;", with: "<\(tag)>")
        }
        html = html.replacingOccurrences(
            of: "&lt;a href=&quot;\(open)([A-Za-z]+)\(close)&quot;&gt;", with: "<a href=\"\(open)$1\(close)\">", options: .regularExpression
        )
        // The markers become their values, escaped, in one pass (a value is never read again).
        var out = ""
        var pieces = html.split(separator: open, omittingEmptySubsequences: false)[...]
        out += pieces.removeFirst()
        for piece in pieces {
            guard let end = piece.firstIndex(of: close) else { out += piece; continue }
            out += escape.escapeText(arguments[String(piece[..<end])] ?? "")
            out += piece[piece.index(after: end)...]
        }
        return out
    }
}
