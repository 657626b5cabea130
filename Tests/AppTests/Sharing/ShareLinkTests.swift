@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Imaging
import ServiceLifecycle
import Testing

@Suite("Share links: renditions only, to whoever holds the link, until it expires or is turned off")
struct ShareLinkTests {
    static func fixture(_ name: String) throws -> [UInt8] { Array(try PhotoFixtures.bytes(name).readableBytesView) }

    /// An owner with an album of two photos (one straight from a camera: GPS, serial, capture
    /// time) and a third photo outside it.
    struct Setup {
        let owner: Browser
        let email: String
        let album: String
        let camera: String
        let plain: String
        let outside: String
    }

    static func setUp(_ app: TestApp) async throws -> Setup {
        let owner = app.browser()
        let email = uniqueEmail()
        try await owner.signUp(email: email)
        let camera = try await owner.uploadPhoto(try fixture("camera.jpg"), title: "At the lake", filename: "IMG_4242.JPG")
        let plain = try await owner.uploadPhoto(TestImage.jpeg(size: 1500, seed: 5), title: "", filename: "secret-name.jpg")
        let outside = try await owner.uploadPhoto(TestImage.jpeg(size: 1500, seed: 6), title: "Not shared")
        let album = try await owner.makeAlbum("Lake trip", of: [camera, plain])
        return Setup(owner: owner, email: email, album: album, camera: camera, plain: plain, outside: outside)
    }

    @Test("an album's link: no account needed, private headers, thumbnails and display copies only, nothing of the owner's; turned off, page and images stop")
    func albumLink() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            let token = try await s.owner.makeLink(("album", s.album))
            let stored: String = try await app.scalar("SELECT encode(token_hash, 'hex') FROM share_links")
            #expect(stored == sha256Hex(Array(token.utf8)), "only the token's SHA-256 is kept")

            let visitor = app.browser()
            let page = try await visitor.get("/s/\(token)")
            #expect(page.status == .ok)
            #expect(page.headers[.init("X-Robots-Tag")!] == "noindex, nofollow")
            #expect(page.headers[.init("Referrer-Policy")!] == "no-referrer")
            #expect(page.text.contains("<h1>Lake trip</h1>"))
            #expect(page.text.contains(#"<meta property="og:title" content="Lake trip">"#))
            #expect(page.text.contains(#"<meta property="og:image" content="http://localhost/s/\#(token)/photos/"#) && page.text.contains("/thumb-800\">"))
            let originals: [String] = try await app.db { client in
                try await client.query("SELECT blob_key FROM photos").collect().map { try $0.decode(String.self) }
            }
            for secret in [s.email, "IMG_4242", "secret-name", "/media/", "Not shared", s.outside] + originals {
                #expect(!page.text.contains(secret), "the shared page never shows \(secret)")
            }
            let images = try page.text.captures(of: #"<img src="(/s/[^"]+)""#)
            #expect(images.count == 2)
            for image in images {
                let fetched = try await visitor.get(image)
                #expect(fetched.status == .ok && fetched.headers[.contentType] == "image/webp", "\(image)")
                #expect(fetched.headers[.init("Referrer-Policy")!] == "no-referrer")
                #expect(fetched.headers[.cacheControl] == "private, no-cache", "checked again at every view")
            }
            // A revalidation is answered from the row: the file is not opened (the test removes it).
            let first = try await visitor.get(images[0])
            let etag = try #require(first.headers[.eTag])
            try await app.blobs.delete(try #require(BlobKey(String(etag.dropFirst().dropLast()))))
            let revalidated = try await visitor.send(images[0], method: .get, body: nil, contentType: nil, extraHeaders: [.ifNoneMatch: etag])
            #expect(revalidated.status == .notModified && revalidated.headers[.eTag] == etag)
            #expect(try await visitor.get(images[0]).status == .notFound, "asked for its bytes, the missing file is a 404")
            let display = try await visitor.get("/s/\(token)/photos/\(s.camera)/display-2048")
            #expect(display.status == .ok && display.headers[.contentType] == "image/jpeg")
            #expect(Array(display.body.readableBytesView) != (try Self.fixture("camera.jpg")))
            let exif = try ImageProcessor().probe(display.body)
            #expect(exif.takenAt == nil, "no EXIF left in what a link serves")

            // The original is out of reach, with or without the link.
            for path in ["/s/\(token)/photos/\(s.camera)/original", "/s/\(token)/photos/\(s.camera)/\(originals[0])"] {
                #expect(try await visitor.get(path).status == .notFound, "\(path)")
            }
            #expect(try await visitor.get("/photos/\(s.camera)/original").status == .seeOther, "the owner's download asks a visitor to sign in")
            // A photo outside the album is not the link's.
            #expect(try await visitor.get("/s/\(token)/photos/\(s.outside)").status == .notFound)
            #expect(try await visitor.get("/s/\(token)/photos/\(s.outside)/thumb-400").status == .notFound)
            // Its photo page moves through the album only: the photo taken between them outside
            // the album is skipped, and the ends have one neighbour.
            let photoPage = try await visitor.get("/s/\(token)/photos/\(s.plain)").text
            #expect(photoPage.contains("rel=\"next\" class=\"viewer-next\" href=\"/s/\(token)/photos/\(s.camera)\""))
            #expect(!photoPage.contains("rel=\"prev\"") && !photoPage.contains(s.outside))
            let olderPage = try await visitor.get("/s/\(token)/photos/\(s.camera)").text
            #expect(olderPage.contains("rel=\"prev\" class=\"viewer-prev\" href=\"/s/\(token)/photos/\(s.plain)\"") && !olderPage.contains("rel=\"next\""))
            // A photo's link shows that photo only.
            let single = try await s.owner.makeLink(("photo", s.plain))
            #expect(try await visitor.get("/s/\(single)").text.contains("/s/\(single)/photos/\(s.plain)/display-2048"))
            for other in [s.camera, s.outside] {
                #expect(try await visitor.get("/s/\(single)/photos/\(other)").status == .notFound)
                #expect(try await visitor.get("/s/\(single)/photos/\(other)/thumb-400").status == .notFound)
            }
            #expect(try await visitor.get("/s/\(single)?after=1_1").status == .notFound, "a photo's link has no second page")
            #expect(try await visitor.get("/s/\(token)?after=garbage").status == .badRequest)
            let refused = try await visitor.post("/s/\(token)", form: [("password", "no CSRF token")])
            #expect(refused.status == .forbidden && refused.headers[.init("X-Robots-Tag")!] == "noindex, nofollow", "a CSRF refusal is private too")
            #expect(try await visitor.get("/s/\(token)/download").status == .forbidden, "downloading was not allowed")
            let headOfDownload = try await visitor.send("/s/\(token)/download", method: .head, body: nil as String?, contentType: nil)
            #expect(headOfDownload.status == .forbidden, "a HEAD says what a GET would")

            // The owner's list writes the views counted so far before it reads them.
            let links = try await s.owner.get("/links").text
            #expect(links.contains("Lake trip") && links.contains("<td>1</td>"))
            let views: Int64 = try await app.scalar("SELECT views FROM share_links WHERE album_id IS NOT NULL")
            #expect(views == 1, "the page, not its photo pages, images or a refused cursor")

            // Someone else cannot turn it off; its owner can.
            let linkID: String = try await app.scalar("SELECT public_id FROM share_links WHERE album_id IS NOT NULL")
            let bob = app.browser()
            try await bob.signUp(name: "Bob", email: uniqueEmail())
            #expect(try await bob.submit("/links/\(linkID)/revoke", from: "/links", []).status == .notFound)
            #expect(try await visitor.get("/s/\(token)").status == .ok)
            let offSite = try await s.owner.submit("/links/nope/revoke?back=//evil.example", from: "/links", [])
            #expect(offSite.status == .notFound)
            let revoked = try await s.owner.submit("/links/\(linkID)/revoke?back=//evil.example", from: "/links", [])
            #expect(revoked.location == "/links?notice=link-revoked", "never sent off the site")
            // Turned off again (a second tab): its owner is told so, not to "ask whoever shared it".
            let again = try await s.owner.submit("/links/\(linkID)/revoke", from: "/links", [])
            #expect(again.status == .notFound)
            #expect(again.text.contains("You have no such link: it may have been turned off already.") && !again.text.contains("whoever shared it"))
            let gone = try await visitor.get("/s/\(token)")
            #expect(gone.status == .notFound && gone.text.contains("has expired or was turned off"))
            #expect(gone.headers[.init("X-Robots-Tag")!] == "noindex, nofollow", "its error page is private too")
            for image in images { #expect(try await visitor.get(image).status == .notFound, "\(image) stopped") }
            let audited: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event IN ('share_link.created', 'share_link.revoked')")
            #expect(audited == 3)
        }
    }

    @Test("a password: asked first, wrong refused, right gives a cookie for this link's path only; images need it; the original stays out of reach")
    func password() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            let token = try await s.owner.makeLink(("album", s.album), expires: "1", password: "open sesame 1", allowDownload: true)
            let other = try await s.owner.makeLink(("photo", s.plain), password: "open sesame 1")
            let visitor = app.browser()
            let asked = try await visitor.get("/s/\(token)")
            #expect(asked.status == .unauthorized && asked.text.contains("This link has a password"))
            #expect(!asked.text.contains("Lake trip") && !asked.text.contains("og:image"), "nothing shown before the password")
            #expect(try await visitor.get("/s/\(token)/photos/\(s.camera)/thumb-400").status == .unauthorized)
            #expect(try await visitor.get("/s/\(token)/photos/\(s.camera)").status == .unauthorized)
            #expect(try await visitor.get("/s/\(token)/download").status == .unauthorized)

            let wrong = try await visitor.submit("/s/\(token)", from: "/s/\(token)", [("password", "open sesame 2")])
            #expect(wrong.status == .unauthorized && wrong.text.contains("That is not the password."))
            let right = try await visitor.submit("/s/\(token)", from: "/s/\(token)", [("password", "open sesame 1")])
            #expect(right.status == .seeOther && right.location == "/s/\(token)")
            let cookie = try #require(right.setCookieHeader(named: "selfie_share"))
            #expect(cookie.contains("Path=/s/\(token)") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
            let maxAge = try #require(cookie.firstCapture(of: #"Max-Age=([0-9]+)"#).flatMap(Int.init))
            #expect(maxAge <= 86400 && maxAge > 86000, "a day at most, and never past the link's expiry (a day here)")
            #expect(try await visitor.get("/s/\(token)").status == .ok)
            #expect(try await visitor.get("/s/\(token)/photos/\(s.camera)/thumb-400").status == .ok)
            let zip = try await visitor.get("/s/\(token)/download")
            #expect(zip.status == .ok && zip.headers[.contentType] == "application/zip")
            let members = try await zipMembers(zip.body)
            #expect(members.intact && Set(members.sha256.keys) == ["photo-1.jpg", "photo-2.jpg"], "numbered display copies, no file names")

            // The proof is this link's: the other link with the same password still asks.
            #expect(try await visitor.get("/s/\(other)").status == .unauthorized)
            // With the cookie the original is still not reachable.
            #expect(try await visitor.get("/s/\(token)/photos/\(s.camera)/original").status == .notFound)
            #expect(try await visitor.get("/photos/\(s.camera)/original").status == .seeOther)
            let forged = app.browser()
            forged.setCookie("selfie_share", "\(Int(Date().timeIntervalSince1970)).AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
            #expect(try await forged.get("/s/\(token)").status == .unauthorized)
            // A proof from more than a day ago no longer opens it, whatever the cookie's age.
            let proof = try #require(cookie.firstCapture(of: #"selfie_share=([^;]+)"#))
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let aged = try await core.whileRunning {
                let link = try await core.sharing.open(token: token)
                let tomorrow = core.sharing.withClock { Date().addingTimeInterval(86400 + 60) }
                // Another instance whose clock is a little behind still takes it; one far behind
                // (a proof "from the future") does not.
                let behind = core.sharing.withClock { Date().addingTimeInterval(-5) }
                let farBehind = core.sharing.withClock { Date().addingTimeInterval(-600) }
                return [core.sharing, tomorrow, behind, farBehind].map { $0.isUnlocked(link, proof: proof) }
            }
            #expect(aged == [true, false, true, false])
        }
    }

    @Test("wrong passwords are limited per link — guesses sent at once too — and the owner hears of it in the audit log")
    func passwordLimitPerLink() async throws {
        try await withTestApp(configure: { config in
            config.protection.lockoutThreshold = 3
            config.protection.signInsPerMinute = 1000
        }) { app in
            let s = try await Self.setUp(app)
            let token = try await s.owner.makeLink(("photo", s.camera), password: "open sesame 1")
            var guesses: [AtOnce.Request] = []
            for guess in 0..<8 { guesses.append(try await app.browser().formRequest("/s/\(token)", from: "/s/\(token)", [("password", "wrong guess \(guess)")])) }
            let port = try #require(app.client.port)
            let sent = guesses
            // The link's row is held until at least two guesses are being counted at once.
            let statuses = try await app.holding("SELECT 1 FROM share_links FOR UPDATE", untilWaiting: 2) {
                try await AtOnce.send(sent, port: port).map(\.status)
            }
            #expect(statuses.filter { $0 == 401 }.count == 3, "only three guesses checked: \(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 5)
            let locked = try await app.browser().submit("/s/\(token)", from: "/s/\(token)", [("password", "open sesame 1")])
            #expect(locked.status == .tooManyRequests && locked.text.contains("Too many wrong passwords for this link"))
            #expect(locked.headers[.retryAfter].flatMap(Int.init).map { $0 > 800 } == true)
            let audited: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'share_link.password_locked'")
            #expect(audited == 1, "once per lockout, not once per refused guess")
        }
    }

    @Test("the lockout window ends, and the right password starts the count again (the test moves the clock)")
    func passwordWindow() async throws {
        try await withTestApp(configure: { config in
            config.protection.lockoutThreshold = 3
            config.protection.signInsPerMinute = 1000
        }) { app in
            let s = try await Self.setUp(app)
            let token = try await s.owner.makeLink(("photo", s.camera), expires: "never", password: "open sesame 1")
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let outcomes = try await core.whileRunning {
                let link = try await core.sharing.open(token: token)
                let start = Date()
                func attempt(_ password: String, after seconds: TimeInterval) async throws -> String {
                    let at = core.sharing.withClock { start.addingTimeInterval(seconds) }
                    do {
                        _ = try await at.unlock(link, password: password, client: "192.0.2.1", origin: RequestOrigin(ipAddress: "192.0.2.1", userAgent: "test"))
                        return "open"
                    } catch ShareLinkError.wrongPassword {
                        return "wrong"
                    } catch is RateLimited {
                        return "locked"
                    }
                }
                var outcomes: [String] = []
                for password in ["a wrong one", "a wrong one", "open sesame 1", "a wrong one", "a wrong one", "a wrong one", "a wrong one"] {
                    outcomes.append(try await attempt(password, after: 0))
                }
                outcomes.append(try await attempt("open sesame 1", after: 899))
                outcomes.append(try await attempt("open sesame 1", after: 901))
                return outcomes
            }
            #expect(outcomes == ["wrong", "wrong", "open", "wrong", "wrong", "wrong", "locked", "locked", "open"])
        }
    }

    @Test("wrong passwords are limited per client across links")
    func passwordLimitPerClient() async throws {
        try await withTestApp(configure: { config in
            config.protection.signInsPerMinute = 3
        }) { app in
            let s = try await Self.setUp(app)
            let first = try await s.owner.makeLink(("photo", s.camera), password: "open sesame 1")
            let second = try await s.owner.makeLink(("photo", s.plain), password: "open sesame 1")
            let visitor = app.browser()
            for guess in 0..<3 {
                #expect(try await visitor.submit("/s/\(first)", from: "/s/\(first)", [("password", "guess \(guess)")]).status == .unauthorized)
            }
            #expect(try await visitor.submit("/s/\(second)", from: "/s/\(second)", [("password", "open sesame 1")]).status == .tooManyRequests)
        }
    }

    @Test("expiry: a week unless chosen, 'never' only when picked, any other choice refused; an expired link opens nothing (the test moves the clock)")
    func expiry() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            let week = try await s.owner.makeLink(("album", s.album), expires: nil)
            let day = try await s.owner.makeLink(("album", s.album), expires: "1")
            let never = try await s.owner.makeLink(("album", s.album), expires: "never")
            #expect(try await s.owner.submit("/links", from: "/albums/\(s.album)", [("album", s.album), ("expires", "3")]).status == .unprocessableContent)
            #expect(try await s.owner.submit("/links", from: "/albums/\(s.album)", [("album", s.album), ("photo", s.plain)]).status == .unprocessableContent)
            let lifetimes: [Double?] = try await app.db { client in
                try await client.query("SELECT extract(epoch FROM expires_at - created_at)::float8 FROM share_links ORDER BY id").collect()
                    .map { try $0.decode(Double?.self) }
            }
            #expect(lifetimes.count == 3)
            #expect(abs((lifetimes[0] ?? 0) - 7 * 86400) < 5 && abs((lifetimes[1] ?? 0) - 86400) < 5 && lifetimes[2] == nil)

            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let now = Date()
            let checks: [(String, TimeInterval, Bool)] = [
                (day, 86400 - 60, true), (day, 86400 + 60, false), (week, 6 * 86400, true), (week, 7 * 86400 + 60, false),
                (never, 3650 * 86400, true),
            ]
            let opened = try await core.whileRunning {
                var opened: [Bool] = []
                for (token, seconds, _) in checks {
                    let later = core.sharing.withClock { now.addingTimeInterval(seconds) }
                    do {
                        _ = try await later.open(token: token)
                        opened.append(true)
                    } catch ShareLinkError.notFound {
                        opened.append(false)
                    }
                }
                return opened
            }
            #expect(opened == checks.map(\.2), "a day, a week and never, just before and after")
            // Expired for real: every route is gone (the password form too, before any bcrypt), and
            // "my links" says so.
            let protected = try await s.owner.makeLink(("album", s.album), expires: "1", password: "open sesame 1", allowDownload: true)
            let visitor = app.browser()
            let form = try await visitor.csrfToken(on: "/s/\(protected)")
            try await app.db { try await $0.query("UPDATE share_links SET expires_at = now() - interval '1 second' WHERE expires_at - created_at < interval '2 days'") }
            for (token, path) in [(day, ""), (day, "/photos/\(s.camera)"), (day, "/photos/\(s.camera)/thumb-400"), (protected, "/download")] {
                #expect(try await app.browser().get("/s/\(token)\(path)").status == .notFound, "expired: \(path)")
            }
            let late = try await visitor.post("/s/\(protected)", form: [("_csrf", form), ("password", "open sesame 1")])
            #expect(late.status == .notFound)
            let counted: Int = try await app.scalar("SELECT password_failures FROM share_links WHERE password_hash IS NOT NULL")
            #expect(counted == 0, "an expired link's password is not even tried")
            #expect(try await s.owner.get("/links").text.contains("Expired "))
            #expect(try await app.browser().get("/s/\(week)").status == .ok)
        }
    }

    @Test("a link dies with its photo, its album and its owner, and shows nothing while the owner is disabled; a deleted photo leaves its albums")
    func linkLifetime() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            let albumLink = try await s.owner.makeLink(("album", s.album))
            let photoLink = try await s.owner.makeLink(("photo", s.plain))
            let visitor = app.browser()
            #expect(try await visitor.get("/s/\(photoLink)").status == .ok)

            try await app.db { try await $0.query("UPDATE users SET disabled = true") }
            for path in ["", "/photos/\(s.camera)", "/photos/\(s.camera)/thumb-400", "/download"] {
                #expect(try await visitor.get("/s/\(albumLink)\(path)").status == .notFound, "disabled owner: \(path)")
            }
            try await app.db { try await $0.query("UPDATE users SET disabled = false") }
            #expect(try await visitor.get("/s/\(albumLink)").status == .ok)

            // The photo goes: its link goes, and it leaves the album (whose link shows the rest).
            #expect(try await s.owner.submit("/photos/\(s.plain)/delete", from: "/photos/\(s.plain)/delete", []).status == .seeOther)
            #expect(try await visitor.get("/s/\(photoLink)").status == .notFound)
            #expect(try await s.owner.gridIDs("/albums/\(s.album)") == [s.camera])
            let shown = try await visitor.get("/s/\(albumLink)").text
            #expect(shown.contains(s.camera) && !shown.contains(s.plain))

            // The album goes: its link goes.
            _ = try await s.owner.submit("/albums/\(s.album)/delete", from: "/albums/\(s.album)/delete", [])
            #expect(try await visitor.get("/s/\(albumLink)").status == .notFound)
            let left: Int = try await app.scalar("SELECT count(*)::int FROM share_links")
            #expect(left == 0)

            // The owner goes: every link goes.
            let again = try await s.owner.makeLink(("photo", s.camera))
            try await app.db { try await $0.query("DELETE FROM users") }
            #expect(try await visitor.get("/s/\(again)").status == .notFound)
        }
    }

    @Test("an administrator sees a user's albums and live links, and turns every link off at once (audited)")
    func adminTurnsLinksOff() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            let live = try await s.owner.makeLink(("album", s.album), password: "open sesame 1")
            let expired = try await s.owner.makeLink(("photo", s.plain))
            try await app.db { try await $0.query("UPDATE share_links SET expires_at = now() - interval '1 minute' WHERE photo_id IS NOT NULL") }
            let admin = try await app.signedInAdmin()
            let ownerID = try await app.userID(s.email)
            let page = try await admin.get("/admin/users/\(ownerID)").text
            #expect(page.contains("<strong>Lake trip</strong><span class=\"meta\">2 photos</span>"))
            #expect(page.contains("Album “Lake trip”") && page.contains("· password · 0 views"))
            #expect(!page.contains("Photo “"), "the expired link is not live")
            #expect(try await app.browser().get("/s/\(live)").status == .unauthorized, "open before")
            let done = try await admin.submit("/admin/users/\(ownerID)/revoke-links", from: "/admin/users/\(ownerID)/revoke-links", [])
            #expect(done.location == "/admin/users/\(ownerID)?notice=links-revoked")
            #expect(try await app.browser().get("/s/\(live)").status == .notFound)
            #expect(try await app.browser().get("/s/\(expired)").status == .notFound)
            #expect(try await app.auditCount("admin.share_links_revoked", target: ownerID) == 1)
            #expect(try await s.owner.gridIDs("/albums/\(s.album)").count == 2, "albums and photos stay")
        }
    }

    @Test("forty views of one link at once are all counted: written within seconds with nobody asking, and at once when the owner lists links")
    func viewsCounted() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            let token = try await s.owner.makeLink(("album", s.album))
            let views = try await AtOnce.send(Array(repeating: app.browser().getRequest("/s/\(token)"), count: 40), port: try #require(app.client.port))
            #expect(views.allSatisfy { $0.status == 200 }, "\(views.map(\.status))")
            // Nobody lists the links: the tally writes them by itself (every second).
            var written: Int64 = 0
            for _ in 0..<100 where written < 40 {
                try await Task.sleep(for: .milliseconds(100))
                written = try await app.scalar("SELECT views FROM share_links")
            }
            #expect(written == 40)
            #expect(try await app.scalar("SELECT last_viewed_at IS NOT NULL FROM share_links", as: Bool.self))

            // A view just made shows in the owner's list at once, on every page that lists links.
            #expect(try await app.browser().get("/s/\(token)").status == .ok)
            #expect(try await s.owner.get("/links").text.contains("<td>41</td>"))
            #expect(try await app.browser().get("/s/\(token)").status == .ok)
            #expect(try await s.owner.get("/albums/\(s.album)").status == .ok)
            #expect(try await app.scalar("SELECT views FROM share_links", as: Int64.self) == 42, "the album's page lists its links, written first")
        }
    }

    @Test("a HEAD of a share page or its download counts no view and makes no ZIP")
    func headCountsNothing() async throws {
        // The limits on: a HEAD that used a download would leave four of the five.
        try await withTestApp(configure: { $0.protection = ProtectionConfiguration() }) { app in
            let s = try await Self.setUp(app)
            let token = try await s.owner.makeLink(("album", s.album), allowDownload: true)
            let visitor = app.browser()
            for path in ["/s/\(token)", "/s/\(token)/download"] {
                let head = try await visitor.send(path, method: .head, body: nil as String?, contentType: nil)
                #expect(head.status == .ok && head.body.readableBytes == 0, "\(path)")
            }
            #expect(try await s.owner.get("/links").text.contains("<td>0</td>"), "no view counted")
            // The download limit (five a minute per client) was not touched: five GETs still work.
            for _ in 1...5 {
                #expect(try await visitor.get("/s/\(token)/download").status == .ok)
            }
            #expect(try await visitor.get("/s/\(token)").status == .ok)
            #expect(try await s.owner.get("/links").text.contains("<td>1</td>"), "a GET is a view")
        }
    }

    @Test("views counted and not yet written are written when the server stops")
    func viewsWrittenAtStop() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            _ = try await s.owner.makeLink(("album", s.album))
            let linkID: Int64 = try await app.scalar("SELECT id FROM share_links")
            try await app.db { client in
                // An hour between writes: only the stop can write these.
                let tally = ShareViewTally(links: ShareLinkRepository(client: client, logger: testLogger), interval: .seconds(3600), logger: testLogger)
                let viewed = Date(timeIntervalSince1970: 1_900_000_000)
                for second in 0..<3 { tally.record(linkID: linkID, at: viewed.addingTimeInterval(Double(-second))) }
                let group = ServiceGroup(services: [tally], logger: testLogger)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    try await Task.sleep(for: .milliseconds(200))
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
                #expect(try await app.scalar("SELECT views FROM share_links", as: Int64.self) == 3)
                #expect(try await app.scalar("SELECT last_viewed_at FROM share_links", as: Date.self) == viewed, "the latest of the views")
            }
        }
    }

    @Test("tokens that are not tokens are not looked up; an unknown one is the same 404 as a revoked one")
    func malformedTokens() async throws {
        try await withTestApp { app in
            let visitor = app.browser()
            for token in ["short", String(repeating: "A", count: 32), String(repeating: "%", count: 32), String(repeating: "A", count: 33)] {
                let answer = try await visitor.get("/s/\(token)")
                #expect(answer.status == .notFound, "\(token)")
            }
        }
    }

    @Test("a link made while its album is being deleted is a 404, not a 500: the album is gone by the time the link's row is checked")
    func linkToAnAlbumBeingDeleted() async throws {
        try await withTestApp { app in
            let s = try await Self.setUp(app)
            // The test deletes the album in a transaction it holds open: the link's insert still
            // sees the album, then waits on its row, and finds it gone once the delete commits.
            let made = try await app.db { client in
                try await client.transaction(logger: testLogger) { connection in
                    try await connection.query("DELETE FROM albums WHERE public_id = \(s.album)", logger: testLogger)
                    let made = Task { try await s.owner.submit("/links", from: "/gallery", [("album", s.album), ("expires", "7")]) }
                    try await TestApp.untilSomeoneWaitsForALock(client)
                    return made
                }
            }
            let answer = try await made.value
            #expect(answer.status == .notFound, "\(answer.status) \(answer.text.prefix(300))")
            #expect(try await app.scalar("SELECT count(*)::int FROM share_links") == 0)
        }
    }
}
