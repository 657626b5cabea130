@testable import SelfieCore
import Foundation
import PostgresNIO
import HummingbirdTesting
import Testing

@Suite("Account page")
struct AccountPageTests {
    @Test("shows the profile and every browser the user is signed in on")
    func listsSessions() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let laptop = app.browser()
            try await laptop.signUp(name: "Ada Lovelace", email: email)
            let phone = app.browser()
            phone.userAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
            try await phone.signIn(email: email)

            let html = try await laptop.get("/account").text
            #expect(html.contains("Ada Lovelace"))
            #expect(html.contains(email))
            #expect(html.contains("Chrome on Linux"))
            #expect(html.contains("Safari on iPhone"))
            #expect(html.components(separatedBy: "This browser").count == 2, "exactly one session is marked current")
            #expect(html.contains("Sign out everywhere else"))
            #expect(html.firstCapture(of: #"<dt>Member since</dt><dd>(\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC)</dd>"#) != nil)
        }
    }

    @Test("changing the password keeps this browser signed in, ends the others, and the new password works")
    func changePassword() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let here = app.browser()
            try await here.signUp(email: email, password: "first password 1")
            let elsewhere = app.browser()
            try await elsewhere.signIn(email: email, password: "first password 1")
            #expect(try await elsewhere.get("/account").status == .ok)

            let response = try await here.submit(
                "/account/password",
                from: "/account",
                [("current_password", "first password 1"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
            )
            #expect(response.status == .seeOther)
            #expect(response.location == "/account?notice=password-changed")
            #expect(try await here.get("/account?notice=password-changed").text.contains("Your password was changed."))
            #expect(try await elsewhere.get("/account").status == .seeOther, "the other session was ended")

            #expect(try await app.browser().signIn(email: email, password: "first password 1").status == .unauthorized)
            #expect(try await app.browser().signIn(email: email, password: "second password 2").status == .seeOther)
        }
    }

    @Test("attack: a password change whose session a reset ends mid-change does not overwrite the reset's password")
    func changeRacingAReset() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.browser().signUp(email: email, password: "first password 1")
            let thief = app.browser()
            try await thief.signIn(email: email, password: "first password 1")
            // A second account lends the hash of the owner's new password.
            let lender = uniqueEmail("lender")
            try await app.browser().signUp(email: lender, password: "the owner's new 1")
            let userID = try await app.userID(email)

            let change = try await app.db { client in
                try await client.transaction(logger: testLogger) { connection in
                    try await connection.query("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", logger: testLogger)
                    let change = Task {
                        try await thief.submit(
                            "/account/password", from: "/account",
                            [("current_password", "first password 1"), ("new_password", "the thief's own 1"), ("new_password_confirmation", "the thief's own 1")]
                        )
                    }
                    // The thief's change has checked the old password and waits to write; the
                    // owner's reset lands first: a new password, every session ended.
                    try await TestApp.untilSomeoneWaitsForALock(client)
                    try await connection.query(
                        "UPDATE users SET password_hash = (SELECT password_hash FROM users WHERE email = \(lender)) WHERE id = \(userID)",
                        logger: testLogger
                    )
                    try await connection.query("DELETE FROM web_sessions WHERE user_id = \(userID)", logger: testLogger)
                    return change
                }
            }
            let answer = try await change.value
            // Refused: its session is gone, so it is sent to confirm it's you (which signs it in again).
            #expect(answer.location?.hasPrefix("/account/confirm?next=") == true, "the change was refused: \(answer.status) \(answer.location ?? "")")
            #expect(try await app.browser().signIn(email: email, password: "the thief's own 1").status == .unauthorized)
            #expect(try await app.browser().signIn(email: email, password: "the owner's new 1").status == .seeOther)
        }
    }

    @Test("a wrong current password or a weak new one re-renders the form with messages and changes nothing")
    func changePasswordErrors() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let browser = app.browser()
            try await browser.signUp(email: email, password: "first password 1")
            let before: String = try await app.scalar("SELECT password_hash FROM users")

            let wrongCurrent = try await browser.submit(
                "/account/password",
                from: "/account",
                [("current_password", "guess"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
            )
            #expect(wrongCurrent.status == .unprocessableContent)
            #expect(wrongCurrent.text.contains("This is not your current password."))

            let weak = try await browser.submit(
                "/account/password",
                from: "/account",
                [("current_password", "first password 1"), ("new_password", "short"), ("new_password_confirmation", "short")]
            )
            #expect(weak.status == .unprocessableContent)
            #expect(weak.text.contains(#"id="new_password-error">Use at least 8 characters."#))

            let after: String = try await app.scalar("SELECT password_hash FROM users")
            #expect(before == after)
        }
    }

    @Test("'sign out everywhere else' ends every other session and keeps this one")
    func endOtherSessions() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let here = app.browser()
            try await here.signUp(email: email)
            let others = [app.browser(), app.browser()]
            for other in others { try await other.signIn(email: email) }

            let response = try await here.submit("/account/sessions/end-others", from: "/account", [])
            #expect(response.location == "/account?notice=sessions-ended")
            for other in others {
                #expect(try await other.get("/account").status == .seeOther)
            }
            #expect(try await here.get("/account").status == .ok)
            let remaining: Int = try await app.scalar("SELECT count(*)::int FROM web_sessions")
            #expect(remaining == 1)
            let recorded: String = try await app.scalar(
                "SELECT target FROM audit_events WHERE event = 'session.others_ended' AND actor_id = target_user_id AND user_agent <> ''"
            )
            #expect(recorded == "2 session(s)", "the audit log says who ended how many, from where")
        }
    }
}
