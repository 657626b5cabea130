@testable import App
@testable import SelfieCore
import Foundation
import Testing

/// Mail goes out in the recipient's language: the account's (`users.language`, taken from the
/// browser at sign-up or on its first signed-in page), English when it has none — never the
/// language of whoever caused the mail (someone asking for a reset or signing up with a taken
/// address may not be the account's owner).
@Suite("Mail in the recipient's language")
struct MailLanguageTests {
    static let translations = try! Translations(directory: "\(repositoryRoot)/Locales")

    @Test("a German account's password-reset mail, asked for through the form by a signed-out English visitor, is German through and through")
    func germanPasswordReset() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("jana")
            let german = app.browser()
            german.setCookie(ViewerPreferences.languageCookie, "de")
            #expect(try await german.submitSignUp(name: "Jana Müller", email: email).status == .ok)
            let stored: String = try await app.scalar("SELECT coalesce(language, '') FROM users WHERE email = \(email)")
            #expect(stored == "de", "the sign-up page's language is kept on the account")
            try await app.confirmAddress(of: email)  // named in its mail once confirmed

            let stranger = app.browser()  // no cookie, no Accept-Language: an English page
            try await stranger.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let words = Self.translations
            let mail = try await MailSink.waitForMessage(to: email, subject: words.format("mail-password-reset-subject", in: .german))
            #expect(mail.subject == "Setze dein Selfie-Passwort zurück")
            #expect(Self.lines(mail.text).hasPrefix("Hallo Jana Müller,\n\njemand – hoffentlich du – hat darum gebeten"))
            #expect(mail.text.contains(words.format("mail-password-reset-expiry", in: .german)))
            #expect(mail.html.contains(#"<html lang="de">"#))
            #expect(mail.html.contains(">Neues Passwort wählen</a>"))
            #expect(mail.html.contains("Diese Nachricht hat Selfie an \(email) geschickt."))
            #expect(Self.englishSentences(in: mail.text + mail.html) == [])
            // The link in it still works.
            #expect(try await stranger.get(try mail.link(to: "/password/reset")).status == .ok)
        }
    }

    @Test("a Spanish account gets its confirmation and the notice of someone signing up with its address in Spanish")
    func spanishSignUpAttempt() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("lucia")
            let spanish = app.browser()
            spanish.setCookie(ViewerPreferences.languageCookie, "es")
            try await spanish.submitSignUp(name: "Lucía", email: email)
            let words = Self.translations
            let confirm = try await MailSink.waitForMessage(to: email, subject: words.format("mail-verify-email-subject", in: .spanish))
            // Not named: the address is not confirmed yet.
            #expect(Self.lines(confirm.text).hasPrefix("Hola:\n\nConfirma que esta es tu dirección de correo para Selfie abriendo este enlace:"))
            #expect(Self.englishSentences(in: confirm.text + confirm.html) == [])

            // An English visitor tries the same address: its owner is told, in the owner's language.
            try await app.browser().submitSignUp(name: "Someone", email: email)
            let attempt = try await MailSink.waitForMessage(to: email, subject: "Alguien ha intentado registrarse en Selfie con tu dirección")
            #expect(attempt.text.contains("Si has sido tú: inicia sesión en http://localhost/signin o elige una contraseña nueva en http://localhost/password/forgot si la has olvidado."))
            #expect(attempt.html.contains(#"Si has sido tú: <a href="http://localhost/signin">inicia sesión</a>"#))
            #expect(attempt.html.contains(#"<html lang="es">"#))
            #expect(Self.englishSentences(in: attempt.text + attempt.html) == [])
        }
    }

    @Test("an account with no language gets English, word for word as before")
    func englishWithoutLanguage() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("plain")
            try await app.browser().submitSignUp(name: "Ada", email: email)
            let stored: String = try await app.scalar("SELECT coalesce(language, '') FROM users WHERE email = \(email)")
            #expect(stored == "", "a browser that named no language leaves the account's unset")
            try await app.confirmAddress(of: email)  // named in its mail once confirmed
            try await app.browser().submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let mail = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            let link = "http://localhost" + (try mail.link(to: "/password/reset"))
            #expect(Self.lines(mail.text) == """
                Hello Ada,

                someone — hopefully you — asked to reset the password of your Selfie account. Choose a new password here:

                \(link)

                The link works for one hour, once. Setting a new password signs you out everywhere. If you did not ask for this, ignore this message: your password stays as it is.
                """)
            #expect(mail.html.contains(#"<html lang="en">"#))
            #expect(mail.html.contains("This message was sent to \(email) by Selfie. It is about your account; you cannot unsubscribe from it."))
        }
    }

    // MARK: Every kind, every language, without a database

    @Test("every kind of mail composes in every language: no key, no unfilled placeholder, no English in German or Spanish", arguments: Language.allCases)
    func everyKindComposes(language: Language) throws {
        let composer = try Self.composer()
        let notices = Self.everyNotice()
        #expect(Set(notices.map(\.kind)) == Set(MailNotice.Kind.allCases))
        for notice in notices {
            let what = "\(notice.kind.rawValue) \(notice.params["change"] ?? "") in \(language.rawValue)"
            let mail = try composer.compose(notice, to: MailRecipient(address: "ada@example.com", name: "Ada", language: language.rawValue))
            for part in [mail.subject, mail.text, mail.html ?? ""] {
                #expect(!part.contains("mail-"), "a key shows in \(what)")
                #expect(!part.contains("{$"), "an unfilled placeholder in \(what)")
            }
            #expect(mail.html?.contains(#"<html lang="\#(language.rawValue)">"#) == true)
            let english = Self.englishSentences(in: mail.subject + mail.text + (mail.html ?? ""))
            if language == .english {
                #expect(!english.isEmpty, "the check finds English in \(what)")
            } else {
                #expect(english == [], "English in \(what)")
            }
        }
    }

    @Test("values are escaped in the HTML part (markup from a name, an address or a provider stays text), never in the text part")
    func valuesEscaped() throws {
        let composer = try Self.composer()
        let hostile = "<b onclick=\"x\">Zoë & co</b>"
        for language in Language.allCases {
            for notice in Self.everyNotice(hostile: hostile) {
                let mail = try composer.compose(notice, to: MailRecipient(address: "ada@example.com", name: hostile, language: language.rawValue))
                let html = mail.html ?? ""
                #expect(!html.contains("<b onclick"), "\(notice.kind.rawValue) in \(language.rawValue)")
                #expect(html.contains("&lt;b onclick=&quot;x&quot;&gt;Zoë &amp; co&lt;/b&gt;"))
                #expect(mail.text.contains(hostile))
                // Only the layout's and the messages' own markup: p, a, strong and the document.
                let tags = Set(html.matches(of: /<\/?([a-z]+)/).map { String($0.output.1) })
                #expect(tags.isSubset(of: ["html", "head", "meta", "title", "body", "div", "p", "a", "strong"]), "\(tags)")
            }
        }
    }

    @Test("a -html message keeps only its own <strong> and <a href> to a known link; any other markup in a translation is shown as text")
    func markupOfMessages() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locales-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for language in Language.allCases {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(language.rawValue)", withIntermediateDirectories: true)
        }
        let source = #"x-html = Go <a href="{ $forgotLink }">here</a> or <a href="https://evil.example">there</a> <em>now</em>, <strong>{ $name }</strong>."#
        try source.write(toFile: "\(directory)/en/mail.ftl", atomically: true, encoding: .utf8)
        let words = try Translations(directory: directory)
        let messages = MailMessages(translations: words, language: .english, arguments: ["forgotLink": "https://s.example/f?a=1&b=2", "name": "<i>"])
        #expect(messages.html("x-html") == #"Go <a href="https://s.example/f?a=1&amp;b=2">here</a> or &lt;a href=&quot;https://evil.example&quot;&gt;there</a> &lt;em&gt;now&lt;/em&gt;, <strong>&lt;i&gt;</strong>."#)
    }

    @Test("the browser of a new sign-in is named in the recipient's words; product names stay")
    func deviceWords() throws {
        let composer = try Self.composer()
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
        #expect(composer.device(chrome, in: .english) == "Chrome on Linux")
        #expect(composer.device(chrome, in: .german) == "Chrome unter Linux")
        #expect(composer.device(chrome, in: .spanish) == "Chrome en Linux")
        #expect(composer.device("", in: .english) == "Unknown browser")
        #expect(composer.device("", in: .german) == "einem unbekannten Browser")
        #expect(composer.device("SomeApp (Android 14)", in: .spanish) == "un navegador en Android")
        let mail = try composer.compose(.newSignIn(userAgent: chrome, network: "203.0.113.0/24"), to: MailRecipient(address: "a@example.com", name: nil, language: "de"))
        #expect(mail.text.hasPrefix("Hallo,\n\nbei deinem Selfie-Konto hat sich gerade jemand mit Chrome unter Linux angemeldet, aus einem Netz, das es bisher nicht benutzt hat (203.0.113.0/24)."))
    }

    // MARK: The catalogues and the templates

    @Test("German and Spanish have every English mail message, no other, with the same placeholders and the same markup")
    func mailCataloguesComplete() {
        let english = Self.translations.catalogue(.english)
        let keys = english.keys.filter { $0.hasPrefix("mail-") }
        #expect(keys.count > 60)
        for language in Language.allCases where language != .english {
            let other = Self.translations.catalogue(language)
            let otherKeys = other.keys.filter { $0.hasPrefix("mail-") }
            #expect(keys.subtracting(otherKeys).sorted() == [], "missing in \(language.rawValue)")
            #expect(otherKeys.subtracting(keys).sorted() == [], "only in \(language.rawValue)")
            for key in keys.intersection(otherKeys).sorted() {
                #expect(english.variables(of: key) == other.variables(of: key), "\(language.rawValue): \(key)'s placeholders")
                let markup = { (catalogue: MessageCatalogue) in
                    (catalogue.format(key, [:]) ?? "").matches(of: /<\/?[a-z][^>]*>/).map { String($0.output) }.sorted()
                }
                #expect(markup(english) == markup(other), "\(language.rawValue): \(key)'s markup")
                #expect(key.hasSuffix("-html") || markup(english).isEmpty, "\(key) has markup but is not a -html message")
            }
        }
    }

    @Test("the mail templates hold no words of their own: every sentence is a catalogue message")
    func templatesHoldNoWords() throws {
        let directory = "\(repositoryRoot)/Templates/mail"
        let english = Self.translations.catalogue(.english)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".mustache") {
            let source = try String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)
            var words = source.replacingOccurrences(of: #"\{\{[^}]*\}\}\}?"#, with: " ", options: .regularExpression)
            words = words.replacingOccurrences(of: #"<[^>]*>"#, with: " ", options: .regularExpression)
            words = words.replacingOccurrences(of: "Selfie", with: " ")  // the product's name, in the layout's heading
            #expect(!words.contains { $0.isLetter }, "\(file): \(words.trimmingCharacters(in: .whitespacesAndNewlines))")
            for match in source.matches(of: /\{\{(\{?)t\.([A-Za-z0-9-]+)\}\}/) {
                let (raw, key) = (!match.output.1.isEmpty, String(match.output.2))
                #expect(english.has(key), "\(file): \(key) is not in the catalogue")
                #expect(raw == key.hasSuffix("-html"), "\(file): {{{…}}} is for -html messages only, and they need it")
            }
        }
    }

    // MARK: Helpers

    static func composer() throws -> MailTemplates {
        try MailTemplates(directory: "\(repositoryRoot)/Templates/mail", translations: translations, publicURL: URL(string: "https://selfie.example")!)
    }

    /// A text part as lines joined by "\n", without the trailing line break.
    static func lines(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// One notice of each kind, every security change included.
    static func everyNotice(hostile: String = "Pixel 8") -> [MailNotice] {
        [
            .verifyEmail(token: "t0ken"), .passwordReset(token: "t0ken"), .confirmNewEmail(token: "t0ken", newEmail: hostile),
            .emailChangeRequested(newEmail: hostile), .emailChanged(newEmail: hostile), .passwordChanged,
            .providerLinked(providerName: hostile), .accountDeleted, .signUpAttempted,
            .newSignIn(userAgent: hostile, network: "203.0.113.0/24"),
        ] + MailNotice.SecurityChange.allCases.map { .securityChange($0, name: hostile) } + [MailNotice(.securityChange)]
    }

    /// The English catalogue's mail sentences found in `mail`: every stretch of a `mail-…` message's
    /// own words between its placeholders and markup (a dozen characters or more, so that "Selfie"
    /// or "Chrome" do not count).
    static func englishSentences(in mail: String) -> [String] {
        let plain = mail.replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return englishFragments.filter { plain.contains($0) }
    }

    static let englishFragments: [String] = {
        let english = translations.catalogue(.english)
        var fragments: Set<String> = []
        for key in english.keys where key.hasPrefix("mail-") {
            let gaps = Dictionary(uniqueKeysWithValues: english.variables(of: key).map { ($0, MessageArgument.text("\u{0}")) })
            let text = (english.format(key, gaps) ?? "").replacingOccurrences(of: #"<[^>]*>"#, with: "\u{0}", options: .regularExpression)
            for piece in text.split(separator: "\u{0}") {
                let words = piece.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(.punctuationCharacters))
                if words.count >= 12, words.contains(" ") { fragments.insert(words) }
            }
        }
        return fragments.sorted()
    }()
}
