@testable import App
@testable import SelfieCore
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// Photos as people take them, through the whole server: what every page and the API serves is
/// upright and carries no metadata; broken files and bombs are refused and leave nothing.
@Suite("Real photos: renditions served everywhere, nothing private in them, bombs refused")
struct RealPhotosTests {
    static let phonePhotos = ["camera.jpg", "photo.heic", "alpha.png", "cmyk.jpg", "deep.png", "animated.gif", "progressive.jpg"]

    static func bytes(_ fixture: String) throws -> [UInt8] {
        Array(try PhotoFixtures.bytes(fixture).readableBytesView)
    }

    /// Every image URL in a page's `src` and `srcset` attributes, unescaped.
    static func imageURLs(in html: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"(?:src|srcset)="([^"]+)""#)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).flatMap { match -> [String] in
            let value = String(html[Range(match.range(at: 1), in: html)!]).replacingOccurrences(of: "&amp;", with: "&")
            return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0] }.map(String.init)
        }.filter { $0.contains("/media/") }
    }

    @Test("every image the gallery, the photo page, the admin pages and the API serve is a rendition: upright, and without EXIF, GPS, XMP, IPTC or ICC")
    func servedRenditionsAreClean() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("phone")
            let token = try await app.api.signedInUser(email: email)
            let camera = try await app.api.uploadPhoto(token: token, image: try Self.bytes("camera.jpg"), title: "Tagged, rotated")
            #expect(camera.status == .ok)
            let browser = app.browser()
            _ = try await browser.signIn(email: email)
            for fixture in Self.phonePhotos.dropFirst() {
                let response = try await browser.upload(image: try Self.bytes(fixture), title: fixture)
                #expect(response.status == .seeOther, "\(fixture): \(response.text.prefix(300))")
            }
            var urls: Set<String> = []
            for photo in try await app.api.getPhotos(token: token).jsonArray() {
                urls.insert(try #require(photo["image_url"] as? String))
            }
            let gallery = try await browser.get("/gallery").text
            urls.formUnion(Self.imageURLs(in: gallery))
            for photo in try await browser.galleryPhotos() {
                urls.formUnion(Self.imageURLs(in: try await browser.get("/photos/\(photo.id)").text))
            }
            let admin = try await app.signedInAdmin()
            urls.formUnion(Self.imageURLs(in: try await admin.get("/admin/users/\(try await app.userID(email))").text))
            // The API's URLs of a display copy expire later than the photo page's: counted by blob.
            let blobs = Set(urls.compactMap { URLComponents(string: $0)?.path })
            #expect(blobs.count == Self.phonePhotos.count * 3, "three renditions of each photo, and nothing else")

            let folder = try OutputFolder()
            defer { folder.remove() }
            var files: [URL] = []
            for (index, url) in urls.sorted().enumerated() {
                let image = try await app.fetchImage(url)
                #expect(image.status == .ok)
                #expect(["image/webp", "image/jpeg"].contains(image.headers[.contentType] ?? ""), "\(url)")
                files.append(try folder.write(image.body, as: "served-\(index)"))
            }
            for record in try await ExifTool.read(files) {
                let forbidden = Set(record.keys).subtracting(ExifTool.allowedTags)
                #expect(forbidden.isEmpty, "\(record["SourceFile"] ?? "?") carries \(forbidden.sorted())")
            }

            // The camera photo (1200×800 stored, Orientation 6) is served upright: portrait.
            let display = try #require(try camera.json()["image_url"] as? String)
            let decoded = try await Pillow.decode(try folder.write(try await app.fetchImage(display).body, as: "display.jpg"))
            #expect(decoded.width == 800 && decoded.height == 1200, "\(decoded.width)×\(decoded.height)")
            // The progressive 4:4:4 JPEG (decoded on two threads; 1203×805 stored, Orientation 6) too.
            let progressive = try #require(try await browser.galleryPhotos().first { $0.title == "progressive.jpg" })
            let progressiveDisplay = try #require(Self.imageURLs(in: try await browser.get("/photos/\(progressive.id)").text).first)
            let upright = try await Pillow.decode(try folder.write(try await app.fetchImage(progressiveDisplay).body, as: "progressive.jpg"))
            #expect(upright.width == 805 && upright.height == 1203, "\(upright.width)×\(upright.height)")
            // The HEIC is served as a JPEG every browser shows.
            let heic = try #require(try await browser.galleryPhotos().first { $0.title == "photo.heic" })
            let heicPage = try await browser.get("/photos/\(heic.id)").text
            let heicDisplay = try #require(Self.imageURLs(in: heicPage).first)
            #expect(try await app.fetchImage(heicDisplay).headers[.contentType] == "image/jpeg")
        }
    }

    @Test("broken files and a decompression bomb are refused with 422 through the API and the form, and leave nothing behind")
    func brokenFilesLeaveNothing() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let refused: [(String, String)] = [
                ("truncated.jpg", "This photo is incomplete: the file was cut short. Please upload it again."),
                ("progressive-cut.jpg", "This photo is incomplete: the file was cut short. Please upload it again."),
                ("corrupt.jpg", "This photo could not be read: the file is damaged."),
                ("bomb.png", "This image has too many pixels: at most 100 megapixels."),
                ("sliver.png", "This image is too narrow or too tall to show (more than 20 to 1)."),
            ]
            for (fixture, message) in refused {
                let api = try await app.api.uploadPhoto(token: token, image: try Self.bytes(fixture), title: "")
                #expect(try api.apiError() == (422, message), "\(fixture)")
                let page = try await browser.upload(image: try Self.bytes(fixture))
                #expect(page.status == .unprocessableContent, "\(fixture)")
                #expect(page.text.contains(message.replacingOccurrences(of: "'", with: "&#39;")))
            }
            #expect(try await app.api.uploadPhoto(token: token, image: try Self.bytes("empty.jpg"), title: "").apiError().status == 422)
            #expect(try await app.api.uploadPhoto(token: token, image: try Self.bytes("not-an-image.txt"), title: "").apiError().status == 415)
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
        }
    }

    @Test("the pixel cap is the operator's to set")
    func pixelCap() async throws {
        try await withTestApp(configure: { $0.uploads.maxPixels = 500_000 }) { app in
            let token = try await app.api.signedInUser()
            let response = try await app.api.uploadPhoto(token: token, image: try Self.bytes("camera.jpg"), title: "")
            #expect(try response.apiError() == (422, "This image has too many pixels: at most 500000 pixels."))
            #expect(app.filesInBlobStore().isEmpty)
        }
    }

    @Test("the grid is thumbnails in a srcset with their size set; its URLs stay the same between visits and are cached as immutable")
    func gridIsCacheable() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await browser.upload(image: try Self.bytes("camera.jpg"))
            let first = try await browser.get("/gallery").text
            let image = try #require(first.firstCapture(of: #"(<img src="[^>]+>)"#))
            #expect(image.contains(#"width="267" height="400""#), "the 400 px thumbnail, upright")
            #expect(image.contains(" 267w, "), "\(image)")
            #expect(image.contains(" 533w\""), "\(image)")
            #expect(image.contains(#"sizes=""#))
            #expect(Self.imageURLs(in: first).allSatisfy { $0.contains(".webp?") }, "thumbnails only")
            let again = try await browser.get("/gallery").text
            #expect(Self.imageURLs(in: again) == Self.imageURLs(in: first), "the same URLs: the browser's cache works")
            let served = try await app.fetchImage(try #require(Self.imageURLs(in: first).first))
            let cacheControl = try #require(served.headers[.cacheControl])
            #expect(cacheControl.hasPrefix("private, max-age="))
            #expect(cacheControl.hasSuffix(", immutable"))
            // The original is only ever a download, from the photo page.
            let photo = try #require(try await browser.galleryPhotos().first)
            let page = try await browser.get("/photos/\(photo.id)").text
            #expect(page.contains(#"href="/photos/\#(photo.id)/original""#))
        }
    }

    @Test("get_photos pages with limit and before, oldest first in each page; without them it answers as before; a cursor photo deleted to the trash still pages")
    func apiPaging() async throws {
        try await withTestApp(configure: { $0.trashDays = 30 }) { app in
            let token = try await app.api.signedInUser()
            for number in 1...5 {
                #expect(try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(seed: UInt64(number)), title: "P\(number)").status == .ok)
            }
            func titles(_ query: String) async throws -> [String] {
                try await app.api.send(.get, "/api/get_photos\(query)", authorization: "Token token=\(token)").jsonArray()
                    .map { $0["title"] as? String ?? "" }
            }
            #expect(try await titles("") == ["P1", "P2", "P3", "P4", "P5"])
            #expect(try await titles("?limit=2") == ["P4", "P5"])
            let all = try await app.api.getPhotos(token: token).jsonArray()
            let p4 = try #require(all[3]["random_id"] as? String)
            #expect(try await titles("?limit=2&before=\(p4)") == ["P2", "P3"])
            #expect(try await titles("?before=\(p4)") == ["P1", "P2", "P3"])
            let tooMany = try await app.api.send(.get, "/api/get_photos?limit=201", authorization: "Token token=\(token)")
            #expect(try tooMany.apiError() == (400, "limit must be a whole number from 1 to 200."))
            let unknown = try await app.api.send(.get, "/api/get_photos?before=not-a-photo-of-mine", authorization: "Token token=\(token)")
            #expect(try unknown.apiError() == (404, "Photo not found"))
            // The app pages from the first photo it holds; that photo goes to the trash from another
            // device meanwhile: the next page still comes, without it.
            #expect(try await app.api.deletePhoto(token: token, id: p4).status == .ok)
            let p3 = try #require(all[2]["random_id"] as? String)
            #expect(try await app.api.deletePhoto(token: token, id: p3).status == .ok)
            #expect(try await titles("?limit=2&before=\(p4)") == ["P1", "P2"])
            #expect(try await titles("") == ["P1", "P2", "P5"])
            // Someone else's photo is no cursor, in the trash or not.
            let stranger = try await app.api.signedInUser()
            let foreign = try await app.api.send(.get, "/api/get_photos?before=\(p4)", authorization: "Token token=\(stranger)")
            #expect(try foreign.apiError() == (404, "Photo not found"))
        }
    }

    @Test("the backfill goes on past a photo whose original cannot be read (a bad sector): that one is listed as failed, the others get their renditions")
    func backfillPastAnUnreadableOriginal() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            var ids: [String] = []
            for seed: UInt64 in [1, 2] {
                let uploaded = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 4000, seed: seed), title: "Old \(seed)")
                ids.append(try #require(try uploaded.json()["random_id"] as? String))
            }
            // As photos stored before renditions existed: rows and originals, nothing else.
            let renditionKeys: [String] = try await app.db { client in
                var keys: [String] = []
                for try await key in try await client.query("DELETE FROM photo_renditions RETURNING blob_key").decode(String.self) { keys.append(key) }
                return keys
            }
            for key in renditionKeys { try await app.blobs.delete(try #require(BlobKey(key))) }
            // The first photo's original cannot be read: where its file was, a folder (read fails with EISDIR).
            let store = try #require(app.blobs as? FileBlobStore)
            let unreadable = store.path(for: try await app.blobKey(of: ids[0]))
            try FileManager.default.removeItem(atPath: unreadable)
            try FileManager.default.createDirectory(atPath: unreadable, withIntermediateDirectories: true)

            // What `selfie photos reprocess` runs (a PostgresClient runs once: one `whileRunning`).
            let services = try CoreServices(forWeb: app.config, logger: testLogger)
            let second = ids[1]
            let (report, again, asked, made, ended, left) = try await services.whileRunning {
                let report = try await services.backfill.run(missingOnly: true)
                // The background run five minutes later: a photo that failed is tried again an hour
                // later (each try reads its whole original from the store), not every time; asked
                // for (`selfie photos reprocess`), it is tried at once.
                let again = try await services.backfill.run(missingOnly: true, retryingRecentFailures: false)
                let asked = try await services.backfill.run(missingOnly: true)
                let made: Int = try await app.scalar(
                    "SELECT count(*)::int FROM photo_renditions r JOIN photos p ON p.id = r.photo_id WHERE p.public_id = \(second)"
                )
                // The database refusing the rows is no fault of one photo's: the run ends there
                // rather than listing every photo after it as failed (and making blobs for none).
                try await app.db { client in
                    try await client.query("DELETE FROM photo_renditions")
                    try await client.query("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the database refuses'; END $$")
                    try await client.query("CREATE TRIGGER refuse BEFORE INSERT ON photo_renditions FOR EACH ROW EXECUTE FUNCTION refuse()")
                }
                let before = Set(app.filesInBlobStore())
                let ended: Bool
                do {
                    _ = try await services.backfill.run(missingOnly: true)
                    ended = false
                } catch {
                    ended = true
                }
                return (report, again, asked, made, ended, Set(app.filesInBlobStore()).subtracting(before))
            }
            #expect(report.failed == [ids[0]], "\(report)")
            #expect(again == RenditionBackfill.Report(), "the failed photo waits an hour: \(again)")
            #expect(asked.failed == [ids[0]], "asked for, it is tried again: \(asked)")
            #expect(report.processed == 1)
            #expect(made == 3, "the second photo got its renditions")
            #expect(ended, "the run ends with the database's error")
            #expect(left.isEmpty, "the renditions made for rows the database refused are deleted again: \(left)")
        }
    }

    @Test("photos stored before renditions show a placeholder until the backfill makes them; --all remakes every one and the old blobs go")
    func backfill() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            let uploaded = try await app.api.uploadPhoto(token: token, image: try Self.bytes("camera.jpg"), title: "Old")
            let id = try #require(try uploaded.json()["random_id"] as? String)
            // As a photo stored before this change: a row and its original, nothing else.
            let renditionKeys: [String] = try await app.db { client in
                var keys: [String] = []
                for try await key in try await client.query("DELETE FROM photo_renditions RETURNING blob_key").decode(String.self) { keys.append(key) }
                try await client.query("UPDATE photos SET width = NULL, height = NULL")
                return keys
            }
            for key in renditionKeys { try await app.blobs.delete(try #require(BlobKey(key))) }
            #expect(app.filesInBlobStore().count == 1)
            let placeholder = try await app.api.getPhotos(token: token).jsonArray()
            let placeholderURL = try #require(placeholder.first?["image_url"] as? String)
            #expect(placeholderURL == "http://localhost/assets/img/preparing.png")
            // The app loads it as it loads any photo: an image, not a 404 page.
            let image = try await app.browser().get(String(placeholderURL.dropFirst("http://localhost".count)))
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            #expect(image.body.getBytes(at: 0, length: 8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")

            // What `selfie photos reprocess` runs (a PostgresClient runs once: one `whileRunning`).
            let services = try CoreServices(forWeb: app.config, logger: testLogger)
            let (missing, all, sweep, before, afterMissing, afterAll) = try await services.whileRunning {
                let missing = try await services.backfill.run(missingOnly: true)
                let afterMissing = Set(app.filesInBlobStore())
                let all = try await services.backfill.run(missingOnly: false)
                let afterAll = Set(app.filesInBlobStore())
                let sweep = try await services.sweeper.sweep(minimumAge: .zero)
                return (missing, all, sweep, renditionKeys, afterMissing, afterAll)
            }
            #expect(missing.processed == 1 && missing.failed.isEmpty && !missing.skipped)
            #expect(afterMissing.count == 4)
            #expect(before.allSatisfy { key in !afterMissing.contains { $0.hasSuffix(key) } }, "new renditions, new keys")
            let display = try #require(try await app.api.getPhotos(token: token).jsonArray().first?["image_url"] as? String)
            #expect(display.contains("/media/"))
            #expect(try await app.scalar("SELECT width FROM photos", as: Int.self) == 800)
            #expect(all.processed == 1)
            #expect(afterAll.count == 4)
            #expect(afterMissing.intersection(afterAll).count == 1, "--all remakes the renditions; only the original stays")
            // Nothing to sweep: every blob is a photo's original or one of its renditions.
            #expect(sweep.orphans.isEmpty)
            #expect(sweep.rowsMissingBlobs.isEmpty)
            #expect(try await app.api.deletePhoto(token: token, id: id).status == .ok)
            #expect(app.filesInBlobStore().isEmpty)
        }
    }

    @Test("the backfill runs with a pool of one connection (its lock is held on a connection of its own), and is skipped while another holds the lock")
    func backfillWithAPoolOfOne() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            try await app.api.uploadPhoto(token: token, image: try Self.bytes("camera.jpg"), title: "Old")
            try await app.db { client in
                try await client.query("DELETE FROM photo_renditions")
                try await client.query("UPDATE photos SET width = NULL, height = NULL")
            }
            var config = app.config
            config.database.maximumConnections = 1
            let services = try CoreServices(forWeb: config, logger: testLogger)
            // Another instance's run, holding the lock.
            let other = try await PostgresConnection.connect(configuration: config.database.connectionConfiguration(), id: 9, logger: testLogger)
            _ = try await other.query("SELECT pg_advisory_lock(\(RenditionBackfill.lockKey))", logger: testLogger)
            let (whileHeld, afterwards) = try await services.whileRunning {
                let whileHeld = try await withDeadline(longEnough) { try await services.backfill.run(missingOnly: true) }
                _ = try await other.query("SELECT pg_advisory_unlock(\(RenditionBackfill.lockKey))", logger: testLogger)
                try await other.close()
                // Before, the lock was held on one of the pool's connections while the run's
                // queries waited for another: with a pool of one, for ever.
                let afterwards = try await withDeadline(longEnough) { try await services.backfill.run(missingOnly: true) }
                return (whileHeld, afterwards)
            }
            #expect(whileHeld.skipped && whileHeld.processed == 0)
            #expect(!afterwards.skipped && afterwards.processed == 1 && afterwards.failed.isEmpty)
            #expect(try await app.scalar("SELECT count(*) FROM photo_renditions", as: Int.self) == 3)
        }
    }
}
