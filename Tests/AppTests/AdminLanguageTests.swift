@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// The admin pages in the admin's language, through real HTTP against real PostgreSQL: the
/// templates' words and the sentences built in Swift (counts, a session's facts, a link's).
@Suite("Admin pages in German and Spanish")
struct AdminLanguageTests {
    /// An admin whose browser asks for `acceptLanguage`; the first sign-in keeps it on the account.
    static func signedInAdmin(_ app: TestApp, acceptLanguage: String) async throws -> Browser {
        let email = uniqueEmail("admin")
        _ = try await AdminCommands(config: app.config, logger: testLogger).create(email: email, name: "Ada Admin", password: "admin password 1")
        let browser = app.browser()
        browser.extraHeaders[.acceptLanguage] = acceptLanguage
        guard try await browser.signIn(email: email, password: "admin password 1").status == .seeOther else {
            throw TestSetupError("admin sign-in failed")
        }
        return browser
    }

    /// Words the admin pages used to build in Swift, in English: none may be left on another language's page.
    static let englishFragments = [
        "last active", "signed in ", "API token (app key", "issued ", "never expires", " views", " view<", "users</li>", "photos</li>",
        "in the last 24 hours", "newest first", "oldest first", "most storage first", "The default (", ">active<", ">disabled<",
    ]

    static func expectNoEnglish(_ page: String, language: Language, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        ViewerLanguageTests.expectNoEnglish(page, language: language, what, sourceLocation: sourceLocation)
        let found = englishFragments.filter { page.contains($0) }
        #expect(found == [], "English built in Swift on the \(language.rawValue) \(what) page", sourceLocation: sourceLocation)
    }

    @Test("every action on an account has its link, question's consequence and button in the catalogue")
    func everyActionWorded() {
        let english = CatalogueTests.translations.catalogue(.english)
        for action in AdminService.UserAction.allCases {
            let name = AdminPagesController.messageName(action)
            for prefix in ["admin-action-", "admin-then-", "admin-do-"] {
                #expect(english.has(prefix + name), "\(prefix)\(name)")
            }
        }
    }

    @Test("dashboard, users, a user and the other admin pages in German; dashboard and a user in Spanish")
    func germanAndSpanish() async throws {
        try await withTestApp { app in
            // Someone with something on each of the user page's sections: a photo, an album, a
            // share link, a browser session and an API token.
            let owner = app.browser()
            let email = uniqueEmail("gerda")
            try await owner.signUp(name: "Gerda Müller", email: email)
            let photo = try await owner.uploadPhoto(TestImage.jpeg(size: 20_000), title: "Strand")
            let album = try await owner.makeAlbum("Urlaub", of: [photo])
            _ = try await owner.makeLink(("album", album), password: "link password 1")
            #expect(try await app.api.signIn(email: email).status == .ok)
            let id = try await app.userID(email)

            let admin = try await Self.signedInAdmin(app, acceptLanguage: "de-DE,de;q=0.9,en;q=0.5")
            let dashboard = try await admin.get("/admin").text
            #expect(dashboard.contains(#"<html lang="de""#))
            #expect(dashboard.contains("<h1>Übersicht</h1>"))
            #expect(dashboard.contains(#"<span class="number">2</span> Nutzer</li>"#))
            #expect(dashboard.contains(#"<span class="number">1</span> Foto</li>"#))
            #expect(dashboard.contains("Anmeldungen in den letzten 24 Stunden"))
            Self.expectNoEnglish(dashboard, language: .german, "dashboard")

            let users = try await admin.get("/admin/users?sort=storage").text
            #expect(users.contains("<strong>größter Speicherverbrauch zuerst</strong>"))
            #expect(users.contains("Gerda Müller") && users.contains("aktiv"))
            Self.expectNoEnglish(users, language: .german, "users")
            #expect(try await admin.get("/admin/users?q=nobody-at-all").text.contains("Keine Nutzer gefunden."))

            let user = try await admin.get("/admin/users/\(id)").text
            #expect(user.contains("Album „Urlaub“"))
            #expect(user.contains("Passwort · 0 Aufrufe"))
            #expect(user.contains("API-Token (App-Schlüssel test-app)"))
            #expect(user.contains("zuletzt aktiv"))
            #expect(user.contains("Der Standard ("))
            Self.expectNoEnglish(user, language: .german, "user")

            let confirm = try await admin.get("/admin/users/\(id)/delete").text
            #expect(confirm.contains("Konto und Fotos löschen? Gerda Müller (\(email))"))
            #expect(confirm.contains("Das Konto, 1 Foto und alle Sitzungen enden endgültig."))
            Self.expectNoEnglish(confirm, language: .german, "confirm")
            for path in ["/admin/api-keys", "/admin/audit", "/admin/mail", "/admin/integrity"] {
                let page = try await admin.get(path)
                #expect(page.status == .ok && page.text.contains(#"<html lang="de""#), "\(path): \(page.status)")
                Self.expectNoEnglish(page.text, language: .german, path)
            }

            let spanish = try await Self.signedInAdmin(app, acceptLanguage: "es-ES,es;q=0.9")
            let resumen = try await spanish.get("/admin").text
            #expect(resumen.contains("<h1>Resumen</h1>") && resumen.contains("usuarios</li>"))
            Self.expectNoEnglish(resumen, language: .spanish, "dashboard")
            let usuario = try await spanish.get("/admin/users/\(id)").text
            #expect(usuario.contains("Álbum «Urlaub»") && usuario.contains("última actividad"))
            Self.expectNoEnglish(usuario, language: .spanish, "user")

            // English stays as the tests elsewhere read it.
            let english = try await app.signedInAdmin()
            let englishUser = try await english.get("/admin/users/\(id)").text
            #expect(englishUser.contains("last active") && englishUser.contains("password · 0 views"))
        }
    }
}
