@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@Suite("The trash: deleted photos hidden everywhere, restorable, purged when their time is up")
struct TrashTests {
    static func withTrash(_ body: @escaping @Sendable (TestApp) async throws -> Void) async throws {
        try await withTestApp(configure: { $0.trashDays = 30 }, body)
    }

    @Test("a link's visitors load a photo's thumbnail again and again while its owner deletes it: refused from the moment the deletion is answered, never a server error")
    func deletionRacingALinksImages() async throws {
        try await Self.withTrash { app in
            let owner = app.browser()
            let email = uniqueEmail()
            try await owner.signUp(email: email)
            let doomed = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 3), title: "Doomed")
            let link = try await owner.makeLink(("album", try await owner.makeAlbum("One", of: [doomed])))
            let token = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            let image = "/s/\(link)/photos/\(doomed)/thumb-400"
            // Only the photo query's `trashed_at IS NULL` stands between a visitor and a deleted
            // photo of an album: the link itself stays open.
            let race = RaceLog()
            // The visitors on connections of their own (the test client's one connection would
            // make the deletion wait its turn behind them).
            let url = "http://127.0.0.1:\(try #require(app.client.port))\(image)"
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let stop = ContinuousClock.now + .seconds(2)
                        while ContinuousClock.now < stop {
                            let sent = ContinuousClock.now
                            let status = HTTPResponse.Status(code: try await plainGET(url).status)
                            race.requests.withLock { $0.append((sent, status)) }
                        }
                    }
                }
                try await Task.sleep(for: .milliseconds(500))
                #expect(try await app.api.deletePhoto(token: token, id: doomed).status == .ok)
                race.answeredAt.withLock { $0 = ContinuousClock.now }
                try await group.waitForAll()
            }
            let answered = try #require(race.answeredAt.withLock { $0 })
            let requests = race.requests.withLock { $0 }
            #expect(requests.allSatisfy { $0.status == .ok || $0.status == .notFound }, "\(Set(requests.map(\.status.code)))")
            #expect(requests.contains { $0.sent < answered && $0.status == .ok }, "served before the deletion")
            let after = requests.filter { $0.sent > answered }
            #expect(!after.isEmpty)
            #expect(after.allSatisfy { $0.status == .notFound }, "\(after.filter { $0.status != .notFound }.count) served after the deletion was answered")
        }
    }

    @Test("deleted: gone from the gallery, the API, its album and its share link, blobs kept; restored: back in all of them")
    func hiddenAndRestored() async throws {
        try await Self.withTrash { app in
            let owner = app.browser()
            let email = uniqueEmail()
            try await owner.signUp(email: email)
            let kept = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 1), title: "Kept")
            let doomed = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 2), title: "Doomed")
            let album = try await owner.makeAlbum("Both", of: [kept, doomed])
            let albumLink = try await owner.makeLink(("album", album))
            let photoLink = try await owner.makeLink(("photo", doomed))
            let api = app.api
            _ = try await api.signUp(email: uniqueEmail())
            let token = try #require(try await api.signIn(email: email).json()["api_authtoken"] as? String)
            let blobs = app.filesInBlobStore().count

            // The seed's request and answer, unchanged.
            let deleted = try await api.deletePhoto(token: token, id: doomed)
            #expect(deleted.status == .ok && deleted.text == #"{"message":"Image deleted","status":200}"#)
            #expect(try await owner.gridIDs("/gallery") == [kept])
            #expect(try await owner.gridIDs("/albums/\(album)") == [kept])
            #expect(try await api.getPhotos(token: token).jsonArray().map { $0["random_id"] as? String } == [kept])
            let visitor = app.browser()
            #expect(try await visitor.get("/s/\(photoLink)").status == .notFound)
            #expect(try await visitor.get("/s/\(albumLink)/photos/\(doomed)").status == .notFound)
            let albumPage = try await visitor.get("/s/\(albumLink)")
            #expect(albumPage.status == .ok && albumPage.text.contains(kept) && !albumPage.text.contains(doomed), "the link stays open, without the photo")
            #expect(try await owner.get("/photos/\(doomed)").status == .notFound)
            #expect(try await owner.get("/photos/\(doomed)/original").status == .notFound)
            let again = try await api.deletePhoto(token: token, id: doomed)
            #expect(again.status == .ok && again.text == deleted.text, "already in the trash: deleted, as asked (a retry after a lost answer)")
            #expect(app.filesInBlobStore().count == blobs, "its blobs stay while it is in the trash")

            let trash = try await api.send(.get, "/api/trash", authorization: "Token token=\(token)").jsonArray()
            #expect(trash.count == 1 && trash[0]["random_id"] as? String == doomed)
            let purgeAt = try #require((trash[0]["purge_at"] as? String).flatMap(apiDate))
            #expect(abs(purgeAt.timeIntervalSinceNow - 30 * 86400) < 120)
            #expect(try await owner.get("/trash").text.contains("value=\"\(doomed)\""))
            // The owner's list says the photo's link shows nothing now, and leads to the trash.
            let links = try await owner.get("/links").text
            #expect(links.contains("In the trash: shows nothing until you restore the photo"), "\(links)")
            #expect(links.contains(#"<a href="/trash">Doomed</a>"#))
            let listed = try await api.send(.get, "/api/share_links", authorization: "Token token=\(token)").jsonArray()
            let inTrash = listed.map { ($0["random_id"] as? String, $0["photo_in_trash"] as? Bool) }
            #expect(inTrash.count == 2 && inTrash.allSatisfy { $0.1 == ($0.0 == doomed) }, "\(listed)")

            let restored = try await api.send(.post, "/api/trash/restore", body: #"{"random_ids":["\#(doomed)","\#(kept)"]}"#, authorization: "Token token=\(token)")
            #expect(try restored.json()["message"] as? String == "1 photo(s) restored", "only what was in the trash")
            #expect(try await owner.gridIDs("/gallery").sorted() == [kept, doomed].sorted())
            #expect(try await owner.gridIDs("/albums/\(album)").count == 2)
            #expect(try await visitor.get("/s/\(photoLink)").status == .ok)
            let linksPage = try await owner.get("/links")
            #expect(linksPage.status == .ok && !linksPage.text.contains("In the trash"))
            #expect(try await api.getPhotos(token: token).jsonArray().count == 2)
        }
    }

    @Test("the web: delete and bulk delete go to the trash; restore, delete for good, empty; blobs go only then")
    func webTrash() async throws {
        try await Self.withTrash { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            let ids = [
                try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 3)),
                try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 4)),
                try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 5)),
            ]
            let confirm = try await owner.get("/photos/\(ids[0])/delete").text
            #expect(confirm.contains("It goes to the trash"))
            let single = try await owner.submit("/photos/\(ids[0])/delete", from: "/photos/\(ids[0])/delete", [])
            #expect(single.location == "/gallery?notice=trashed")
            let bulk = try await owner.submit("/photos/selection/delete", from: "/gallery", [("photo", ids[1]), ("photo", ids[2])])
            #expect(bulk.location == "/gallery?notice=photos-trashed")
            #expect(try await owner.gridIDs("/gallery").isEmpty)
            #expect(app.filesInBlobStore().count == 12)

            let restore = try await owner.submit("/trash", from: "/trash", [("photo", ids[0]), ("action", "restore")])
            #expect(restore.location == "/trash?notice=restored")
            #expect(try await owner.gridIDs("/gallery") == [ids[0]])
            let forever = try await owner.submit("/trash", from: "/trash", [("photo", ids[1]), ("action", "delete")])
            #expect(forever.location == "/trash?notice=trash-emptied")
            #expect(app.filesInBlobStore().count == 8, "its four blobs went")
            #expect(try await owner.submit("/trash", from: "/trash", [("photo", ids[0]), ("action", "delete")]).status == .seeOther)
            #expect(try await app.photoCount() == 2, "a photo outside the trash is not deleted for good from there")
            #expect(try await owner.submit("/trash/empty", from: "/trash", []).location == "/trash?notice=trash-emptied")
            #expect(try await app.photoCount() == 1 && app.filesInBlobStore().count == 4)
            #expect(try await owner.get("/trash").text.contains("The trash is empty."))
            let trashed: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'photo.trashed'")
            #expect(trashed == 3)
        }
    }

    @Test("a trash of more than a selection may name: the page shows the latest 500 and says how many there are; \"restore everything\" takes them all back, but not what is past its time")
    func largeTrash() async throws {
        try await Self.withTrash { app in
            let browser = app.browser()
            let email = uniqueEmail("hoarder")
            try await browser.signUp(email: email)
            let userID = try await app.userID(email)
            try await app.db {
                try await $0.query(
                    """
                    INSERT INTO photos (public_id, user_id, blob_key, content_type, byte_size, trashed_at)
                    SELECT 'bulk-trash-' || lpad(n::text, 12, '0'), \(userID), substr(md5(n::text) || md5('k' || n), 1, 32) || '.jpg', 'image/jpeg', 1000,
                           now() - n * interval '1 second'
                    FROM generate_series(1, 600) n
                    """
                )
                // Past its time (30 days): not restored, whatever the button says.
                try await $0.query("UPDATE photos SET trashed_at = now() - interval '31 days' WHERE public_id = 'bulk-trash-000000000600'")
            }
            let page = try await browser.get("/trash")
            #expect(page.status == .ok)
            #expect(page.text.components(separatedBy: #"<li class="photo-card">"#).count - 1 == 500)
            #expect(page.text.contains("Showing the 500 most recently deleted of 600 photos."))
            #expect(page.text.contains(#"value="bulk-trash-000000000001""#) && !page.text.contains(#"value="bulk-trash-000000000501""#), "the latest deleted")

            let restored = try await browser.submit("/trash/restore-all", from: "/trash", [])
            #expect(restored.location == "/trash?notice=not-restored", "one was past its time")
            #expect(try await app.scalar("SELECT count(*)::int FROM photos WHERE user_id = \(userID) AND trashed_at IS NULL") == 599)
            #expect(try await app.scalar("SELECT public_id FROM photos WHERE user_id = \(userID) AND trashed_at IS NOT NULL") == "bulk-trash-000000000600")
            #expect(!(try await browser.get("/trash").text.contains("Showing the")))
        }
    }

    @Test("another account's trash is out of reach: listing, restoring, deleting for good and emptying (web and API) touch only the account's own")
    func othersTrash() async throws {
        try await Self.withTrash { app in
            let bob = app.browser()
            try await bob.signUp(email: uniqueEmail())
            let bobs = try await bob.uploadPhoto(TestImage.jpeg(size: 1200, seed: 6), title: "Bob's")
            #expect(try await bob.submit("/photos/\(bobs)/delete", from: "/photos/\(bobs)/delete", []).location == "/gallery?notice=trashed")
            let alice = app.browser()
            let email = uniqueEmail()
            try await alice.signUp(email: email)
            let alices = try await alice.uploadPhoto(TestImage.jpeg(size: 1200, seed: 7), title: "Alice's")
            #expect(try await alice.submit("/photos/\(alices)/delete", from: "/photos/\(alices)/delete", []).location == "/gallery?notice=trashed")
            let api = app.api
            let token = try #require(try await api.signIn(email: email).json()["api_authtoken"] as? String)
            let blobs = app.filesInBlobStore().count
            func bobsTrash() async throws -> [String] { try await bob.gridIDs("/trash") }

            #expect(try await alice.gridIDs("/trash") == [alices])
            let listed = try await api.send(.get, "/api/trash", authorization: "Token token=\(token)").jsonArray()
            #expect(listed.map { $0["random_id"] as? String } == [alices])

            _ = try await alice.submit("/trash", from: "/trash", [("photo", bobs), ("action", "restore")])
            let restored = try await api.send(.post, "/api/trash/restore", body: #"{"random_ids":["\#(bobs)"]}"#, authorization: "Token token=\(token)")
            #expect(try restored.json()["message"] as? String == "0 photo(s) restored")
            #expect(try await bobsTrash() == [bobs], "still in Bob's trash")
            #expect(try await bob.gridIDs("/gallery").isEmpty)

            _ = try await alice.submit("/trash", from: "/trash", [("photo", bobs), ("action", "delete")])
            #expect(try await bobsTrash() == [bobs], "not deleted for good by another")
            #expect(try await alice.submit("/trash/empty", from: "/trash", []).location == "/trash?notice=trash-emptied")
            #expect(try await alice.gridIDs("/trash").isEmpty)
            #expect(try await bobsTrash() == [bobs], "Alice's empty trash left Bob's as it was")
            #expect(app.filesInBlobStore().count == blobs - 4, "only the four blobs of Alice's photo went")

            let again = try await alice.uploadPhoto(TestImage.jpeg(size: 1200, seed: 8))
            #expect(try await api.deletePhoto(token: token, id: again).status == .ok)
            let emptied = try await api.send(.delete, "/api/trash", authorization: "Token token=\(token)")
            #expect(try emptied.json()["message"] as? String == "1 photo(s) deleted for good")
            #expect(try await bobsTrash() == [bobs])
            #expect(try await bob.submit("/trash", from: "/trash", [("photo", bobs), ("action", "restore")]).location == "/trash?notice=restored")
            #expect(try await bob.gridIDs("/gallery") == [bobs], "Bob's own restore still works")
        }
    }

    @Test("the repository's own guard (the service checks ownership first; this is the SQL's half): trashing, deleting and deleting from the trash by public id touch only the given user's photos")
    func repositoryKeepsToTheUser() async throws {
        try await Self.withTrash { app in
            let bob = app.browser()
            try await bob.signUp(email: uniqueEmail())
            let shown = try await bob.uploadPhoto(TestImage.jpeg(size: 1200, seed: 9))
            let trashed = try await bob.uploadPhoto(TestImage.jpeg(size: 1200, seed: 10))
            _ = try await bob.submit("/photos/\(trashed)/delete", from: "/photos/\(trashed)/delete", [])
            let alice = uniqueEmail()
            try await app.browser().signUp(email: alice)
            let aliceID = try await app.userID(alice)
            try await app.db { client async throws in
                let photos = PhotoRepository(client: client, logger: testLogger)
                #expect(try await photos.trash(userID: aliceID, publicIDs: [shown]).isEmpty)
                #expect(try await photos.delete(userID: aliceID, publicIDs: [shown]).isEmpty)
                #expect(try await photos.deleteTrashed(userID: aliceID, publicIDs: [trashed]).isEmpty)
                #expect(try await photos.restore(userID: aliceID, publicIDs: [trashed], trashedAfter: .distantPast) == 0)
            }
            #expect(try await bob.gridIDs("/gallery") == [shown])
            #expect(try await bob.gridIDs("/trash") == [trashed])
        }
    }

    @Test("the purge (on a moved clock) deletes rows, then blobs, of what was trashed too long ago; a restored photo stays; an expired one cannot be restored")
    func purge() async throws {
        try await Self.withTrash { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            let old = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 6))
            let recent = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 7))
            let alive = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 8))
            for id in [old, recent] { _ = try await owner.submit("/photos/\(id)/delete", from: "/photos/\(id)/delete", []) }
            try await app.db { try await $0.query("UPDATE photos SET trashed_at = now() - interval '31 days' WHERE public_id = \(old)") }
            let late = try await owner.submit("/trash", from: "/trash", [("photo", old), ("action", "restore")])
            #expect(late.location == "/trash?notice=not-restored", "no \"Restored\" when nothing was")
            #expect(try await owner.get(try #require(late.location)).text.contains("Some photos were not restored"))
            #expect(try await owner.gridIDs("/gallery") == [alive], "past its time it is no longer restorable")

            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let oldKeys: [String] = try await app.db { client in
                try await client.query(
                    "SELECT blob_key FROM photos WHERE public_id = \(old) UNION ALL SELECT r.blob_key FROM photo_renditions r JOIN photos p ON p.id = r.photo_id WHERE p.public_id = \(old)"
                ).collect().map { try $0.decode(String.self) }
            }
            let (purged, laterPurged, left, thirtyOneDays) = try await core.whileRunning {
                let now = try await core.photos.purgeExpiredTrash()
                let later = try await core.photos.purgeExpiredTrash(now: Date().addingTimeInterval(29 * 86400))
                let left: [String] = try await app.db { try await $0.query("SELECT public_id FROM photos ORDER BY id").collect().map { try $0.decode(String.self) } }
                let thirtyOneDays = try await core.photos.purgeExpiredTrash(now: Date().addingTimeInterval(31 * 86400))
                return (now, later, left, thirtyOneDays)
            }
            #expect(purged == 1 && laterPurged == 0)
            let purgeRecords: Int = try await app.scalar(
                "SELECT count(*)::int FROM audit_events WHERE event = 'photo.deleted' AND actor_id IS NULL AND target_user_id IS NOT NULL AND user_agent = 'selfie periodic task'"
            )
            #expect(purgeRecords == 2, "each photo the purge deleted for good is in the audit log, by no one")
            #expect(oldKeys.count == 4)
            for key in oldKeys { #expect(try await app.blobs.exists(BlobKey(key)!) == false, "\(key) deleted") }
            #expect(left == [recent, alive])
            #expect(thirtyOneDays == 1)
            #expect(try await app.photoCount() == 1 && app.filesInBlobStore().count == 4)

            // Between the end of a photo's time and the purge there is an hour in which neither
            // takes it: a restore on an instance whose clock is behind the purge's by less than
            // that cannot bring back a photo whose blobs are being deleted.
            _ = try await owner.submit("/photos/\(alive)/delete", from: "/photos/\(alive)/delete", [])
            try await app.db { try await $0.query("UPDATE photos SET trashed_at = now() - interval '30 days 30 minutes' WHERE public_id = \(alive)") }
            #expect(try await owner.submit("/trash", from: "/trash", [("photo", alive), ("action", "restore")]).location == "/trash?notice=not-restored")
            let again = try CoreServices(forWeb: app.config, logger: testLogger)
            let (inTheGap, pastIt) = try await again.whileRunning {
                let now = try await again.photos.purgeExpiredTrash()
                let hourLater = try await again.photos.purgeExpiredTrash(now: Date().addingTimeInterval(3600))
                return (now, hourLater)
            }
            #expect(inTheGap == 0 && pastIt == 1)
        }
    }

    @Test("a blob the store will not delete holds back nothing: the purge takes every expired photo, and that blob stays queued until a later round deletes it")
    func purgeGoesOnPastABlobThatWillNotGo() async throws {
        try await Self.withTrash { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            var uploaded: [String] = []
            for seed in 20..<23 { uploaded.append(try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: UInt64(seed)))) }
            let ids = uploaded
            for id in ids { _ = try await owner.submit("/photos/\(id)/delete", from: "/photos/\(id)/delete", []) }
            // The oldest in the trash first: the one that will not go is first in the purge's batch.
            try await app.db { try await $0.query("UPDATE photos SET trashed_at = now() - interval '40 days' WHERE public_id = \(ids[0])") }
            try await app.db { try await $0.query("UPDATE photos SET trashed_at = now() - interval '35 days' WHERE public_id <> \(ids[0])") }
            let stuckKey: String = try await app.scalar("SELECT blob_key FROM photos WHERE public_id = \(ids[0])")
            // A directory with something in it where the original's file was: unlink(2) refuses it.
            let store = try #require(app.blobs as? FileBlobStore)
            let path = store.path(for: try #require(BlobKey(stuckKey)))
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path + "/held", withIntermediateDirectories: true)

            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let purged = try await core.whileRunning { try await core.photos.purgeExpiredTrash() }
            #expect(purged == 3, "every expired photo went")
            #expect(try await app.photoCount() == 0 && app.filesInBlobStore().isEmpty, "\(app.filesInBlobStore())")
            let queued: [String] = try await app.db { try await $0.query("SELECT blob_key FROM blob_deletions").collect().map { try $0.decode(String.self) } }
            #expect(queued == [stuckKey], "the one blob that stayed is queued")

            try FileManager.default.removeItem(atPath: path)
            #expect(FileManager.default.createFile(atPath: path, contents: Data("bytes".utf8)))
            let again = try CoreServices(forWeb: app.config, logger: testLogger)
            #expect(try await again.whileRunning { try await again.blobDeletions.retry(queuedBefore: .now) } == 1)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await app.scalar("SELECT count(*)::int FROM blob_deletions") == 0)
        }
    }

    @Test("TRASH_DAYS=0 deletes at once, as before; the setting is checked")
    func noTrash() async throws {
        try await withTestApp { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            let id = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 9))
            #expect(try await owner.get("/photos/\(id)/delete").text.contains("gone for good"))
            #expect(try await owner.submit("/photos/\(id)/delete", from: "/photos/\(id)/delete", []).location == "/gallery?notice=deleted")
            #expect(try await app.photoCount() == 0 && app.filesInBlobStore().isEmpty)

            // Photos left in the trash when it was turned off (TRASH_DAYS was 30) are not purged:
            // an instance started with 0 by mistake must not delete everyone's trash for good.
            // Their owner deletes them from the trash page.
            let left = try await owner.uploadPhoto(TestImage.jpeg(size: 1200, seed: 10))
            try await app.db { try await $0.query("UPDATE photos SET trashed_at = now() - interval '2 hours' WHERE public_id = \(left)") }
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            #expect(try await core.whileRunning { try await core.photos.purgeExpiredTrash() } == 0)
            #expect(try await app.photoCount() == 1)
            let trashPage = try await owner.get("/trash").text
            #expect(trashPage.contains(left) && !trashPage.contains("gone for good"), "no date it would be purged on")
            #expect(try await owner.submit("/trash", from: "/trash", [("photo", left), ("action", "delete")]).location == "/trash?notice=trash-emptied")
            #expect(try await app.photoCount() == 0 && app.filesInBlobStore().isEmpty)
        }
        #expect(throws: ConfigurationError.self) {
            _ = try AppConfiguration.load(from: [
                "SECRET_KEY": "test-secret-key-that-is-long-enough-0123456789", "DATABASE_URL": "postgres://u@localhost/d",
                "API_AUTH_NAME": "a", "API_AUTH_PASSWORD": "b", "TRASH_DAYS": "-1",
            ])
        }
    }
}

/// What requests racing a change saw: when each was sent and its answer; when the change was answered.
private final class RaceLog: Sendable {
    let requests = Mutex<[(sent: ContinuousClock.Instant, status: HTTPResponse.Status)]>([])
    let answeredAt = Mutex<ContinuousClock.Instant?>(nil)
}
