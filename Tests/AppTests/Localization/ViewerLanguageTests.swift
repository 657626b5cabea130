import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import App
@testable import SelfieCore

/// The language, zone and theme a page is shown in, through real HTTP against real PostgreSQL:
/// Accept-Language for a visitor, the footer's choice in a cookie and on the account, the
/// browser's zone kept on the account once; and no English sentence on a German or Spanish page.
@Suite("Pages in the viewer's language")
struct ViewerLanguageTests {
    /// English sentences of the catalogue that a page in another language must not contain (long
    /// enough to be a sentence, and not the same in that language, like "Album").
    static func englishSentences(otherThan language: Language) -> [String] {
        let english = CatalogueTests.translations.catalogue(.english)
        let other = CatalogueTests.translations.catalogue(language)
        return english.keys.sorted().compactMap { key in
            guard english.variables(of: key).isEmpty, let text = english.format(key), text.count >= 12, text != other.format(key) else { return nil }
            return ScalarHTMLEscaping().escapeText(text)
        }
    }

    static func expectNoEnglish(_ page: String, language: Language, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let sentences = englishSentences(otherThan: language)
        #expect(sentences.count > 150, "the check compares against the catalogue's English", sourceLocation: sourceLocation)
        let found = sentences.filter { page.contains($0) }
        #expect(found == [], "English on the \(language.rawValue) \(what) page", sourceLocation: sourceLocation)
    }

    @Test("a visitor's Accept-Language picks the language; signing up keeps it on the account; the journey has no English")
    func germanJourney() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            browser.extraHeaders[.acceptLanguage] = "de-DE,de;q=0.9,en;q=0.5"
            let signIn = try await browser.get("/signin")
            #expect(signIn.text.contains(#"<html lang="de""#))
            #expect(signIn.text.contains("<h1>Anmelden</h1>"))
            Self.expectNoEnglish(signIn.text, language: .german, "sign-in")
            let signUp = try await browser.get("/signup")
            #expect(signUp.status == .ok && signUp.text.contains(#"<html lang="de""#))
            Self.expectNoEnglish(signUp.text, language: .german, "sign-up")
            // An address no route takes is answered outside the pages, in the browser's language too.
            let missing = try await browser.get("/no-such-page")
            #expect(missing.status == .notFound && missing.text.contains("<h1>Nicht gefunden</h1>"))
            Self.expectNoEnglish(missing.text, language: .german, "not-found")

            let email = uniqueEmail("greta")
            let sent = try await browser.submitSignUp(name: "Greta Garbo", email: email)
            #expect(sent.text.contains("Sieh in dein Postfach"))
            Self.expectNoEnglish(sent.text, language: .german, "check-your-mail")

            browser.setCookie("selfie_zone", "Europe%2FBerlin")
            _ = try await browser.signIn(email: email)
            let gallery = try await browser.get("/gallery")
            #expect(gallery.text.contains("Hallo, Greta"))
            Self.expectNoEnglish(gallery.text, language: .german, "gallery")
            let upload = try await browser.get("/photos/new")
            #expect(upload.status == .ok && upload.text.contains(#"<html lang="de""#))
            Self.expectNoEnglish(upload.text, language: .german, "upload")
            let account = try await browser.get("/account")
            #expect(account.text.contains("Zeiten werden in der Zeitzone Europe/Berlin angezeigt"))
            Self.expectNoEnglish(account.text, language: .german, "account")

            // Kept on the account: another browser, in English, sees the account's German and zone.
            let stored: String = try await app.scalar("SELECT language || ' ' || time_zone FROM users WHERE email = \(email)")
            #expect(stored == "de Europe/Berlin")
            let elsewhere = app.browser()
            elsewhere.extraHeaders[.acceptLanguage] = "en"
            _ = try await elsewhere.signIn(email: email)
            let there = try await elsewhere.get("/account")
            #expect(there.text.contains(#"<html lang="de""#))
        }
    }

    @Test("the footer's choice sets a cookie for anyone and the account's language for the signed-in; a wrong value changes nothing")
    func footerChoice() async throws {
        try await withTestApp { app in
            let visitor = app.browser()
            let chosen = try await visitor.submit("/preferences", from: "/signin", [("language", "es"), ("theme", "dark")])
            #expect(chosen.status == .seeOther)
            #expect(visitor.cookies["selfie_language"] == "es")
            #expect(visitor.cookies["selfie_theme"] == "dark")
            let page = try await visitor.get("/signin")
            #expect(page.text.contains(#"<html lang="es" data-theme="dark""#))
            Self.expectNoEnglish(page.text, language: .spanish, "sign-in")

            let email = uniqueEmail("ines")
            _ = try await visitor.signUp(name: "Inés Suárez", email: email)
            _ = try await visitor.submit("/preferences", from: "/account", [("language", "de")])
            let language: String = try await app.scalar("SELECT language FROM users WHERE email = \(email)")
            #expect(language == "de", "the signed-in choice is the account's")

            let refused = try await visitor.submit("/preferences", from: "/account", [("language", "fr")])
            #expect(refused.status == .badRequest)
            let unchanged: String = try await app.scalar("SELECT language FROM users WHERE email = \(email)")
            #expect(unchanged == "de")
        }
    }

    @Test("refusals speak the page's language: field errors and a wrong password in Spanish, the API's in English")
    func refusalsInLanguage() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            browser.extraHeaders[.acceptLanguage] = "es"
            let refused = try await browser.submit("/signup", from: "/signup", [("full_name", ""), ("email", "no-at-sign"), ("password", "short")])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("Escribe tu nombre."))
            #expect(refused.text.contains("Escribe una dirección de correo como nombre@example.com."))
            Self.expectNoEnglish(refused.text, language: .spanish, "refused sign-up")
            let wrong = try await browser.submit("/signin", from: "/signin", [("email", "nobody@example.com"), ("password", "wrong password")])
            #expect(wrong.text.contains("El correo, el nombre de usuario o la contraseña no son correctos."))

            // A wrong code while setting up two-step verification.
            let email = uniqueEmail("ines")
            _ = try await browser.signUp(email: email)
            try await app.confirmAddress(of: email)
            _ = try await browser.get("/account/two-factor")
            let wrongCode = try await browser.submit("/account/two-factor", from: "/account/two-factor", [("code", "000000")])
            #expect(wrongCode.status == .unprocessableContent)
            #expect(wrongCode.text.contains("Ese código no es correcto. Escribe el código de 6 cifras"))
            #expect(!wrongCode.text.contains("That code is not right"))
            Self.expectNoEnglish(wrongCode.text, language: .spanish, "two-step set-up with a wrong code")

            // The API answers in English whatever the phone's language (the seed's app shows it as is).
            let body = #"{"email":"nobody@example.com","password":"\#(app.api.encrypt("wrong password"))"}"#
            let api = try await app.api.send(.post, "/api/signin", body: body, authorization: app.api.basicAuthorization, extraHeaders: [.acceptLanguage: "es"])
            #expect(api.status == .unauthorized)
            #expect(try api.apiError().message == "Invalid email or password.")
        }
    }

    @Test("the browser's language and zone, kept once, never replace the account's own choice: not even from a request that read the account before the choice (the UPDATE keeps what is stored)")
    func keptOnceNeverOverwrites() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let email = uniqueEmail("choice")
            _ = try await browser.signUp(email: email)  // no Accept-Language, no cookies: nothing kept
            let userID = try await app.userID(email)
            _ = try await browser.submit("/preferences", from: "/account", [("language", "de")])
            // What a request that looked the account up just before the choice writes next, as a
            // browser speaking Spanish in Tokyo: its in-memory view said "nothing chosen".
            try await app.db { client in
                let users = UserRepository(client: client, access: AccessCache(lifetime: .zero), logger: testLogger)
                try await users.setPreferences(userID: userID, AccountPreferences(language: "es", timeZone: "Asia/Tokyo"), onlyUnset: true)
            }
            let stored: String = try await app.scalar("SELECT language || ' ' || time_zone FROM users WHERE id = \(userID)")
            #expect(stored == "de Asia/Tokyo", "the chosen language stays; the zone, never chosen, is taken")
        }
    }

    @Test("a zone cookie that is no zone is ignored; times stay in UTC, labelled")
    func badZone() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let email = uniqueEmail("zone")
            browser.setCookie("selfie_zone", "Mars%2FOlympus_Mons")
            _ = try await browser.signUp(email: email)
            let account = try await browser.get("/account")
            #expect(account.text.contains("Times are shown in UTC until your browser tells us its time zone"))
            #expect(account.text.contains(" UTC</dd>"), "member since, in UTC")
            let zone: String? = try await app.scalar("SELECT time_zone FROM users WHERE email = \(email)")
            #expect(zone == nil)
        }
    }

    @Test("error pages speak the page's language whatever their status: a link's password still owed (401), a cursor that is no position (400), an image link that is not valid (403), too many links mailed (429)")
    func errorPagesInTheLanguage() async throws {
        try await withTestApp(configure: { config in
            try config.useMailSink()
            config.protection.verificationMailsPerDay = 1
        }) { app in
            let greta = app.browser()
            greta.extraHeaders[.acceptLanguage] = "de"
            try await greta.signUp(email: uniqueEmail("greta"))
            let photo = try await greta.uploadPhoto(TestImage.jpeg(size: 1500, seed: 1))
            let link = try await greta.makeLink(("photo", photo), password: "sesam öffne dich", allowDownload: true)
            let visitor = app.browser()
            visitor.extraHeaders[.acceptLanguage] = "de"
            var pages: [(String, TestResponse, HTTPResponse.Status)] = []
            pages.append(("password owed", try await visitor.get("/s/\(link)/download"), .unauthorized))
            pages.append(("cursor", try await greta.get("/gallery?after=x"), .badRequest))
            pages.append(("image link", try await visitor.get("/media/\(try await app.blobKey(of: photo).value)?expires=1&sig=x"), .forbidden))
            pages.append(("links mailed", try await greta.submit("/account/verify-email/resend", from: "/gallery", []), .tooManyRequests))
            for (what, page, status) in pages {
                #expect(page.status == status, "\(what): \(page.status)")
                #expect(page.text.contains(#"<html lang="de""#), "\(what)")
                #expect(!page.text.contains("<h1>\(status.reasonPhrase)</h1>"), "\(what): the heading in German")
                Self.expectNoEnglish(page.text, language: .german, what)
                for english in ["parameter", "image link", "We have already sent"] {
                    #expect(!page.text.contains(english), "\(what): \(english)")
                }
            }
        }
    }

    @Test("the page scripts' words travel in <html data-words> as JSON in the page's language, plural variants included")
    func scriptWordsInThePage() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            browser.extraHeaders[.acceptLanguage] = "de"
            let page = try await browser.get("/signin").text
            let attribute = try #require(page.firstMatch(of: /data-words="([^"]*)"/)?.1)
            let json = String(attribute)
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
            let words = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
            #expect(words["js-upload-ready"] == "Bereit")
            #expect(words["js-uploading-file"] == "{file} wird hochgeladen")
            #expect(words.keys.contains { $0.hasSuffix("#one") }, "plural variants, one per category")
            #expect(!words.keys.contains { !$0.hasPrefix("js-") }, "only the scripts' messages")
        }
    }
}
