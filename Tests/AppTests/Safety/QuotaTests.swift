@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

extension TestApp {
    /// `GET /api/usage` for the token's user.
    func usage(token: String) async throws -> [String: Any] {
        try await api.send(.get, "/api/usage", authorization: "Token token=\(token)").json()
    }

    /// Sets the quota of the user whose token this is to what they use now plus `room` bytes.
    func leaveRoom(_ room: Int64, token: String) async throws -> Int64 {
        let used = try #require(try await usage(token: token)["used"] as? Int64)
        let hash = ByteBuffer(bytes: RandomToken.hash(token))
        try await db { client in
            try await client.query(
                "UPDATE users SET quota_bytes = \(used + room) WHERE id = (SELECT user_id FROM api_tokens WHERE token_hash = \(hash))"
            )
        }
        return used + room
    }
}


@Suite("Quotas: uploads past a user's quota are refused before anything is stored")
struct QuotaTests {
    @Test("an upload whose declared size cannot fit is refused from its head (413), before its body is read: the client is not left sending megabytes, nor waiting for the deadline")
    func refusedFromItsHead() async throws {
        try await withTestApp(configure: { $0.uploads.deadline = .seconds(3) }) { app in
            let token = try await app.api.signedInUser()
            _ = try await app.leaveRoom(1024, token: token)
            let port = try #require(app.client.port)
            let declared = 2 * 1024 * 1024
            let head = "POST /api/upload_photo HTTP/1.1\r\nHost: localhost\r\nAuthorization: Token token=\(token)\r\n"
                + "Content-Type: multipart/form-data; boundary=\(MultipartBody.iOSBoundary)\r\nContent-Length: \(declared)\r\n\r\n"
            let started = ContinuousClock.now
            // The first kilobyte of the body, then nothing: only the head can have refused it.
            let status = try await RawHTTPClient.sendStalling(port: port, head: head, body: Array(repeating: 0x2D, count: 1024))
            #expect(status == 413, "answered \(status)")
            #expect(ContinuousClock.now - started < .seconds(3), "before the deadline")
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("1 KB under the quota, a 2 MB photo: 413 with a clear message, and no blob, no row, no temporary file remain")
    func refusedUpfront() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            #expect(try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 1500, seed: 1), title: "first").status == .ok)
            let quota = try await app.leaveRoom(1024, token: token)
            let usage = try await app.usage(token: token)
            #expect(usage["quota"] as? Int64 == quota && usage["available"] as? Int64 == 1024 && usage["photos"] as? Int == 1)
            let files = app.filesInBlobStore()

            let refused = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 2 * 1024 * 1024, seed: 2), title: "too much")
            #expect(refused.status == .contentTooLarge)
            let error = try refused.apiError()
            #expect(error.status == 413)
            #expect(error.message.contains("does not fit in your storage: 1 KB left of"), "\(error.message)")
            #expect(error.message.contains("empty the trash"))
            #expect(try await app.photoCount() == 1)
            #expect(app.filesInBlobStore() == files, "no blob and no temporary file")

            // The browser's form says the same on the upload page.
            let browser = app.browser()
            let email = uniqueEmail()
            try await browser.signUp(email: email)
            let webToken = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            _ = try await app.leaveRoom(1024, token: webToken)
            let page = try await browser.upload(image: TestImage.jpeg(size: 2 * 1024 * 1024, seed: 3), title: "too much")
            #expect(page.status == .contentTooLarge)
            #expect(page.text.contains("does not fit in your storage: 1 KB left of"))
            #expect(page.text.contains("<form"), "the upload form, to try another photo")
            #expect(try await app.photoCount() == 1)
            #expect(app.filesInBlobStore() == files)
        }
    }

    @Test("a body of undeclared length is cut off once it passes what is left, and leaves no temporary file")
    func refusedWhileArriving() async throws {
        try await withTestApp { app in
            let port = try #require(app.client.port)
            let token = try await app.api.signedInUser()
            _ = try await app.leaveRoom(64 * 1024, token: token)
            let boundary = "no-length"
            let head = "POST /api/upload_photo HTTP/1.1\r\nHost: localhost\r\nAuthorization: Token token=\(token)\r\n"
                + "Content-Type: multipart/form-data; boundary=\(boundary)\r\nTransfer-Encoding: chunked\r\n\r\n"
            let first = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\n\r\n".utf8)
                + TestImage.jpeg(size: 8192, seed: 4)
            let answer = try await RawHTTPClient.writeEverythingThenRead(
                port: port, head: head, firstBytes: first, bodyBytes: 2 * 1024 * 1024, chunked: true)
            #expect(answer.status == 413, "\(answer.statusLine)")
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty, "the part written so far was removed: \(app.filesInBlobStore())")
        }
    }

    @Test("the original fits but not with its renditions: the insert refuses it and its blobs go")
    func refusedAtInsert() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            let image = TestImage.jpeg(size: 100 * 1024, seed: 5)
            // What is left covers the original and not much more: the checks before storing pass
            // (the declared size less its envelope, the bytes as they come), the one at insert must not.
            _ = try await app.leaveRoom(Int64(image.count) + 64, token: token)
            let refused = try await app.api.uploadPhoto(token: token, image: image, title: "")
            #expect(refused.status == .contentTooLarge)
            #expect(try refused.apiError().message.contains("does not fit in your storage"))
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty, "the original and its renditions were deleted again")
        }
    }

    @Test("two uploads at once, each fitting alone but not both: exactly one is stored")
    func racingUploads() async throws {
        try await withTestApp { app in
            let port = try #require(app.client.port)
            let token = try await app.api.signedInUser()
            let image = TestImage.jpeg(size: 50 * 1024, seed: 6)
            // One upload of this image, to learn what one takes with its renditions.
            let before = try #require(try await app.usage(token: token)["used"] as? Int64)
            #expect(try await app.api.uploadPhoto(token: token, image: image, title: "measure").status == .ok)
            let one = try #require(try await app.usage(token: token)["used"] as? Int64) - before
            let quota = try await app.leaveRoom(one + one / 2, token: token)
            let filesBefore = app.filesInBlobStore().count

            let (contentType, body) = MultipartBody.iOS(image: image, title: "racing")
            let head = "POST /api/upload_photo HTTP/1.1\r\nHost: localhost\r\nAuthorization: Token token=\(token)\r\n"
                + "Content-Type: \(contentType)\r\nContent-Length: \(body.readableBytes)\r\n\r\n"
            // Both requests are under way (each past the checks made before storing) before either ends.
            let barrier = Barrier(parties: 2)
            let release: @Sendable () async -> Void = {
                await barrier.arrive()
                try? await Task.sleep(for: .milliseconds(300))
            }
            async let first = RawHTTPClient.sendHoldingBackTheEnd(port: port, head: head, body: body, release: release)
            async let second = RawHTTPClient.sendHoldingBackTheEnd(port: port, head: head, body: body, release: release)
            let answers = try await [first, second]
            #expect(answers.map(\.status).sorted() == [200, 413], "\(answers)")
            let usage = try await app.usage(token: token)
            #expect(try #require(usage["used"] as? Int64) <= quota)
            #expect(usage["photos"] as? Int == 2)
            #expect(app.filesInBlobStore().count - filesBefore == 4, "one original and three renditions more; the refused one's are gone")
        }
    }

    @Test("the trash counts until it is emptied; the default quota applies to everyone without their own")
    func trashCountsAndDefault() async throws {
        try await withTestApp(configure: {
            $0.trashDays = 30
            $0.uploads.defaultQuotaBytes = 400 * 1024
        }) { app in
            let token = try await app.api.signedInUser()
            var usage = try await app.usage(token: token)
            #expect(usage["quota"] as? Int64 == 400 * 1024 && usage["used"] as? Int64 == 0 && usage["trash"] as? Int == 0)
            let big = TestImage.jpeg(size: 250 * 1024, seed: 7)
            let stored = try await app.api.uploadPhoto(token: token, image: big, title: "big")
            let id = try #require(try stored.json()["random_id"] as? String)
            #expect(try await app.api.deletePhoto(token: token, id: id).status == .ok)
            usage = try await app.usage(token: token)
            #expect(usage["photos"] as? Int == 0 && usage["trash"] as? Int == 1)
            #expect(try #require(usage["trash_bytes"] as? Int64) > 250 * 1024 && usage["trash_bytes"] as? Int64 == usage["used"] as? Int64)
            #expect(try await app.api.uploadPhoto(token: token, image: big, title: "again").status == .contentTooLarge, "the trash still takes room")
            let tus = TusTestClient(app: app, token: token)
            let resumable = try await tus.send(.post, "/api/uploads", headers: [TusTestClient.length: String(big.count)])
            #expect(resumable.status == .contentTooLarge, "for a resumable upload too (its creation counts under the user's lock)")
            _ = try await app.api.send(.delete, "/api/trash", authorization: "Token token=\(token)")
            #expect(try await app.usage(token: token)["used"] as? Int64 == 0)
            #expect(try await app.api.uploadPhoto(token: token, image: big, title: "again").status == .ok, "emptying the trash made room")
        }
    }

    @Test("the account page shows a bar; an admin sets a quota (default, none, MB) on the user page, audited; the dashboard ranks storage")
    func pages() async throws {
        try await withTestApp(configure: { $0.uploads.defaultQuotaBytes = 10 * 1024 * 1024 }) { app in
            let owner = app.browser()
            let email = uniqueEmail()
            try await owner.signUp(email: email)
            _ = try await owner.uploadPhoto(TestImage.jpeg(size: 300 * 1024, seed: 8))
            let account = try await owner.get("/account").text
            #expect(account.contains("of 10 MB used (3 %)") || account.contains("of 10 MB used (2 %)"), "\(account)")
            #expect(account.contains("<meter class=\"usage\""))
            #expect(account.contains("1 photo"))

            let adminEmail = uniqueEmail("admin")
            let admin = try await app.signedInAdmin(email: adminEmail)
            let id = try await app.userID(email)
            let page = try await admin.get("/admin/users/\(id)").text
            #expect(page.contains("The default (10 MB)") && page.contains("value=\"default\" checked"))
            let saved = try await admin.submit("/admin/users/\(id)/quota", from: "/admin/users/\(id)", [("quota", "custom"), ("megabytes", "1")])
            #expect(saved.status == .seeOther && saved.location == "/admin/users/\(id)?notice=quota-changed")
            #expect(try await app.scalar("SELECT quota_bytes FROM users WHERE id = \(id)", as: Int64?.self) == 1024 * 1024)
            #expect(try await owner.get("/account").text.contains("of 1 MB used"))
            #expect(try await app.auditCount("admin.quota_changed", target: id) == 1)
            let refused = try await owner.upload(image: TestImage.jpeg(size: 1024 * 1024, seed: 9))
            #expect(refused.status == .contentTooLarge)

            _ = try await admin.submit("/admin/users/\(id)/quota", from: "/admin/users/\(id)", [("quota", "none")])
            #expect(try await owner.get("/account").text.contains("used, no limit"))
            #expect(try await owner.upload(image: TestImage.jpeg(size: 1024 * 1024, seed: 9)).status == .seeOther)
            for refused in ["-5", "0", "1073741825"] {
                let bad = try await admin.submit("/admin/users/\(id)/quota", from: "/admin/users/\(id)", [("quota", "custom"), ("megabytes", refused)])
                #expect(bad.status == .unprocessableContent && bad.text.contains("whole number of MB"), "\(refused)")
            }
            // The service's own check, for any caller but this form: no quota of nothing (which the
            // database would keep as 0, read as no limit).
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            try await core.whileRunning {
                let actor = try #require(try await core.accounts.users.credentials(forEmail: adminEmail)).user
                await #expect(throws: AdminError.invalidQuota) {
                    try await core.admin.setQuota(.bytes(0), described: "0 bytes", on: id, by: actor, origin: RequestOrigin(ipAddress: "127.0.0.1", userAgent: "test"))
                }
            }
            _ = try await admin.submit("/admin/users/\(id)/quota", from: "/admin/users/\(id)", [("quota", "default")])
            #expect(try await app.scalar("SELECT quota_bytes FROM users WHERE id = \(id)", as: Int64?.self) == nil)

            let dashboard = try await admin.get("/admin").text
            #expect(dashboard.contains("Most storage") && dashboard.contains(email))
            let users = try await admin.get("/admin/users?sort=storage").text
            #expect(users.contains("<strong>most storage first</strong>"))
            let rows = try #require(users.components(separatedBy: "<tbody>").last)
            #expect(try #require(rows.range(of: email)).lowerBound < (try #require(rows.range(of: adminEmail))).lowerBound, "the largest first")
        }
    }
}
