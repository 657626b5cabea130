@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SMTP
import Testing

/// What Python's zipfile reads in an archive: every member's name and SHA-256, `account.json`
/// parsed, and whether every member's CRC checks (`testzip`).
struct ReadArchive: Decodable {
    let names: [String]
    let sha256: [String: String]
    let account: Account
    let firstBadMember: String?
    /// `missing.txt`, when the archive has one.
    let missing: String?

    struct Account: Decodable {
        struct Photo: Decodable {
            let id: String
            let title: String
            let file: String
            let contentType: String
            let bytes: Int
            let takenAt: String?
            let trashedAt: String?
        }

        struct Album: Decodable {
            let id: String
            let title: String
            let description: String
            let photos: [String]
        }

        let fullName: String
        let email: String?
        let emailVerified: Bool
        let photos: [Photo]
        let albums: [Album]?
    }

    static func read(_ body: ByteBuffer) async throws -> ReadArchive {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID()).zip")
        try Data(body.readableBytesView).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import hashlib, json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as archive:
                names = archive.namelist()
                print(json.dumps({
                    "names": names,
                    "sha256": {n: hashlib.sha256(archive.read(n)).hexdigest() for n in names},
                    "account": json.loads(archive.read("account.json")),
                    "firstBadMember": archive.testzip(),
                    "missing": archive.read("missing.txt").decode() if "missing.txt" in names else None,
                }))
            """
        let json = try await OffThread.run { try Tool.run("python3", ["-c", script, file.path]) }
        return try JSONDecoder().decode(ReadArchive.self, from: json)
    }
}

func sha256Hex(_ bytes: [UInt8]) -> String {
    SigV4Signer.hexSHA256(bytes)
}

@Suite("Deleting an account, and a copy of one's data")
struct AccountDeletionAndExportTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case filesystem
        case s3
        var testDescription: String { rawValue }
    }

    @Test("deleting from the account page: the password confirms it; photos, blobs, sessions and tokens go; a goodbye is mailed")
    func deleteFromThePage() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("leaving")
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await browser.upload(image: TestImage.jpeg(size: 20_000), title: "one")
            try await browser.upload(image: TestImage.png(size: 20_000), title: "two")
            let token = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            let elsewhere = app.browser()
            try await elsewhere.signIn(email: email)
            #expect(try await app.blobs.list().count == 8, "two originals and their renditions")

            // Mail to the account still waiting to go (its server was unreachable a moment ago).
            try await app.db {
                try await $0.query(
                    """
                    INSERT INTO mail_outbox (message_id, recipient, kind, next_attempt_at)
                    VALUES ('<waiting@selfie.test>', \(email.uppercased()), 'password_changed', now() + interval '1 hour')
                    """
                )
            }
            let page = try await browser.get("/account").text
            #expect(page.contains("Delete my account"))
            let wrong = try await browser.submit("/account/delete", from: "/account", [("current_password", "not it at all")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains(#"id="delete_current_password-error">This is not your current password."#))
            #expect(try await app.photoCount() == 2, "nothing was deleted")

            let deleted = try await browser.submit("/account/delete", from: "/account", [("current_password", "correct horse battery")])
            #expect(deleted.status == .seeOther)
            #expect(deleted.location == "/signin?notice=account-deleted")
            #expect(deleted.setCookieHeader(named: "selfie_session")?.contains("Max-Age=0") == true)
            #expect(try await browser.get(deleted.location ?? "").text.contains("Your account, your photos and your sessions were deleted."))
            #expect(try await app.scalar("SELECT count(*)::int FROM users WHERE email = \(email)", as: Int.self) == 0)
            #expect(try await app.photoCount() == 0)
            #expect(try await app.blobs.list().isEmpty, "every blob is gone")
            #expect(try await app.scalar("SELECT count(*)::int FROM web_sessions", as: Int.self) == 0)
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)
            #expect(try await elsewhere.get("/gallery").status == .seeOther, "signed out everywhere")
            #expect(try await app.auditCount("account.deleted") == 1)
            let goodbye = try await MailSink.waitForMessage(to: email, subject: "Your Selfie account was deleted")
            #expect(goodbye.text.contains("deleted"))
            let waiting: [String] = try await app.db {
                try await $0.query("SELECT kind FROM mail_outbox WHERE lower(recipient) = lower(\(email)) AND sent_at IS NULL").collect().map { try $0.decode(String.self) }
            }
            #expect(waiting.isEmpty, "mail to the account that had not gone yet goes no more; the goodbye went: \(waiting)")
            #expect(try await app.browser().signIn(email: email).status == .unauthorized)
        }
    }

    @Test("deleting an account also drops the confirmation link still waiting to go to the address it was moving to: the link is dead, and that address's owner would hear of an account that is gone")
    func deletionDropsTheLinkToTheNewAddress() async throws {
        try await withTestApp(configure: { config in
            // The mail server is unreachable: what is queued waits.
            config.mail.transport = .smtp(try SMTPConfiguration(url: "smtp://127.0.0.1:1"))
            config.mail.from = MailSink.from
        }) { app in
            let email = uniqueEmail("moving")
            let newAddress = uniqueEmail("new-home")
            let browser = app.browser()
            try await browser.signUp(email: email)
            let asked = try await browser.submit("/account/email", from: "/account", [("email", newAddress), ("current_password", "correct horse battery")])
            #expect(asked.status == .seeOther, "\(asked.status)")
            let waitingToGo: @Sendable () async throws -> Int = {
                try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE lower(recipient) = lower(\(newAddress)) AND sent_at IS NULL")
            }
            #expect(try await waitingToGo() == 1, "the link to the new address waits for the mail server")

            let deleted = try await browser.submit("/account/delete", from: "/account", [("current_password", "correct horse battery")])
            #expect(deleted.location == "/signin?notice=account-deleted")
            #expect(try await waitingToGo() == 0, "it goes no more")
        }
    }

    @Test("deleting an account deletes its blobs even when the request is cancelled once its rows are gone (a deploy's shutdown): those it had no time for wait in the queue, and the background's round deletes them")
    func deletionOutlivesCancellation() async throws {
        let bucket = try await S3Peer.nanio.makeBucket()
        try await withTestApp(configure: { $0.blobStore = .s3(bucket) }) { app in
            let owner = app.browser()
            let email = uniqueEmail()
            try await owner.signUp(email: email)
            for seed in 0..<6 { _ = try await owner.uploadPhoto(TestImage.jpeg(size: 600, seed: UInt64(seed))) }
            #expect(try await app.blobs.list().count == 24)
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            try await core.whileRunning {
                let user = try #require(try await core.users.credentials(forEmail: email)?.user)
                let deleting = Task {
                    try await core.deletion.delete(
                        user, password: "correct horse battery", confirmedAt: .now, origin: RequestOrigin(ipAddress: "192.0.2.1", userAgent: "test")
                    )
                }
                // The rows go first, in one transaction; the blobs after, one request each.
                while try await app.scalar("SELECT count(*)::int FROM users WHERE email = \(email)") > 0 {
                    try await Task.sleep(for: .milliseconds(2))
                }
                deleting.cancel()
                _ = try? await deleting.value
            }
            let left = Set(try await app.blobs.list().map(\.key.value))
            let queued: [String] = try await app.db { try await $0.query("SELECT blob_key FROM blob_deletions").collect().map { try $0.decode(String.self) } }
            #expect(left.isSubset(of: Set(queued)), "every blob it did not delete is queued")
            #expect(left.count < 24, "the deletion went on after the cancellation")
            let background = try CoreServices(forWeb: app.config, logger: testLogger)
            _ = try await background.whileRunning { try await background.blobDeletions.retry(queuedBefore: .now) }
            #expect(try await app.blobs.list().isEmpty, "no photo of the deleted account is left in the store")
        }
    }

    @Test("a blob the store will not delete when its rows go (an account deleted, photos deleted from the trash) is queued and deleted by the next round, not left for an admin")
    func blobsThatWouldNotGoAreTriedAgain() async throws {
        try await withTestApp(configure: { $0.trashDays = 30 }) { app in
            let store = try #require(app.blobs as? FileBlobStore)
            /// A directory with something in it where the blob's file was: unlink(2) refuses it.
            func hold(_ key: String) throws -> String {
                let path = store.path(for: try #require(BlobKey(key)))
                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.createDirectory(atPath: path + "/held", withIntermediateDirectories: true)
                return path
            }
            let leaving = app.browser()
            let email = uniqueEmail("leaving")
            try await leaving.signUp(email: email)
            _ = try await leaving.uploadPhoto(TestImage.jpeg(size: 800, seed: 1))
            let leavingKey: String = try await app.scalar("SELECT blob_key FROM photos p JOIN users u ON u.id = p.user_id WHERE u.email = \(email)")
            let staying = app.browser()
            try await staying.signUp(email: uniqueEmail("staying"))
            let id = try await staying.uploadPhoto(TestImage.jpeg(size: 800, seed: 2))
            let trashedKey: String = try await app.scalar("SELECT blob_key FROM photos WHERE public_id = \(id)")
            _ = try await staying.submit("/photos/\(id)/delete", from: "/photos/\(id)/delete", [])
            let held = [try hold(leavingKey), try hold(trashedKey)]

            #expect(try await leaving.submit("/account/delete", from: "/account", [("current_password", "correct horse battery")]).status == .seeOther)
            #expect(try await staying.submit("/trash/empty", from: "/trash", []).location == "/trash?notice=trash-emptied")
            #expect(try await app.photoCount() == 0)
            let queued: [String] = try await app.db { try await $0.query("SELECT blob_key FROM blob_deletions ORDER BY blob_key").collect().map { try $0.decode(String.self) } }
            #expect(queued == [leavingKey, trashedKey].sorted(), "the two that stayed are queued; the others went at once")
            #expect(app.filesInBlobStore().isEmpty, "every rendition went at once: \(app.filesInBlobStore())")

            // The store lets go: each held place is an ordinary file again, which the round must delete.
            for path in held {
                try FileManager.default.removeItem(atPath: path)
                #expect(FileManager.default.createFile(atPath: path, contents: Data("bytes".utf8)))
            }
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let deleted = try await core.whileRunning { try await core.blobDeletions.retry(queuedBefore: .now) }
            #expect(deleted == 2)
            #expect(held.allSatisfy { !FileManager.default.fileExists(atPath: $0) } && app.filesInBlobStore().isEmpty)
            #expect(try await app.scalar("SELECT count(*)::int FROM blob_deletions") == 0)
        }
    }

    @Test("a store that does not answer: deleting an account and emptying a trash answer within seconds (not a read timeout per blob), the goodbye is queued, and the keys wait in the queue until the store answers")
    func storeThatDoesNotAnswer() async throws {
        try await SilentProxy.withBucket(on: .moto) { proxy, bucket in
            try await withTestApp(configure: { config in
                config.blobStore = .s3(bucket)
                config.trashDays = 30
                try config.useMailSink()
            }) { app in
                let leaving = app.browser()
                let email = uniqueEmail("leaving")
                try await leaving.signUp(email: email)
                for seed in 1...3 { _ = try await leaving.uploadPhoto(TestImage.jpeg(size: 800, seed: UInt64(seed))) }
                let staying = app.browser()
                try await staying.signUp(email: uniqueEmail("staying"))
                for seed in 4...6 {
                    let id = try await staying.uploadPhoto(TestImage.jpeg(size: 800, seed: UInt64(seed)))
                    _ = try await staying.submit("/photos/\(id)/delete", from: "/photos/\(id)/delete", [])
                }
                #expect(try await app.blobs.list().count == 24)

                proxy.goSilent()
                let started = ContinuousClock.now
                #expect(try await leaving.submit("/account/delete", from: "/account", [("current_password", "correct horse battery")]).status == .seeOther)
                #expect(try await staying.submit("/trash/empty", from: "/trash", []).location == "/trash?notice=trash-emptied")
                let took = ContinuousClock.now - started
                #expect(took < BlobDeletions.requestBudget * 2 + .seconds(5), "two answers in \(took): at most the request's budget each, not 30 s per blob")
                #expect(try await app.photoCount() == 0)
                #expect(try await app.scalar("SELECT count(*)::int FROM blob_deletions") == 24, "every key waits in the queue")
                #expect(
                    try await app.scalar("SELECT count(*)::int FROM blob_deletions WHERE attempts = 1 AND last_error LIKE 'no answer%'") == 2,
                    "the key each request gave up on goes behind the others"
                )
                #expect(try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(email) AND kind = 'account_deleted'") == 1)

                // The store answers again: the background round deletes them all.
                proxy.speakAgain()
                proxy.closeConnections()
                let core = try CoreServices(forWeb: app.config, logger: testLogger)
                let deleted = try await core.whileRunning { try await core.blobDeletions.retry(queuedBefore: .now) }
                #expect(deleted == 24)
                #expect(try await app.blobs.list().isEmpty)
                #expect(try await app.scalar("SELECT count(*)::int FROM blob_deletions") == 0)
            }
        }
    }

    @Test("the last administrator cannot delete their own account")
    func lastAdmin() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("only-admin")
            let admin = try await app.signedInAdmin(email: email, password: "admin password 1")
            let refused = try await admin.submit("/account/delete", from: "/account", [("current_password", "admin password 1")])
            #expect(refused.status == .conflict)
            #expect(refused.text.contains("You are the last administrator."))
            #expect(try await app.scalar("SELECT count(*)::int FROM users WHERE email = \(email)", as: Int.self) == 1)
        }
    }

    @Test("an account without a password confirms with a recent sign-in; after ten minutes it must sign in again")
    func withoutPassword() async throws {
        try await withFakeProviders { app, fake in
            let idToken = try await fake.idToken(
                audience: [iOSClientID], subject: "no-password-1", email: uniqueEmail("provider"), emailVerified: true, name: "Pat Provider"
            )
            let token = try #require(try await app.api.socialSignIn(["provider": "google", "id_token": idToken]).json()["api_authtoken"] as? String)
            try await app.db { try await $0.query("UPDATE api_tokens SET created_at = now() - interval '11 minutes'") }
            let stale = try await app.api.send(.post, "/api/delete_account", body: "{}", authorization: "Token token=\(token)")
            #expect(stale.status == .forbidden)
            #expect(try stale.apiError().message.contains("sign in again"))
            try await app.db { try await $0.query("UPDATE api_tokens SET created_at = now()") }
            let deleted = try await app.api.send(.post, "/api/delete_account", body: "{}", authorization: "Token token=\(token)")
            #expect(deleted.status == .ok)
            #expect(try await app.scalar("SELECT count(*)::int FROM users", as: Int.self) == 0)
        }
    }

    @Test("POST /api/delete_account with the token and the (encrypted) password")
    func deleteThroughTheAPI() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("api-leaving")
            let token = try await app.api.signedInUser(email: email)
            _ = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "x")
            let wrong = try await app.api.send(
                .post, "/api/delete_account", body: #"{"password":"\#(app.api.encrypt("wrong password"))"}"#, authorization: "Token token=\(token)"
            )
            #expect(try wrong.apiError() == (401, "The password is not correct."))
            let missing = try await app.api.send(.post, "/api/delete_account", body: "{}", authorization: "Token token=\(token)")
            #expect(missing.status == .unauthorized, "an account with a password must give it")
            let deleted = try await app.api.send(
                .post, "/api/delete_account", body: #"{"password":"\#(app.api.encrypt("correct horse battery"))"}"#, authorization: "Token token=\(token)"
            )
            #expect(deleted.status == .ok)
            #expect(try deleted.json()["message"] as? String == "Account deleted")
            #expect(try await app.photoCount() == 0)
            #expect(try await app.blobs.list().isEmpty)
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)
            let anonymous = try await app.api.send(.post, "/api/delete_account", body: "{}", authorization: nil)
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test("'Download my data': a streamed ZIP with every original as uploaded and account.json, from either store", arguments: Store.allCases)
    func export(store: Store) async throws {
        let bucket = store == .s3 ? try await S3Peer.nanio.makeBucket() : nil
        try await withTestApp(configure: { config in
            if let bucket { config.blobStore = .s3(bucket) }
        }) { app in
            let email = uniqueEmail("export")
            let browser = app.browser()
            try await browser.signUp(name: "Ada Lovelace", email: email)
            let uploads = [TestImage.jpeg(size: 30_000), TestImage.png(size: 25_000), TestImage.jpeg(size: 12_000)]
            for (index, image) in uploads.enumerated() {
                #expect(try await browser.upload(image: image, title: "photo \(index)", filename: index == 1 ? "p.png" : "p.jpg").status == .seeOther)
            }
            let response = try await browser.get("/account/export")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/zip")
            #expect(response.headers[.contentDisposition]?.hasPrefix(#"attachment; filename="selfie-export-"#) == true)
            #expect(response.headers[.contentLength] == nil, "streamed as it is written")
            #expect(response.headers[.cacheControl] == "private, no-store")

            let archive = try await ReadArchive.read(response.body)
            #expect(archive.firstBadMember == nil, "every CRC checks")
            #expect(archive.names.first == "account.json")
            #expect(archive.account.fullName == "Ada Lovelace")
            #expect(archive.account.email == email)
            #expect(archive.account.photos.count == 3)
            let uploadedHashes = Set(uploads.map(sha256Hex))
            let archivedHashes = Set(archive.account.photos.map { archive.sha256[$0.file] ?? "missing" })
            #expect(archivedHashes == uploadedHashes, "the originals, byte for byte")
            #expect(Set(archive.account.photos.map(\.title)) == ["photo 0", "photo 1", "photo 2"])
            #expect(archive.account.photos.allSatisfy { $0.file.hasPrefix("photos/") })
            #expect(try await app.auditCount("account.exported") == 1)

            let token = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            let api = try await app.api.send(.get, "/api/export", authorization: "Token token=\(token)")
            #expect(api.status == .ok)
            #expect(api.headers[.contentType] == "application/zip")
            #expect(Set(try await ReadArchive.read(api.body).sha256.values).isSuperset(of: uploadedHashes))
            #expect(try await app.api.send(.get, "/api/export", authorization: nil).status == .unauthorized)
            #expect(try await app.browser().get("/account/export").status == .seeOther, "signed out: to the sign-in page")
        }
    }

    @Test("'Download my data' says what it holds: each photo's capture time, the ones in the trash and since when, the albums and their photos; a photo whose file cannot be read is named in missing.txt, not silently left out")
    func exportSaysWhatItHolds() async throws {
        try await withTestApp(configure: { $0.trashDays = 30 }) { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail("export"))
            let kept = try await browser.uploadPhoto(TestImage.jpeg(size: 3000, seed: 1), title: "Kept")
            let lost = try await browser.uploadPhoto(TestImage.jpeg(size: 3000, seed: 2), title: "Lost")
            let trashed = try await browser.uploadPhoto(TestImage.jpeg(size: 3000, seed: 3), title: "Trashed")
            let album = try await browser.makeAlbum("Summer", of: [kept, lost])
            try await app.db { try await $0.query("UPDATE photos SET taken_at = '2024-07-01T10:00:00Z' WHERE public_id = \(kept)") }
            #expect(try await browser.submit("/photos/selection/delete", from: "/gallery", [("photo", trashed)]).status == .seeOther)
            try await app.blobs.delete(try await app.blobKey(of: lost))

            let archive = try await ReadArchive.read(try await browser.get("/account/export").body)
            #expect(archive.firstBadMember == nil)
            let photos = Dictionary(uniqueKeysWithValues: archive.account.photos.map { ($0.id, $0) })
            #expect(photos.count == 3, "every photo of the account is listed, the trash's too")
            #expect(photos[kept]?.takenAt?.hasPrefix("2024-07-01T10:00:00") == true)
            #expect(photos[trashed]?.trashedAt != nil && photos[kept]?.trashedAt == nil)
            #expect(archive.account.albums?.map(\.title) == ["Summer"])
            #expect(archive.account.albums?.first?.id == album)
            #expect(Set(archive.account.albums?.first?.photos ?? []) == [kept, lost])
            let lostFile = try #require(photos[lost]?.file)
            #expect(!archive.names.contains(lostFile))
            #expect(archive.missing?.contains(lostFile) == true, "the one left out is named: \(archive.missing ?? "no missing.txt")")
            for photo in archive.account.photos where photo.id != lost {
                #expect(archive.names.contains(photo.file))
            }
        }
    }

    @Test("'Download my data' from a store whose reads break off now and then (a reset, a SlowDown): each read goes on from where it stopped, and the archive is whole")
    func exportThroughAStoreThatHiccups() async throws {
        try await SilentProxy.withBucket(on: .nanio) { proxy, bucket in
            try await withTestApp(configure: { $0.blobStore = .s3(bucket) }) { app in
                let browser = app.browser()
                try await browser.signUp(email: uniqueEmail("hiccups"))
                let images = (1...2).map { TestImage.jpeg(size: 150_000, seed: UInt64(40 + $0)) }
                for image in images { _ = try await browser.uploadPhoto(image) }
                // Every connection to the store now breaks off after 60 KB of answers.
                proxy.breakReplies(after: 60 * 1024)
                let response = try await browser.get("/account/export")
                proxy.breakReplies(after: nil)
                #expect(response.status == .ok)
                let archive = try await ReadArchive.read(response.body)
                #expect(archive.firstBadMember == nil && archive.missing == nil)
                let photoFiles = archive.account.photos.map(\.file)
                #expect(Set(photoFiles.compactMap { archive.sha256[$0] }) == Set(images.map(sha256Hex)), "both originals, byte for byte")
            }
        }
    }

    @Test("an export whose body is never written (the client left before the answer's head went out) gives its slot back: the next export is not told for an hour that one is under way")
    func exportNeverWritten() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("gone")
            try await app.browser().signUp(email: email)
            let userID = try await app.userID(email)
            let services = try CoreServices(forWeb: app.config, logger: testLogger)
            try await services.whileRunning {
                let user = try #require(try await services.users.find(id: userID))
                // Hummingbird calls a body only once the head is written; here it never is.
                _ = try await services.export.archive(of: user, origin: RequestOrigin(ipAddress: "127.0.0.1", userAgent: "test"))
                try await waitUntil { try await app.scalar("SELECT count(*)::int FROM data_exports_running") == 0 }
            }
        }
    }

    @Test("'Download my data': one at a time per account, and three an hour")
    func exportLimits() async throws {
        try await withTestApp(configure: { $0.protection = ProtectionConfiguration() }) { app in
            let email = uniqueEmail("exports")
            let browser = app.browser()
            try await browser.signUp(email: email)
            let userID = try await app.userID(email)
            // An export of this account under way elsewhere (another tab, another instance).
            try await app.db { try await $0.query("INSERT INTO data_exports_running (user_id) VALUES (\(userID))") }
            let busy = try await browser.get("/account/export")
            #expect(busy.status == .conflict && busy.text.contains("already being downloaded"))
            try await app.db { try await $0.query("DELETE FROM data_exports_running") }
            // HEADs (`curl -I`, a link checker) get a GET's headers and use up nothing.
            for _ in 1...4 {
                let head = try await browser.send("/account/export", method: .head, body: nil as String?, contentType: nil)
                #expect(head.status == .ok && head.headers[.contentType] == "application/zip" && head.body.readableBytes == 0)
            }
            #expect(try await app.scalar("SELECT count(*)::int FROM data_exports_running") == 0, "a HEAD claims no slot")
            #expect(try await app.auditCount("account.exported") == 0)
            for _ in 1...3 {
                let export = try await browser.get("/account/export")
                #expect(export.status == .ok)
                _ = try await ReadArchive.read(export.body)
            }
            #expect(try await app.scalar("SELECT count(*)::int FROM data_exports_running") == 0, "each finished export freed its slot")
            let fourth = try await browser.get("/account/export")
            #expect(fourth.status == .tooManyRequests)
            #expect(fourth.text.contains("You have asked for this too often.") && !fourth.text.contains("your network"), "counted per account, not per network")
            #expect(try await app.scalar("SELECT count(*)::int FROM data_exports_running") == 0, "a refused export holds no slot")
        }
    }
}
