import Foundation
import HummingbirdTesting
import Testing

@Suite("Sign up in the browser")
struct SignUpTests {
    @Test("signing up creates the account (bcrypt, production cost 12) and says to check the mail; signing in lands on the gallery with a banner")
    func signUpSucceeds() async throws {
        try await withTestApp(configure: { $0.bcryptCost = 12 }) { app in
            let browser = app.browser()
            let email = uniqueEmail("ada")
            let answer = try await browser.submitSignUp(name: "Ada Lovelace", email: email)
            #expect(answer.status == .ok)
            #expect(answer.text.contains("Check your mail"))
            #expect(answer.text.contains("We sent a message to \(email)."))
            #expect(browser.cookies["selfie_session"] == nil, "signing up signs no one in: the answer must not differ for a taken address")

            let signIn = try await browser.signIn(email: email)
            #expect(signIn.status == .seeOther)
            #expect(browser.cookies["selfie_session"] != nil)
            let gallery = try await browser.get("/gallery")
            #expect(gallery.status == .ok)
            #expect(gallery.text.contains("Hello, Ada"))
            #expect(gallery.text.contains(">Ada Lovelace</a>"), "the header shows who is signed in")
            #expect(gallery.text.contains("Confirm your email address with the link we sent to: <strong>\(email)</strong>"))
            #expect(gallery.text.contains("Send it again"))

            let hash: String = try await app.scalar("SELECT password_hash FROM users WHERE email = \(email)")
            #expect(hash.hasPrefix("$2b$12$"), "bcrypt with cost 12")
            #expect(!hash.contains("correct horse"))
        }
    }

    @Test("invalid input re-renders the form with a message next to each field, keeping what was typed")
    func validationErrors() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let response = try await browser.submit(
                "/signup",
                from: "/signup",
                [("full_name", "  "), ("email", "not-an-email"), ("password", "short"), ("password_confirmation", "short")]
            )
            #expect(response.status == .unprocessableContent)
            let html = response.text
            #expect(html.contains("Enter your name."))
            #expect(html.contains("Enter an email address like name@example.com."))
            #expect(html.contains("Use at least 8 characters."))
            #expect(html.contains(#"value="not-an-email""#))
            #expect(html.contains(#"aria-invalid="true" aria-describedby="email-error""#))
            #expect(browser.cookies["selfie_session"] == nil)
            let users: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(users == 0)
        }
    }

    @Test("a name others would be shown wrong: only invisible characters is no name; a direction override (which turns what follows around) is refused; right-to-left text and its marks are fine")
    func namesShownToOthers() async throws {
        try await withTestApp { app in
            for (name, message) in [("\u{200B}", "Enter your name."), ("\u{2060}\u{FEFF} ", "Enter your name."), ("Eve \u{202E}moc.elpmaxe", "Use letters, spaces and punctuation only."), ("Eve\u{2066}x", "Use letters, spaces and punctuation only.")] {
                let response = try await app.browser().submitSignUp(name: name, email: uniqueEmail())
                #expect(response.status == .unprocessableContent, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
                #expect(response.text.contains(message))
            }
            #expect(try await app.scalar("SELECT count(*)::int FROM users") == 0)
            #expect(try await app.browser().submitSignUp(name: "\u{200F}נועה כהן", email: uniqueEmail()).status == .ok, "Hebrew with a right-to-left mark")

            // The same for an album's title and a photo's caption (shown on share pages).
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            #expect(try await owner.submit("/albums", from: "/albums", [("title", "\u{200B}")]).status == .unprocessableContent)
            #expect(try await owner.submit("/albums", from: "/albums", [("title", "Summer \u{202E}gpj.exe")]).status == .unprocessableContent)
            #expect(try await owner.upload(image: TestImage.jpeg(), title: "Beach \u{202D}x").status == .unprocessableContent)
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("mismatched confirmation is reported on the confirmation field")
    func mismatch() async throws {
        try await withTestApp { app in
            let response = try await app.browser().submit(
                "/signup",
                from: "/signup",
                [("full_name", "Ada"), ("email", uniqueEmail()), ("password", "long enough 1"), ("password_confirmation", "long enough 2")]
            )
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains(#"id="password_confirmation-error">The two passwords do not match."#))
        }
    }

    @Test("a password over 72 bytes is refused, not silently truncated")
    func longPasswordRefused() async throws {
        try await withTestApp { app in
            let long = String(repeating: "é", count: 40)  // 40 characters, 80 bytes
            let response = try await app.browser().signUp(email: uniqueEmail(), password: long)
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("Use at most 72 bytes"))
        }
    }

    @Test("a taken email, in any letter case, gets the same answer as a new one; no second account, and the owner gets a notice")
    func duplicateEmail() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("grace")
            try await app.browser().signUp(email: email)
            let fresh = uniqueEmail("fresh")
            let new = try await app.browser().submitSignUp(name: "Someone Else", email: fresh)
            let taken = try await app.browser().submitSignUp(name: "Someone Else", email: email.uppercased())
            #expect(taken.status == new.status)
            #expect(taken.status == .ok)
            func withoutAddress(_ response: TestResponse, _ address: String) -> String {
                response.text.replacingOccurrences(of: address, with: "ADDRESS")
                    .replacingOccurrences(of: #"name="_csrf" value="[^"]*""#, with: "", options: .regularExpression)
            }
            #expect(withoutAddress(taken, email.uppercased()) == withoutAddress(new, fresh))
            let count: Int = try await app.scalar("SELECT count(*)::int FROM users WHERE lower(email) = lower(\(email))")
            #expect(count == 1)
            let notice = try await MailSink.waitForMessage(to: email, subject: "Someone tried to sign up")
            #expect(notice.text.contains("/password/forgot"), "the notice says how to get back in")
            try await MailSink.waitForMessage(to: fresh, subject: "Confirm your email address")
        }
    }

    @Test("a known username does not tell whether an address has an account: both forms are refused alike, and nobody is mailed")
    func takenUsernameTellsNothing() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let owner = uniqueEmail("owner")
            let fields = { (email: String) in
                [("full_name", "Someone Else"), ("email", email), ("username", "grace_h"), ("password", "correct horse battery"), ("password_confirmation", "correct horse battery")]
            }
            #expect(try await app.browser().submit("/signup", from: "/signup", fields(owner)).status == .seeOther)
            try await MailSink.waitForMessage(to: owner, subject: "Confirm your email address")

            let fresh = uniqueEmail("fresh")
            let forFree = try await app.browser().submit("/signup", from: "/signup", fields(fresh))
            let forTaken = try await app.browser().submit("/signup", from: "/signup", fields(owner))
            #expect(forFree.status == .unprocessableContent)
            #expect(forTaken.status == forFree.status)
            func page(_ response: TestResponse, _ address: String) -> String {
                response.text.replacingOccurrences(of: address, with: "ADDRESS")
                    .replacingOccurrences(of: #"name="_csrf" value="[^"]*""#, with: "", options: .regularExpression)
            }
            #expect(page(forTaken, owner) == page(forFree, fresh))
            #expect(forTaken.text.contains("This username is taken"))
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 1)
            let queued: Int = try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(owner)")
            #expect(queued == 1, "the owner is not told of a sign-up that was refused for its username")
        }
    }

    @Test("the sign-up is redirected to \"check your mail\": reloading that page sends nothing again (a second sign-up would tell the new account's owner that someone tried to take the address)")
    func reloadSendsNothing() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let email = uniqueEmail("reload")
            let answer = try await browser.submit(
                "/signup", from: "/signup",
                [("full_name", "Ada Lovelace"), ("email", email), ("password", "correct horse battery"), ("password_confirmation", "correct horse battery")]
            )
            #expect(answer.status == .seeOther && answer.location == "/signup/sent")
            for _ in 0..<2 {
                let page = try await browser.get("/signup/sent")
                #expect(page.status == .ok && page.text.contains("We sent a message to \(email)."))
            }
            let queued: [String] = try await app.db { client in
                var kinds: [String] = []
                for try await kind in try await client.query("SELECT kind FROM mail_outbox WHERE recipient = \(email) ORDER BY id").decode(String.self) {
                    kinds.append(kind)
                }
                return kinds
            }
            #expect(queued == ["verify_email"], "one confirmation, no notice of a sign-up attempt")
            let stranger = try await app.browser().get("/signup/sent")
            #expect(stranger.status == .seeOther && stranger.location == "/signup", "without a sign-up of its own, the page is the form")
        }
    }

    @Test("concurrent sign-ups with one email: exactly one account, every answer the same")
    func concurrentDuplicate() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("race")
            var signUps: [AtOnce.Request] = []
            for _ in 0..<4 {
                let password = "correct horse battery"
                signUps.append(
                    try await app.browser().formRequest(
                        "/signup", from: "/signup", [("full_name", "Ada Lovelace"), ("email", email), ("password", password), ("password_confirmation", password)]
                    )
                )
            }
            let port = try #require(app.client.port)
            let sent = signUps
            // Inserts into the users' table wait until at least two sign-ups are about to insert.
            let statuses = try await app.holding("LOCK TABLE users IN EXCLUSIVE MODE", untilWaiting: 2) {
                try await AtOnce.send(sent, port: port).map(\.status)
            }
            #expect(statuses == [303, 303, 303, 303])
            let count: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(count == 1)
        }
    }

    @Test("control characters and over-long names are refused with a message, never a 500")
    func hostileText() async throws {
        try await withTestApp { app in
            let family = String(repeating: "👨‍👩‍👧‍👦", count: 30)  // 30 characters, 210 code points
            let cases: [(name: String, email: String, password: String, field: String)] = [
                ("Ada\u{0}Lovelace", uniqueEmail(), "correct horse battery", "full_name-error"),
                ("Ada", "ada\u{0}@example.com", "correct horse battery", "email-error"),
                ("Ada", uniqueEmail(), "correct\u{0}horse battery", "password-error"),
                (family, uniqueEmail(), "correct horse battery", "full_name-error"),
            ]
            for item in cases {
                let response = try await app.browser().signUp(name: item.name, email: item.email, password: item.password)
                #expect(response.status == .unprocessableContent)
                #expect(response.text.contains(#"id="\#(item.field)""#))
            }
            let users: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(users == 0)
            let signIn = try await app.browser().signIn(email: "x\u{0}@example.com", password: "pass\u{0}word")
            #expect(signIn.status == .unauthorized)
        }
    }

    @Test("a quote hidden behind a combining mark is still escaped in attributes (the refused address, typed back into the form)")
    func combiningMarkCannotBreakAttributes() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let email = "a\"\u{301}onmouseover=alert(1)@example.com"
            let response = try await browser.signUp(email: email)
            #expect(response.status == .unprocessableContent, "no mail can be sent to it")
            let html = response.text
            let raw = "\"\u{301}onmouseover"
            let escaped = "&quot;\u{301}onmouseover"
            #expect(!html.contains(raw))
            #expect(html.contains(escaped))
        }
    }

    @Test("user text is escaped in pages")
    func escapesUserText() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(name: #"<script>alert("x")</script>"#, email: uniqueEmail())
            let html = try await browser.get("/account").text
            #expect(!html.contains("<script>alert"))
            #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        }
    }
}
