@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

@Suite("Capture time, albums and many photos at once, in the browser")
struct AlbumTests {
    static func fixture(_ name: String) throws -> [UInt8] { Array(try PhotoFixtures.bytes(name).readableBytesView) }

    @Test("a photo taken in 2019 comes after one uploaded earlier but taken in 2024; months group them; reprocess reads old photos' dates")
    func captureTime() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let taken2024 = try await browser.uploadPhoto(try Self.fixture("camera.jpg"), title: "Camera")
            let taken2019 = try await browser.uploadPhoto(try Self.fixture("taken-2019.jpg"), title: "Old")
            let undated = try await browser.uploadPhoto(TestImage.jpeg(size: 2000), title: "No date")
            // Uploaded in the order 2024, 2019, undated: shown latest taken first, the undated one by its upload time.
            #expect(try await browser.gridIDs("/gallery") == [undated, taken2024, taken2019])
            let gallery = try await browser.get("/gallery").text
            let months = try gallery.captures(of: #"<h2 id="month-[0-9-]+">([^<]+)</h2>"#)
            #expect(months.count == 3 && months[1] == "May 2024" && months[2] == "May 2019", "\(months)")
            let page = try await browser.get("/photos/\(taken2019)").text
            #expect(page.contains("Taken 1 May 2019, 08:00 UTC"), "10:00 at +02:00, shown in UTC")
            #expect(page.contains("Uploaded ") && !page.contains("Uploaded 1 May 2019"), "the upload's own time, not the capture's")
            let undatedPage = try await browser.get("/photos/\(undated)").text
            #expect(undatedPage.contains("Uploaded ") && !undatedPage.contains("Taken "), "no capture time: only the upload's")
            #expect(page.contains("rel=\"prev\" class=\"viewer-prev\" href=\"/photos/\(taken2024)\""), "newer: the 2024 photo")
            #expect(!page.contains("rel=\"next\""), "the oldest has no older photo")
            let stored: Date? = try await app.scalar("SELECT taken_at FROM photos WHERE public_id = \(taken2019)")
            #expect(stored == ISO8601DateFormatter().date(from: "2019-05-01T08:00:00Z"))

            // A photo stored before capture times were read: `selfie photos reprocess` reads it.
            try await app.db { try await $0.query("UPDATE photos SET taken_at = NULL WHERE public_id = \(taken2019)") }
            #expect(try await browser.gridIDs("/gallery") == [undated, taken2019, taken2024], "without its date it counts by its upload")
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let report = try await core.whileRunning { try await core.backfill.fillCaptureTimes() }
            #expect(report.processed == 1 && report.failed.isEmpty, "the undated photo's file has no date, so only one is found")
            #expect(try await browser.gridIDs("/gallery") == [undated, taken2024, taken2019])
        }
    }

    @Test("a capture time the camera wrote without its zone is shown as written in every viewer's zone (its month too); one with its offset moves into the viewer's zone")
    func localCaptureTime() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            browser.setCookie("selfie_zone", "America%2FLos_Angeles")
            // camera.jpg: "2024:05:01 12:34:56", no offset. taken-2019.jpg: "2019:05:01 10:00:00" at +02:00.
            let camera = try await browser.uploadPhoto(try Self.fixture("camera.jpg"), title: "Camera")
            let taken2019 = try await browser.uploadPhoto(try Self.fixture("taken-2019.jpg"), title: "Old")
            // Half an hour into a new year, no offset: in Los Angeles it must not fall in December.
            let newYearFile = FileManager.default.temporaryDirectory.appendingPathComponent("new-year-\(UUID()).jpg")
            defer { try? FileManager.default.removeItem(at: newYearFile) }
            try Data(try Self.fixture("taken-2019.jpg")).write(to: newYearFile)
            try Tool.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2024:01:01 00:30:00", "-OffsetTimeOriginal=", newYearFile.path])
            let newYear = try await browser.uploadPhoto(Array(try Data(contentsOf: newYearFile)), title: "New year")

            #expect(try await browser.get("/photos/\(camera)").text.contains("Taken 1 May 2024, 12:34<"), "as the camera wrote it, not 05:34")
            #expect(try await browser.get("/photos/\(taken2019)").text.contains("Taken 1 May 2019, 01:00<"), "08:00 UTC in Los Angeles")
            #expect(try await browser.get("/photos/\(newYear)").text.contains("Taken 1 Jan 2024, 00:30<"))
            let months = try await browser.get("/gallery").text.captures(of: #"<h2 id="month-[0-9-]+">([^<]+)</h2>"#)
            #expect(months == ["May 2024", "January 2024", "May 2019"], "\(months)")

            let local: [Bool] = try await app.db {
                try await $0.query("SELECT taken_at_local FROM photos WHERE public_id = ANY(\([camera, taken2019, newYear])) ORDER BY taken_at DESC")
                    .collect().map { try $0.decode(Bool.self) }
            }
            #expect(local == [true, true, false], "camera and new year: local times; 2019: a moment")

            // `selfie photos reprocess` (the capture times of photos stored before) reads whether it is local too.
            try await app.db { try await $0.query("UPDATE photos SET taken_at = NULL, taken_at_local = false WHERE public_id = \(camera)") }
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            _ = try await core.whileRunning { try await core.backfill.fillCaptureTimes() }
            #expect(try await app.scalar("SELECT taken_at_local FROM photos WHERE public_id = \(camera)") == true)
            #expect(try await browser.get("/photos/\(camera)").text.contains("Taken 1 May 2024, 12:34<"))
        }
    }

    @Test("albums: made from a selection, all or none added, someone else's album and photos refused, cover, rename, delete keeps the photos")
    func albums() async throws {
        try await withTestApp { app in
            let ada = app.browser()
            try await ada.signUp(email: uniqueEmail())
            let a = try await ada.uploadPhoto(TestImage.jpeg(size: 1500, seed: 1), title: "A")
            let b = try await ada.uploadPhoto(TestImage.jpeg(size: 1500, seed: 2), title: "B")
            let c = try await ada.uploadPhoto(TestImage.jpeg(size: 1500, seed: 3), title: "C")
            let bob = app.browser()
            try await bob.signUp(name: "Bob", email: uniqueEmail())
            let bobs = try await bob.uploadPhoto(TestImage.jpeg(size: 1500, seed: 4), title: "Bob's")

            let album = try await ada.makeAlbum("Holidays", of: [a, b])
            #expect(try await ada.gridIDs("/albums/\(album)") == [b, a])
            #expect(try await ada.get("/albums").text.contains("Holidays"))
            func albumCount() async throws -> Int {
                try await app.scalar("SELECT count(*)::int FROM album_photos ap JOIN albums al ON al.id = ap.album_id WHERE al.public_id = \(album)")
            }

            // One photo that is not Ada's: nothing is added, and Bob's photo is not revealed.
            let mixed = try await ada.select([c, bobs], action: "add", fields: [("target_album", album)])
            #expect(mixed.status == .notFound)
            #expect(try await albumCount() == 2)
            // Bob can neither see Ada's album nor put his photo in it.
            #expect(try await bob.get("/albums/\(album)").status == .notFound)
            #expect(try await bob.select([bobs], action: "add", fields: [("target_album", album)]).status == .notFound)
            #expect(try await albumCount() == 2)
            #expect(try await bob.submit("/albums/\(album)/delete", from: "/gallery", []).status == .notFound)

            // A new album with one photo that is not Ada's is not made at all.
            let albumsBefore: Int = try await app.scalar("SELECT count(*)::int FROM albums")
            #expect(try await ada.select([c, bobs], action: "add", fields: [("target_album", ""), ("new_album_title", "Half")]).status == .notFound)
            #expect(try await app.scalar("SELECT count(*)::int FROM albums") == albumsBefore)
            // The database itself holds an album to its owner's photos.
            var refusal = ""
            do {
                try await app.db { client in
                    try await client.query(
                        """
                        INSERT INTO album_photos (album_id, photo_id, user_id)
                        SELECT al.id, p.id, al.user_id FROM albums al, photos p WHERE al.public_id = \(album) AND p.public_id = \(bobs)
                        """
                    )
                }
            } catch let error as PSQLError {
                refusal = error.serverInfo?[.sqlState] ?? ""
            }
            #expect(refusal == "23503", "refused by the foreign key on (photo_id, user_id)")
            #expect(try await albumCount() == 2)
            let tooMany = try await ada.select((0...AlbumService.maxPhotosAtOnce).map { "p\($0)" }, action: "add", fields: [("target_album", album)])
            #expect(tooMany.status == .unprocessableContent && tooMany.text.contains("Select at most 500 photos at once."))
            let longTitle = String(repeating: "x", count: 201)
            #expect(try await ada.submit("/albums", from: "/albums", [("title", longTitle)]).status == .unprocessableContent)
            #expect(try await ada.submit("/albums", from: "/albums", [("title", String(longTitle.dropLast()))]).status == .seeOther)

            // Adding one already there counts once.
            #expect(try await ada.select([a, c], action: "add", fields: [("target_album", album)]).status == .seeOther)
            #expect(try await albumCount() == 3)

            let cover = try await ada.select([c], action: "cover", fields: [("album", album)], from: "/albums/\(album)")
            #expect(cover.location == "/albums/\(album)?notice=cover-chosen")
            let coverID: String? = try await app.scalar("SELECT p.public_id FROM albums al JOIN photos p ON p.id = al.cover_photo_id WHERE al.public_id = \(album)")
            #expect(coverID == c)
            #expect(try await ada.select([bobs], action: "cover", fields: [("album", album)], from: "/albums/\(album)").status == .unprocessableContent)

            let removed = try await ada.select([c], action: "remove", fields: [("album", album)], from: "/albums/\(album)")
            #expect(removed.location == "/albums/\(album)?notice=photos-removed")
            #expect(try await ada.gridIDs("/albums/\(album)") == [b, a])
            let coverAfter: Int64? = try await app.scalar("SELECT cover_photo_id FROM albums WHERE public_id = \(album)")
            #expect(coverAfter == nil, "the cover left with its photo")
            #expect(try await ada.gridIDs("/gallery").count == 3, "removed from the album, still in the gallery")

            let renamed = try await ada.submit("/albums/\(album)/edit", from: "/albums/\(album)", [("title", "  Summer  "), ("description", "By the sea")])
            #expect(renamed.location == "/albums/\(album)?notice=album-updated")
            let renamedPage = try await ada.get("/albums/\(album)").text
            #expect(renamedPage.contains("<h1>Summer</h1>") && renamedPage.contains("By the sea"))
            // A browser's maxlength counts a line break as one; the form sends it as two bytes.
            let lines = String(repeating: "a line\r\n", count: 250) + "end"  // 1,753 characters as typed, 2,003 as sent
            let described = try await ada.submit("/albums/\(album)/edit", from: "/albums/\(album)", [("title", "Summer"), ("description", lines)])
            #expect(described.location == "/albums/\(album)?notice=album-updated")
            let stored: String? = try await app.scalar("SELECT description FROM albums WHERE public_id = \(album)")
            #expect(stored == String(repeating: "a line\n", count: 250) + "end", "stored with \\n breaks")
            let tooLong = String(repeating: "a line\r\n", count: 286) + "end"  // 2,005 as typed
            #expect(try await ada.submit("/albums/\(album)/edit", from: "/albums/\(album)", [("title", "Summer"), ("description", tooLong)]).status == .unprocessableContent)
            let blank = try await ada.submit("/albums/\(album)/edit", from: "/albums/\(album)", [("title", "   ")])
            #expect(blank.status == .unprocessableContent)
            #expect(blank.text.contains("Give the album a name."), "the error beside the form")

            _ = try await ada.makeLink(("album", album))
            let deleted = try await ada.submit("/albums/\(album)/delete", from: "/albums/\(album)/delete", [])
            #expect(deleted.location == "/albums?notice=album-deleted")
            #expect(try await ada.get("/albums/\(album)").status == .notFound)
            #expect(try await ada.gridIDs("/gallery").count == 3, "the photos stay")
            let recorded: String = try await app.scalar("SELECT target FROM audit_events WHERE event = 'album.deleted' AND actor_id = target_user_id")
            #expect(recorded == "\(album) “Summer”, with 1 share link(s)", "the audit log names the album deleted, by its owner, and the link that went with it")
        }
    }

    @Test("many at once: the originals of a selection as one ZIP; delete after one confirmation; one photo not yours stops all")
    func bulk() async throws {
        try await withTestApp { app in
            let ada = app.browser()
            try await ada.signUp(email: uniqueEmail())
            let first = TestImage.jpeg(size: 1800, seed: 7)
            let second = try Self.fixture("camera.jpg")
            let a = try await ada.uploadPhoto(first, title: "A")
            let b = try await ada.uploadPhoto(second, title: "B")
            let c = try await ada.uploadPhoto(TestImage.jpeg(size: 1800, seed: 8), title: "C")
            let bob = app.browser()
            try await bob.signUp(name: "Bob", email: uniqueEmail())
            let bobs = try await bob.uploadPhoto(TestImage.jpeg(size: 1500, seed: 9))

            let zip = try await ada.select([a, b], action: "download")
            #expect(zip.status == .ok && zip.headers[.contentType] == "application/zip")
            let members = try await zipMembers(zip.body)
            #expect(members.intact)
            #expect(Set(members.sha256.values) == [sha256Hex(first), sha256Hex(second)], "the originals, byte for byte, metadata and all")
            #expect(members.sha256.keys.allSatisfy { $0.hasPrefix("selfie-") && !$0.contains("/") })
            #expect(try await ada.select([a, bobs], action: "download").status == .notFound)

            let confirm = try await ada.select([a, b], action: "delete")
            #expect(confirm.status == .ok && confirm.text.contains("Delete these 2 photos?"))
            #expect(app.filesInBlobStore().count == 16, "four photos, four blobs each")
            #expect(try await ada.submit("/photos/selection/delete", from: "/gallery", [("photo", a), ("photo", bobs)]).status == .notFound)
            #expect(try await app.photoCount() == 4, "nothing deleted when one is not hers")
            let deleted = try await ada.submit("/photos/selection/delete", from: "/gallery", [("photo", a), ("photo", b)])
            #expect(deleted.location == "/gallery?notice=photos-deleted")
            #expect(try await ada.gridIDs("/gallery") == [c])
            #expect(app.filesInBlobStore().count == 8, "their blobs went too")
            #expect(try await ada.submit("/photos/selection", from: "/gallery", [("action", "delete")]).status == .unprocessableContent, "nothing selected")
        }
    }

    @Test("the upload page's script gets JSON: 201 with the photo, or the refusal's status and message; nothing left of a refusal")
    func uploadAnswersJSON() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let id = try await browser.uploadPhoto(TestImage.jpeg(size: 1000))
            #expect(try await browser.gridIDs("/gallery") == [id])
            let token = try await browser.csrfToken(on: "/photos/new")
            let (contentType, body) = MultipartBody.browser(image: TestImage.text(), title: "", filename: "x.jpg")
            let refused = try await browser.send("/photos?_csrf=\(token)", method: .post, body: body, contentType: contentType, extraHeaders: [.accept: "application/json"])
            #expect(refused.status == .unsupportedMediaType)
            #expect(refused.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(try refused.json()["message"] as? String == "Only JPEG, PNG, GIF, WebP and HEIC photos can be uploaded.")
            #expect(try await app.photoCount() == 1)
            #expect(app.filesInBlobStore().count == 4)
        }
    }
}
