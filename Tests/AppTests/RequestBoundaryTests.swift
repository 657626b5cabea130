@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import Testing

/// The security findings of the HTTP-boundary review, each with the check that closes it.
@Suite("Request boundaries: bounded parameters, secrets out of logs, throttled re-authentication, early refusals, upload caps, audit")
struct RequestBoundaryTests {
    @Test("an admin opening an absurd page number gets a 400 page, and the server keeps answering")
    func hugePageNumber() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            for page in ["9223372036854775807", "9223372036854775808", "-5", "0", "1e9", "abc"] {
                let response = try await admin.get("/admin/users?page=\(page)")
                #expect(response.status == .badRequest, "page=\(page)")
                #expect(response.text.contains("The page parameter must be a whole number from 1 to 1000000."))
            }
            #expect(try await admin.get("/admin/users?page=1000000").status == .ok, "the largest page is an empty page")
            #expect(try await admin.get("/admin/audit?before=-1").status == .badRequest)
            let user = app.browser()
            try await user.signUp(email: uniqueEmail())
            for cursor in ["99999999999999999999_1", "1_99999999999999999999", "253402300800000000_1", "1_0", "1", "x_y"] {
                let response = try await user.get("/gallery?after=\(cursor)")
                #expect(response.status == .badRequest, "after=\(cursor)")
                #expect(response.text.contains("is not a position in the gallery"))
            }
            #expect(try await user.get("/gallery?after=253402300799999999_9223372036854775807").status == .ok, "the last moment of 9999")
            #expect(try await app.client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test("request logs name the path and query keys only: no password, signature, CSRF token or OAuth code in any line; SQL lines carry the request id")
    func noSecretsInLogs() async throws {
        let capture = LogCapture()
        try await withTestApp(logger: capture.logger(level: .trace)) { app in
            let email = uniqueEmail("logged")
            let password = "a password nobody logs"
            let token = try await app.api.signedInUser(email: email, password: password)
            let encrypted = app.api.encrypt(password)
            let escaped = encrypted.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let getToken = try await app.api.send(.get, "/api/get_token?email=\(email)&password=\(escaped)", authorization: app.api.basicAuthorization)
            #expect(getToken.status == .ok)
            let photo = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "logged")
            let imageURL = try #require(try photo.json()["image_url"] as? String)
            let signature = try #require(URLComponents(string: imageURL)?.queryItems?.first { $0.name == "sig" }?.value)
            #expect(try await app.fetchImage(imageURL).status == .ok)

            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let csrf = try await browser.csrfToken(on: "/photos/new")
            #expect(try await browser.upload(image: TestImage.jpeg()).status == .seeOther)
            let code = "oauth-code-\(UUID().uuidString)"
            let state = "oauth-state-\(UUID().uuidString)"
            _ = try await browser.get("/auth/google/callback?code=\(code)&state=\(state)")
            // A share link's token opens the link: visited, wrongly posted to, and its image
            // missing, it appears in no line.
            let photoID = try await browser.uploadPhoto(TestImage.jpeg(size: 800, seed: 11))
            let shareToken = try await browser.makeLink(("photo", photoID))
            _ = try await app.browser().get("/s/\(shareToken)")
            _ = try await app.browser().post("/s/\(shareToken)", form: [("password", "no CSRF token")])
            _ = try await app.browser().get("/s/\(shareToken)/photos/nope/thumb-400")
            let gallery = try await browser.get("/gallery")
            let requestID = try #require(gallery.headers[.xRequestID])

            let lines = capture.all
            #expect(!lines.isEmpty)
            #expect(lines.contains { $0.contains("hb.request.path=/s/<token>/photos/nope/thumb-400") }, "logged, without its token")
            for secret in [encrypted, escaped, password, signature, csrf, code, state, token, shareToken] {
                let leaking = lines.filter { $0.contains(secret) }
                #expect(leaking.isEmpty, "\(secret) appears in: \(leaking.prefix(2))")
            }
            let tokenRequest = try #require(lines.first { $0.contains("hb.request.path=/api/get_token") })
            #expect(tokenRequest.contains("hb.request.query_keys=email,password"))
            let mediaRequest = try #require(lines.first { $0.contains("hb.request.path=/media/") })
            #expect(mediaRequest.contains("hb.request.query_keys=expires,sig"))
            // The gallery's SQL was logged with the gallery request's id.
            let sqlOfGallery = lines.filter { ($0.contains("psql_") || $0.contains("sql.statement=")) && $0.contains("hb.request.id=\(requestID)") }
            #expect(!sqlOfGallery.isEmpty, "no PostgreSQL log line carries the request id \(requestID)")
        }
    }

    @Test("a request line of 8,000 distinct query names and a long path is logged in a bounded line, and answered at once")
    func hugeQueryInTheLog() async throws {
        let capture = LogCapture()
        try await withTestApp(logger: capture.logger(level: .info)) { app in
            let names = (0..<8_000).map { "k\($0)=" }.joined(separator: "&")
            let answer = try await app.client.execute(uri: "/livez?\(names)", method: .get)
            #expect(answer.status == .ok)
            let longPath = "/" + String(repeating: "segment/", count: 4_000)
            #expect(try await app.client.execute(uri: longPath, method: .get).status == .notFound)

            let livez = try #require(capture.all.first { $0.contains("hb.request.path=/livez") })
            let (livezStart, livezBytes) = (String(livez.prefix(300)), livez.utf8.count)
            #expect(livezStart.contains("hb.request.query_keys=k0,k1,k2,"), "the first names, in order")
            #expect(livez.hasSuffix("(+7968 more)") || livez.contains("(+7968 more) "), "the rest counted, not listed")
            #expect(livezBytes < 2_000)
            let notFound = try #require(capture.all.first { $0.contains("hb.request.path=/segment/") })
            let (notFoundBytes, cut) = (notFound.utf8.count, notFound.contains("/segment/segment… "))
            #expect(notFoundBytes < 2_000)
            #expect(cut, "the path is cut, and says so")
            // Listing the names once each was quadratic: 20,000 names took seconds of an event loop.
            let many = URI("/livez?" + (0..<20_000).map { "n\($0)=" }.joined(separator: "&"))
            let started = ContinuousClock.now
            let keys = RequestLogLine.queryKeys(of: many)
            let elapsed = ContinuousClock.now - started
            #expect(keys.last == "(+19968 more)")
            let long = RequestLogLine.queryKeys(of: URI("/livez?" + String(repeating: "x", count: 70_000) + "=1"))
            #expect(long == [String(repeating: "x", count: 64) + "…"], "one long name is cut too")
            #expect(elapsed < .milliseconds(500), "listed in \(elapsed)")
        }
    }

    @Test("a form or an API call whose body dribbles in a byte at a time is answered 408 once its time is up, in the page's or the API's way; one that stops coming mid-read loses its connection")
    func dribbledBody() async throws {
        // 6 s: the 408 comes with the first byte after it (~6.25 s), the hard close for a read still
        // waiting a grace of 2 s later; with 1 s the two were 0.75 s apart, which a loaded CI machine
        // once did not keep (the connection closed before the answer).
        try await withTestApp(configure: { $0.smallBodyDeadline = .seconds(6) }) { app in
            let port = try #require(app.client.port)
            let form = Array("email=someone%40example.com&password=whatever1&_csrf=x".utf8)
            let web = try await RawHTTPClient.dribble(
                port: port,
                head: "POST /signin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.count)\r\n\r\n",
                body: form, every: .milliseconds(250)
            )
            #expect(web.status == 408, "the form: \(web.status)")
            #expect(web.elapsed < .seconds(10), "answered after \(web.elapsed), not when the body ended (13.5 s)")
            let json = Array(#"{"email":"someone@example.com","password":"whatever1"}"#.utf8)
            let api = try await RawHTTPClient.dribble(
                port: port,
                head: "POST /api/signin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(app.api.basicAuthorization)\r\nContent-Type: application/json\r\nContent-Length: \(json.count)\r\n\r\n",
                body: json, every: .milliseconds(250)
            )
            #expect(api.status == 408, "the API: \(api.status)")
            #expect(api.elapsed < .seconds(10))
            // A body that stops coming while it is read (the rest of a chunked body never sent):
            // its connection is closed once its time and a grace have passed, not after the idle timeout.
            let started = ContinuousClock.now
            let stalled = try await RawHTTPClient.sendStalling(
                port: port,
                head: "POST /api/signin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(app.api.basicAuthorization)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                body: Array("5\r\n{\"ema\r\n".utf8)
            )
            #expect(stalled == 0, "closed without an answer: \(stalled)")
            #expect(ContinuousClock.now - started < .seconds(15), "closed after \(ContinuousClock.now - started)")
            // A body that arrives in time is read as before.
            #expect(try await app.browser().signIn(email: uniqueEmail(), password: "whatever1").status == .unauthorized)
        }
    }

    @Test("a client that asks for a large original and never reads it is cut off once the answer has waited on it long enough; one that reads gets it whole, and so does one that reads slowly")
    func stalledReader() async throws {
        try await withTestApp(configure: { $0.stalledReaderTimeout = .seconds(1) }) { app in
            let port = try #require(app.client.port)
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let photo = TestImage.jpeg(size: 12 * 1024 * 1024, seed: 41)
            let id = try await browser.uploadPhoto(photo)
            // The owner's download of the original, streamed from the store as it is read.
            let path = WebPath.original(id)
            let whole = try await browser.get(path)
            #expect(whole.status == .ok && whole.body.readableBytes == photo.count, "read, it arrives whole: \(whole.status), \(whole.body.readableBytes) bytes")

            let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            let stalled = try await RawHTTPClient.askAndNeverRead(port: port, path: path, cookie: cookie, wait: .seconds(6))
            #expect(stalled.closedByServer, "the connection was still open")
            #expect(stalled.bytes < photo.count, "\(stalled.bytes) bytes arrived")

            // A slow reader is not a stalled one: 64 KB every 200 ms (320 KB/s) gets a 2 MB photo whole.
            let smaller = TestImage.jpeg(size: 2 * 1024 * 1024, seed: 42)
            let smallerPath = WebPath.original(try await browser.uploadPhoto(smaller))
            let slow = try await RawHTTPClient.readSlowly(port: port, path: smallerPath, cookie: cookie, chunk: 64 * 1024, every: .milliseconds(200))
            #expect(slow.declared == smaller.count && slow.received == smaller.count, "received \(slow.received) of \(slow.declared) bytes")
        }
    }

    @Test("wrong current passwords count like failed sign-ins: the 6th locks the account, on the account page and through the API")
    func currentPasswordLockout() async throws {
        try await withTestApp(configure: ProtectionTests.withProtection { _ in }) { app in
            let email = uniqueEmail("reauth")
            let browser = app.browser()
            try await browser.signUp(email: email)
            let form = { (current: String) in
                [("current_password", current), ("new_password", "a brand new password"), ("new_password_confirmation", "a brand new password")]
            }
            for _ in 1...5 {
                let wrong = try await browser.submit("/account/password", from: "/account", form("not my password"))
                #expect(wrong.status == .unprocessableContent)
                #expect(wrong.text.contains("This is not your current password."))
            }
            let locked = try await browser.submit("/account/password", from: "/account", form("correct horse battery"))
            #expect(locked.status == .tooManyRequests)
            #expect(locked.text.contains("Too many failed sign-ins for this account."))
            #expect(locked.headers[.retryAfter] != nil)
            #expect(try await app.browser().signIn(email: email).status == .tooManyRequests, "sign-in is locked too")
            #expect(try await app.auditCount("password.check_failed") == 5)

            // The API's reset_password counts the same way.
            let other = uniqueEmail("reauth-api")
            let token = try await app.api.signedInUser(email: other)
            let body = { (old: String) in
                "{\"old_password\":\"\(app.api.encrypt(old))\",\"new_password\":\"\(app.api.encrypt("a brand new password"))\"}"
            }
            for _ in 1...5 {
                let wrong = try await app.api.send(.post, "/api/reset_password", body: body("not my password"), authorization: "Token token=\(token)")
                #expect(try wrong.apiError() == (401, "The old password is not correct."))
            }
            let apiLocked = try await app.api.send(.post, "/api/reset_password", body: body("correct horse battery"), authorization: "Token token=\(token)")
            #expect(apiLocked.status == .tooManyRequests)
            #expect(try apiLocked.apiError().message.hasPrefix("Too many failed sign-ins for this account."))
        }
    }

    @Test("a client that writes its whole body before reading gets its refusal at once; one that sends on and on is cut off")
    func writeEverythingFirst() async throws {
        try await withTestApp { app in
            let port = try #require(app.client.port)
            let token = try await app.api.signedInUser()
            let size = 26 * 1024 * 1024
            let boundary = "write-first"
            let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]
            let partHead = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            func head(_ path: String, authorization: String, cookie: String = "") -> String {
                "POST \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(authorization)\r\n\(cookie)"
                    + "Content-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(size)\r\n\r\n"
            }
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let csrf = try await browser.csrfToken(on: "/photos/new")
            let cookie = "Cookie: " + browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") + "\r\n"
            let cases: [(String, String, [UInt8], Int)] = [
                ("API, too large", head("/api/upload_photo", authorization: "Token token=\(token)"), partHead + jpeg, 413),
                ("API, no valid token", head("/api/upload_photo", authorization: "Token token=nope"), partHead + jpeg, 401),
                ("web form, too large", head("/photos?_csrf=\(csrf)", authorization: "None", cookie: cookie), partHead + jpeg, 413),
            ]
            for (name, head, first, status) in cases {
                let answer = try await RawHTTPClient.writeEverythingThenRead(port: port, head: head, firstBytes: first, bodyBytes: size)
                #expect(answer.status == status, "\(name): \(answer.statusLine)")
                #expect(answer.elapsed < .seconds(5), "\(name) took \(answer.elapsed) (a refused body may linger 10 s at most)")
                #expect(!answer.closedByServer, "\(name): a body that ends soon enough leaves the connection usable")
            }
            // Without a declared length, the limit is found while reading: still within the time.
            let chunked = try await RawHTTPClient.writeEverythingThenRead(
                port: port,
                head: head("/api/upload_photo", authorization: "Token token=\(token)")
                    .replacingOccurrences(of: "Content-Length: \(size)", with: "Transfer-Encoding: chunked"),
                firstBytes: partHead + jpeg,
                bodyBytes: size,
                chunked: true
            )
            #expect(chunked.status == 413, "\(chunked.statusLine)")
            #expect(chunked.elapsed < .seconds(5), "chunked took \(chunked.elapsed)")
            // A body that is not an image is refused as soon as its first bytes are sniffed.
            let small = 1024 * 1024
            let notImage = try await RawHTTPClient.writeEverythingThenRead(
                port: port,
                head: head("/api/upload_photo", authorization: "Token token=\(token)").replacingOccurrences(of: "\(size)", with: "\(small)"),
                firstBytes: partHead + Array("plain text, not a photo".utf8) + Array(repeating: 0x41, count: 8192),
                bodyBytes: small
            )
            #expect(notImage.status == 415)
            #expect(notImage.elapsed < .seconds(5))
            // A refused body that goes on past what the server will read is cut off: within 5 s of
            // the answer (room for a loaded machine; the 10 s linger timer would close it later).
            let endless = 100 * 1024 * 1024
            let cutOff = try await RawHTTPClient.writeEverythingThenRead(
                port: port,
                head: head("/api/upload_photo", authorization: "Token token=nope").replacingOccurrences(of: "\(size)", with: "\(endless)"),
                firstBytes: partHead + jpeg,
                bodyBytes: endless,
                readFor: .seconds(5)
            )
            #expect(cutOff.status == 401)
            #expect(cutOff.closedByServer, "the server stops reading a refused body after 64 MiB")
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
            #expect(try await app.client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test("a client that expects 100-continue gets it once its body is wanted, and a refusal from the head alone before sending its body")
    func expectContinue() async throws {
        try await withTestApp { app in
            let port = try #require(app.client.port)
            let token = try await app.api.signedInUser()
            let photo = MultipartBody.iOS(image: TestImage.jpeg(size: 64 * 1024), title: "sent after its 100")
            func head(version: String = "1.1", token: String = token, length: Int = photo.body.readableBytes) -> String {
                "POST /api/upload_photo HTTP/\(version)\r\nHost: localhost\r\nAuthorization: Token token=\(token)\r\n"
                    + "Content-Type: \(photo.contentType)\r\nContent-Length: \(length)\r\nExpect: 100-Continue\r\n\r\n"
            }
            // Patience long enough that only a 100 that never came shows as the body sent after
            // waiting, even on a loaded machine (a passing run never waits it out).
            let patience = Duration.seconds(8)
            let upload = try await RawHTTPClient.expectingContinue(port: port, head: head(), body: photo.body, patience: patience)
            #expect(upload.statuses == [100, 200], "\(upload.finalHead)")
            #expect(upload.bodySent == .afterContinue)
            #expect(try await app.photoCount() == 1)

            // Refused from the head alone: the answer comes before the body, which is never sent.
            let refusals = [
                ("no valid token", head(token: "nope"), 401),
                ("too large", head(length: 26 * 1024 * 1024), 413),
            ]
            for (name, head, status) in refusals {
                let refused = try await RawHTTPClient.expectingContinue(port: port, head: head, body: photo.body, patience: patience)
                #expect(refused.statuses == [status], "\(name): \(refused.finalHead)")
                #expect(refused.bodySent == .never, "\(name)")
            }
            #expect(try await app.photoCount() == 1)

            // Pipelined: an upload whose body came with its head, then one that waits. The first
            // body's read asks for nothing; the second gets its 100 after the first's answer.
            var earlier = ByteBuffer(string: head())
            earlier.writeImmutableBuffer(photo.body)
            let pipelined = try await RawHTTPClient.expectingContinue(
                port: port, pipelinedBefore: earlier, head: head(), body: photo.body, patience: patience, finals: 2)
            #expect(pipelined.statuses == [200, 100, 200], "\(pipelined.finalHead)")
            #expect(pipelined.bodySent == .afterContinue)
            #expect(try await app.photoCount() == 3)

            // HTTP/1.0 knows no 1xx answers: the client waits, sends anyway, and gets only its answer.
            let old = try await RawHTTPClient.expectingContinue(
                port: port, head: head(version: "1.0"), body: photo.body, patience: .seconds(1))
            #expect(old.statuses == [200], "\(old.finalHead)")
            #expect(old.bodySent == .afterWaiting)
            #expect(try await app.photoCount() == 4)
            #expect(app.filesInBlobStore().isEmpty == false)
        }
    }

    @Test("uploads in progress are capped per user and per server (429 beyond), and one that trickles ends at the deadline with nothing stored")
    func uploadCaps() async throws {
        try await withTestApp(configure: { config in
            config.uploads.concurrent = 3
            config.uploads.concurrentPerUser = 2
            // Long enough that the refusals below happen while the trickles still hold their slots,
            // even on a machine at full load (3 s was not, once).
            config.uploads.deadline = .seconds(8)
        }) { app in
            let port = try #require(app.client.port)
            let first = try await app.api.signedInUser()
            let second = try await app.api.signedInUser()
            let third = try await app.api.signedInUser()
            let trickles = Trickles(port: port)
            try await trickles.start(token: first)
            try await trickles.start(token: first)
            // a third for the same user, while two are in progress
            let sameUser = try await app.api.uploadPhoto(token: first, image: TestImage.jpeg(), title: "")
            #expect(try sameUser.apiError() == (429, "Too many uploads are in progress. Wait for one to finish, then try again."))
            try await trickles.start(token: second)
            // the server's three slots are taken
            let anotherUser = try await app.api.uploadPhoto(token: third, image: TestImage.jpeg(), title: "")
            #expect(try anotherUser.apiError().status == 429)
            #expect(anotherUser.headers[.retryAfter] != nil)

            let answers = try await trickles.answers()
            #expect(answers == [408, 408, 408], "the trickling uploads end at the deadline")
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty, "nothing half-written is left")
            // the slots are free again
            #expect(try await app.api.uploadPhoto(token: third, image: TestImage.jpeg(), title: "").status == .ok)
        }
    }

    @Test("the audit log records what was typed as a login only when it is a well-formed email, or the username of an account (a password typed into the login field is never kept)")
    func auditKeepsOnlyLogins() async throws {
        try await withTestApp { app in
            let signUp = [("full_name", "Some User"), ("email", "some@example.com"), ("username", "some_user"), ("password", "correct horse battery"), ("password_confirmation", "correct horse battery")]
            #expect(try await app.browser().submit("/signup", from: "/signup", signUp).status == .seeOther)
            let browser = app.browser()
            _ = try await browser.signIn(email: "sunshine2024", password: "whatever it is")
            _ = try await browser.signIn(email: "my secret password!", password: "whatever it is")
            _ = try await browser.signIn(email: "nobody@example.com", password: "whatever it is")
            _ = try await browser.signIn(email: "some_user", password: "whatever it is")
            let targets: [String] = try await app.db { client in
                var targets: [String] = []
                for try await target in try await client.query("SELECT target FROM audit_events WHERE event = 'sign_in.failed' ORDER BY id")
                    .decode(String.self)
                {
                    targets.append(target)
                }
                return targets
            }
            #expect(targets == ["(a username of no account)", "(not an email or username)", "nobody@example.com", "some_user"])
        }
    }
}

/// Uploads that send their head and a few bytes, then one byte a second, each read in its own task.
actor Trickles {
    let port: Int
    private var tasks: [Task<Int, any Error>] = []

    init(port: Int) { self.port = port }

    /// Starts one and returns once the server has seen its head (it holds a slot from then on;
    /// the pause gives a loaded server time to read the head and take the slot).
    func start(token: String) async throws {
        let port = self.port
        let started = AsyncStream<Void>.makeStream()
        tasks.append(Task {
            try await RawHTTPClient.trickle(port: port, token: token, started: started.continuation)
        })
        for await _ in started.stream { break }
        try await Task.sleep(for: .milliseconds(500))
    }

    func answers() async throws -> [Int] {
        var statuses: [Int] = []
        for task in tasks { statuses.append(try await task.value) }
        return statuses
    }
}
