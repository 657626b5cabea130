import Foundation
import HummingbirdTesting
import Testing

@Suite("CSRF protection")
struct CSRFTests {
    @Test("a form posted without a token, or with a wrong one, gets a 403 page and changes nothing")
    func missingOrWrongToken() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            _ = try await browser.get("/signup")  // has a visitor cookie, like a real browser would
            let fields = [("full_name", "Mallory"), ("email", uniqueEmail()), ("password", "long enough pw"), ("password_confirmation", "long enough pw")]
            for token in [nil, "", "forged-token"] as [String?] {
                let form = token.map { [("_csrf", $0)] + fields } ?? fields
                let response = try await browser.post("/signup", form: form)
                #expect(response.status == .forbidden)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.text.contains("This form has expired or did not come from Selfie."))
            }
            let users: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(users == 0)
        }
    }

    @Test("a token from another browser is refused")
    func tokenOfAnotherBrowser() async throws {
        try await withTestApp { app in
            let victim = app.browser()
            try await victim.signUp(email: uniqueEmail())
            let attacker = app.browser()
            let attackersToken = try await attacker.csrfToken(on: "/signin")
            let response = try await victim.post("/account/sessions/end-others", form: [("_csrf", attackersToken)])
            #expect(response.status == .forbidden)
        }
    }

    @Test("signed-in forms are protected too: sign-out and password change need the session's token")
    func signedInForms() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            #expect(try await browser.post("/signout", form: []).status == .forbidden)
            #expect(try await browser.get("/account").status == .ok, "still signed in")
            let password = try await browser.post(
                "/account/password",
                form: [("current_password", "correct horse battery"), ("new_password", "hijacked pw 1"), ("new_password_confirmation", "hijacked pw 1")]
            )
            #expect(password.status == .forbidden)
        }
    }

    @Test("a page shown before signing out (in another tab): its forms, Sign out too, ask to sign in again and change nothing; a token Selfie did not make is still refused")
    func pageFromBeforeSigningOut() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let fromTheOtherTab = try await browser.csrfToken(on: "/account")
            #expect(try await browser.post("/signout", form: [("_csrf", fromTheOtherTab)]).status == .seeOther)
            for path in ["/account/sessions/end-others", "/albums", "/signout"] {
                let answer = try await browser.post(path, form: [("_csrf", fromTheOtherTab), ("title", "From the other tab")])
                #expect(answer.status == .seeOther, "\(path)")
                #expect(answer.headers[.location]?.hasPrefix("/signin") == true, "\(path): \(answer.headers[.location] ?? "no location")")
            }
            let albums: Int = try await app.scalar("SELECT count(*)::int FROM albums")
            #expect(albums == 0)
            for forged in [String(fromTheOtherTab.dropLast()) + (fromTheOtherTab.hasSuffix("A") ? "B" : "A"), "forged.token", fromTheOtherTab + "."] {
                let refused = try await browser.post("/albums", form: [("_csrf", forged), ("title", "Forged")])
                #expect(refused.status == .forbidden, "\(forged)")
            }
            // A visitor's page (a reset link's, say) open across a browser restart (a new visitor
            // cookie): not "sign in again", which would drop its link, but the refusal a reload fixes.
            let visitorsToken = try await browser.csrfToken(on: "/password/forgot")
            browser.setCookie("selfie_visitor", "restartedBrowser000000")
            let stale = try await browser.post("/password/forgot", form: [("_csrf", visitorsToken), ("email", "ada@example.com")])
            #expect(stale.status == .forbidden)
        }
    }

    @Test("a page from before tokens carried their mark (open across an upgrade) still sends its forms: the proof is what is compared")
    func tokenWithoutItsMark() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let token = try await browser.csrfToken(on: "/account")
            let proof = try #require(token.split(separator: ".").first.map(String.init))
            #expect(proof.count == 43 && token.count == 87)
            let answer = try await browser.post("/account/sessions/end-others", form: [("_csrf", proof)])
            #expect(answer.status == .seeOther && answer.headers[.location]?.hasPrefix("/account") == true)
        }
    }

    @Test("the token changes when the session changes (sign-in)")
    func tokenRotatesWithSession() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.browser().signUp(email: email)
            let browser = app.browser()
            let before = try await browser.csrfToken(on: "/signin")
            try await browser.signIn(email: email)
            let after = try await browser.csrfToken(on: "/account")
            #expect(before != after)
            #expect(try await browser.post("/signout", form: [("_csrf", before)]).status == .forbidden)
        }
    }
}
