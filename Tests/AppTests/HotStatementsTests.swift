@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The statements every request sends, prepared (the default) and unprepared
/// (`DATABASE_PREPARED_STATEMENTS=off`, for PgBouncer in transaction mode before 1.21).
@Suite("Hot statements, prepared or not")
struct HotStatementsTests {
    /// What a person sees through the API and the gallery, with each photo's image named by its
    /// rendition (signed URLs differ from run to run).
    struct Seen: Equatable {
        var apiPhotos: [[String]]
        var galleryImages: Int
        var galleryURLs: Int
        var secondPageTitles: [String]
        var health: String
        /// An album of two of the three: its page's images, a share link's, the API's image kinds.
        var albumImages: Int
        var sharedImages: Int
        var albumAPIPhotos: [[String]]
        /// A photo's page (its images) and one image of the share link (status and type).
        var photoPageImages: Int
        var sharedImage: String
        /// The selection bar's albums ("add to album") on the gallery, by title: (value, title).
        var albumChoices: [[String]]
    }

    static func journey(prepared: Bool) async throws -> Seen {
        try await withTestApp(configure: { $0.database.preparedStatements = prepared }) { app in
            let email = uniqueEmail(prepared ? "prepared" : "unprepared")
            let token = try await app.api.signedInUser(email: email)
            for index in 1...3 {
                let image = TestImage.jpeg(size: 4096, seed: UInt64(index))
                #expect(try await app.api.uploadPhoto(token: token, image: image, title: "photo \(index)").status == .ok)
            }
            let listed = try await app.api.getPhotos(token: token).jsonArray()
            let displayKeys = try await app.db { client in
                var keys: [String] = []
                for try await key in try await client.query("SELECT blob_key FROM photo_renditions WHERE name = 'display-2048'").decode(String.self) {
                    keys.append(key)
                }
                return keys
            }
            let apiPhotos = listed.map { photo in
                let url = photo["image_url"] as? String ?? ""
                return [photo["title"] as? String ?? "", displayKeys.contains { url.contains($0) } ? "display" : "other"]
            }
            let browser = app.browser()
            _ = try await browser.signIn(email: email)
            let gallery = try await browser.get("/gallery")
            #expect(gallery.status == .ok)
            let images = gallery.text.components(separatedBy: "<img ").count - 1
            // The grid signs the two thumbnails it shows, not the display copy.
            let urls = Set(gallery.text.matches(of: /\/media\/[^" ,]+/).map { String($0.output) }).count
            #expect(!displayKeys.contains { gallery.text.contains($0) })
            // The second page of the API (before the newest photo) comes from the same statement.
            let newest = try #require(listed.last?["random_id"] as? String)
            let older = try await app.api.send(.get, "/api/get_photos?before=\(newest)", authorization: "Token token=\(token)").jsonArray()
            let health = try await app.client.execute(uri: "/healthz", method: .get)
            let ids = listed.compactMap { $0["random_id"] as? String }
            let album = try await browser.makeAlbum("Two", of: Array(ids.prefix(2)))
            let albumPage = try await browser.get("/albums/\(album)")
            _ = try await browser.makeAlbum("Another", of: [ids[2]])
            let bar = try await browser.get("/gallery").text.firstMatch(of: /id="target-album">(?s)(.*?)<\/select>/)?.output.1 ?? ""
            let choices = bar.matches(of: /<option value="([^"]+)">([^<]*)<\/option>/).map {
                [$0.output.1 == album ? "the album" : "another", String($0.output.2)]
            }
            let linkToken = try await browser.makeLink(("album", album))
            let shared = try await app.browser().get("/s/\(linkToken)")
            let sharedImage = try await app.browser().get("/s/\(linkToken)/photos/\(ids[0])/thumb-400")
            let photoPage = try await browser.get("/photos/\(ids[0])")
            let albumAPI = try await app.api.send(.get, "/api/albums/\(album)", authorization: "Token token=\(token)").json()
            let albumAPIPhotos = (albumAPI["photos"] as? [[String: Any]] ?? []).map { photo in
                let url = photo["image_url"] as? String ?? ""
                return [photo["title"] as? String ?? "", displayKeys.contains { url.contains($0) } ? "display" : "other"]
            }
            return Seen(
                apiPhotos: apiPhotos, galleryImages: images, galleryURLs: urls, secondPageTitles: older.compactMap { $0["title"] as? String },
                health: "\(health.status.code) \(String(buffer: health.body))",
                albumImages: albumPage.text.components(separatedBy: "<img ").count - 1,
                sharedImages: shared.text.components(separatedBy: "<img ").count - 1,
                albumAPIPhotos: albumAPIPhotos,
                photoPageImages: photoPage.text.components(separatedBy: "<img ").count - 1,
                sharedImage: "\(sharedImage.status.code) \(sharedImage.headers[.contentType] ?? "")",
                albumChoices: choices
            )
        }
    }

    @Test("prepared and unprepared, the API, the gallery, an album, its share link and /healthz show the same")
    func sameAnswers() async throws {
        let prepared = try await Self.journey(prepared: true)
        let unprepared = try await Self.journey(prepared: false)
        #expect(prepared == unprepared)
        #expect(prepared.apiPhotos == [["photo 1", "display"], ["photo 2", "display"], ["photo 3", "display"]])
        #expect(prepared.galleryImages == 3)
        #expect(prepared.galleryURLs == 6, "two signed thumbnails per card")
        #expect(prepared.secondPageTitles == ["photo 1", "photo 2"])
        #expect(prepared.health == #"200 {"status":"ok"}"#, "the health probe's SELECT 1")
        #expect(prepared.albumImages == 2 && prepared.sharedImages == 2, "an album's page and its link show its two photos")
        #expect(prepared.albumAPIPhotos == [["photo 2", "display"], ["photo 1", "display"]], "in gallery order, each with its display copy")
        #expect(prepared.photoPageImages == 1 && prepared.sharedImage == "200 image/webp", "a photo's page, a link's thumbnail")
        #expect(prepared.albumChoices == [["another", "Another"], ["the album", "Two"]], "the user's albums by title")
    }

    @Test("a photo by its id (renditions joined by name) has the renditions a list of photos gives it (packed in one text), a bad key left out, prepared or not")
    func photoByPublicIDMatchesTheList() async throws {
        for prepared in [true, false] {
            try await withTestApp(configure: { $0.database.preparedStatements = prepared }) { app in
                let token = try await app.api.signedInUser(email: uniqueEmail("by-id"))
                #expect(try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 4096, seed: 7), title: "one").status == .ok)
                let id = try #require(try await app.api.getPhotos(token: token).jsonArray().first?["random_id"] as? String)
                try await app.db { try await $0.query("UPDATE photo_renditions SET blob_key = 'not a key' WHERE name = 'thumb-800'") }
                let (byID, listed) = try await app.db { client in
                    let photos = PhotoRepository(client: client, preparedStatements: prepared, logger: testLogger)
                    let userID = try #require(try await client.query("SELECT id FROM users").collect().first?.decode(Int64.self))
                    return (try await photos.find(userID: userID, publicID: id), try await photos.find(userID: userID, publicIDs: [id]).first)
                }
                let one = try #require(byID)
                #expect(one.renditions.map(\.name) == [.display, .thumbnail400], "prepared: \(prepared)")
                #expect(one.renditions == listed?.renditions, "prepared: \(prepared)")
            }
        }
    }
}
