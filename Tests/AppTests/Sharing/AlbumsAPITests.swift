@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Albums and share links in the API")
struct AlbumsAPITests {
    static func upload(_ api: APIClient, _ token: String, _ image: [UInt8], title: String = "") async throws -> String {
        let answer = try await api.uploadPhoto(token: token, image: image, title: title)
        guard let id = try answer.json()["random_id"] as? String else { throw TestSetupError("upload refused: \(answer.text)") }
        return id
    }

    @Test("photos gain taken_at (null when the file does not say); the seed's fields are unchanged")
    func takenAt() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            let uploaded = try await app.api.uploadPhoto(token: token, image: Array(try PhotoFixtures.bytes("taken-2019.jpg").readableBytesView), title: "Old")
            #expect(try uploaded.json()["taken_at"] as? String == "2019-05-01T08:00:00.000Z")
            _ = try await Self.upload(app.api, token, TestImage.jpeg(size: 1000))
            let listed = try await app.api.getPhotos(token: token).jsonArray()
            #expect(listed.count == 2)
            #expect(listed.allSatisfy { Set($0.keys) == ["image_url", "name", "random_id", "taken_at", "title"] })
            #expect(listed[0]["taken_at"] as? String == "2019-05-01T08:00:00.000Z")
            #expect(listed[1]["taken_at"] is NSNull)
        }
    }

    @Test("albums: make, list, show with its photos, rename, cover, add (all or none), remove, delete; someone else's album is a 404")
    func albums() async throws {
        try await withTestApp { app in
            let api = app.api
            let ada = try await api.signedInUser()
            let bob = try await api.signedInUser()
            let auth = "Token token=\(ada)"
            let a = try await Self.upload(api, ada, TestImage.jpeg(size: 1000, seed: 1), title: "A")
            let b = try await Self.upload(api, ada, TestImage.jpeg(size: 1000, seed: 2), title: "B")
            let bobs = try await Self.upload(api, bob, TestImage.jpeg(size: 1000, seed: 3))

            let made = try await api.send(.post, "/api/albums", body: #"{"title":" Trip ","description":"Sea"}"#, authorization: auth)
            #expect(made.status == .created)
            let album = try #require(try made.json()["id"] as? String)
            #expect(try made.json()["title"] as? String == "Trip" && (try made.json()["cover_random_id"]) is NSNull)
            #expect(try await api.send(.post, "/api/albums", body: #"{"title":"  "}"#, authorization: auth).apiError() == (422, "Give the album a name."))
            #expect(try await api.send(.post, "/api/albums", body: #"{"title":5}"#, authorization: auth).apiError() == (400, "The field title has the wrong type."))

            let mixed = try await api.send(.post, "/api/albums/\(album)/photos", body: #"{"random_ids":["\#(a)","\#(bobs)"]}"#, authorization: auth)
            #expect(mixed.status == .notFound)
            let added = try await api.send(.post, "/api/albums/\(album)/photos", body: #"{"random_ids":["\#(a)","\#(b)"]}"#, authorization: auth)
            #expect(try added.json()["photo_count"] as? Int == 2, "none of the mixed request went in; both of these did")
            #expect(try await api.send(.post, "/api/albums/\(album)/photos", body: #"{"random_ids":[]}"#, authorization: auth).status == .unprocessableContent)

            let shown = try await api.send(.get, "/api/albums/\(album)?limit=1", authorization: auth).json()
            #expect((shown["photos"] as? [[String: Any]])?.first?["random_id"] as? String == b)
            let next = try #require(shown["next_after"] as? String)
            let rest = try await api.send(.get, "/api/albums/\(album)?limit=1&after=\(next)", authorization: auth).json()
            #expect((rest["photos"] as? [[String: Any]])?.map { $0["random_id"] as? String } == [a])
            #expect(rest["next_after"] is NSNull)

            let patched = try await api.send(.patch, "/api/albums/\(album)", body: #"{"title":"Summer","cover_random_id":"\#(a)"}"#, authorization: auth).json()
            #expect(patched["title"] as? String == "Summer" && patched["description"] as? String == "Sea" && patched["cover_random_id"] as? String == a)
            #expect(try await api.send(.patch, "/api/albums/\(album)", body: #"{"cover_random_id":"\#(bobs)"}"#, authorization: auth).status == .unprocessableContent)
            let removed = try await api.send(.delete, "/api/albums/\(album)/photos", body: #"{"random_ids":["\#(a)"]}"#, authorization: auth).json()
            #expect(removed["photo_count"] as? Int == 1 && removed["cover_random_id"] is NSNull)

            // Bob: every album route answers as if there were no such album.
            let bobAuth = "Token token=\(bob)"
            for (method, path, body) in [
                (HTTPRequest.Method.get, "/api/albums/\(album)", nil), (.patch, "/api/albums/\(album)", #"{"title":"Mine"}"#),
                (.delete, "/api/albums/\(album)", nil), (.post, "/api/albums/\(album)/photos", #"{"random_ids":["\#(bobs)"]}"#),
                (.delete, "/api/albums/\(album)/photos", #"{"random_ids":["\#(a)"]}"#),
            ] as [(HTTPRequest.Method, String, String?)] {
                let answer = try await api.send(method, path, body: body, authorization: bobAuth)
                #expect(try answer.apiError() == (404, "There is no such album."), "\(method) \(path)")
            }
            #expect(try await api.send(.get, "/api/albums", authorization: bobAuth).jsonArray().isEmpty)
            #expect(try await api.send(.get, "/api/albums", authorization: auth).jsonArray().count == 1)

            #expect(try await api.send(.delete, "/api/albums/\(album)", authorization: auth).json()["message"] as? String == "Album deleted")
            #expect(try await api.getPhotos(token: ada).jsonArray().count == 2, "its photos stay")
        }
    }

    /// A new user's album "Trip" of two photos, A then B: the user's token, the album, A and B.
    static func albumOfTwo(_ api: APIClient) async throws -> (token: String, album: String, a: String, b: String) {
        let token = try await api.signedInUser()
        let auth = "Token token=\(token)"
        let a = try await upload(api, token, TestImage.jpeg(size: 1000, seed: 1), title: "A")
        let b = try await upload(api, token, TestImage.jpeg(size: 1000, seed: 2), title: "B")
        let album = try #require(try await api.send(.post, "/api/albums", body: #"{"title":"Trip"}"#, authorization: auth).json()["id"] as? String)
        _ = try await api.send(.post, "/api/albums/\(album)/photos", body: #"{"random_ids":["\#(a)","\#(b)"]}"#, authorization: auth)
        return (token, album, a, b)
    }

    @Test("an account holds at most 1,000 albums: the next is refused with a message, through the API and the selection bar, also when another takes the last place meanwhile; deleting one makes room")
    func albumLimit() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let token = try await app.api.signedInUser(email: email)
            let auth = "Token token=\(token)"
            let userID = try await app.scalar("SELECT id FROM users WHERE email = \(email)", as: Int64.self)
            try await app.db {
                try await $0.query(
                    "INSERT INTO albums (public_id, user_id, title) SELECT 'bulk-album-' || lpad(n::text, 12, '0'), \(userID), 'Album ' || n FROM generate_series(1, \(AlbumService.maxAlbums - 1)) n"
                )
            }
            // The last place taken by another request while this one waits for the owner's row:
            // counted after the wait, it is refused (counted before it, it made the 1,001st).
            let raced = try await app.racing({
                try await app.api.send(.post, "/api/albums", body: #"{"title":"Raced"}"#, authorization: auth)
            }, holdingUser: userID) { connection in
                try await connection.query(
                    "INSERT INTO albums (public_id, user_id, title) VALUES ('bulk-album-made-meanwhile', \(userID), 'Made meanwhile')", logger: testLogger
                )
            }
            #expect(raced.status == .unprocessableContent, "\(raced.status)")
            let refused = try await app.api.send(.post, "/api/albums", body: #"{"title":"One too many"}"#, authorization: auth)
            #expect(try refused.apiError() == (422, "You have 1000 albums, the most one account may have. Delete one to make another."))
            #expect(try await app.scalar("SELECT count(*)::int FROM albums WHERE user_id = \(userID)", as: Int.self) == AlbumService.maxAlbums)

            // Another account is not held back by this one's.
            let other = try await app.api.signedInUser()
            #expect(try await app.api.send(.post, "/api/albums", body: #"{"title":"Mine"}"#, authorization: "Token token=\(other)").status == .created)

            try await app.db { try await $0.query("DELETE FROM albums WHERE public_id = 'bulk-album-000000000001'") }
            #expect(try await app.api.send(.post, "/api/albums", body: #"{"title":"Room again"}"#, authorization: auth).status == .created)

            // The gallery's selection bar, "add to a new album", says the same in the page.
            let browser = app.browser()
            let webEmail = uniqueEmail()
            try await browser.signUp(email: webEmail)
            let photo = try await browser.uploadPhoto(TestImage.jpeg(size: 1_000, seed: 9))
            let webUser = try await app.scalar("SELECT id FROM users WHERE email = \(webEmail)", as: Int64.self)
            try await app.db {
                try await $0.query(
                    "INSERT INTO albums (public_id, user_id, title) SELECT 'web-album-' || lpad(n::text, 12, '0'), \(webUser), 'Album ' || n FROM generate_series(1, \(AlbumService.maxAlbums)) n"
                )
            }
            let page = try await browser.select([photo], action: "add", fields: [("target_album", ""), ("new_album_title", "One too many")])
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains("You have 1000 albums, the most one account may have."))
        }
    }

    @Test("a chosen cover in the trash is no cover, in the list and in the album alike; restored, it is the cover again")
    func coverInTheTrash() async throws {
        try await withTestApp(configure: { $0.trashDays = 30 }) { app in
            let api = app.api
            let (ada, album, a, _) = try await Self.albumOfTwo(api)
            let auth = "Token token=\(ada)"
            _ = try await api.send(.patch, "/api/albums/\(album)", body: #"{"cover_random_id":"\#(a)"}"#, authorization: auth)
            func covers() async throws -> (listed: Any?, shown: Any?) {
                let listed = try await api.send(.get, "/api/albums", authorization: auth).jsonArray().first?["cover_random_id"]
                let shown = (try await api.send(.get, "/api/albums/\(album)", authorization: auth).json()["album"] as? [String: Any])?["cover_random_id"]
                return (listed, shown)
            }
            var (listed, shown) = try await covers()
            #expect(listed as? String == a && shown as? String == a)
            #expect(try await api.deletePhoto(token: ada, id: a).status == .ok)
            (listed, shown) = try await covers()
            #expect(listed is NSNull && shown is NSNull, "not \(String(describing: listed)), the latest photo the card falls back to")
            _ = try await api.send(.post, "/api/trash/restore", body: #"{"random_ids":["\#(a)"]}"#, authorization: auth)
            (listed, shown) = try await covers()
            #expect(listed as? String == a && shown as? String == a)
        }
    }

    @Test("a cover chosen while that photo is being taken out of the album is refused: the album never shows a cover it does not hold")
    func coverWhileRemoved() async throws {
        try await withTestApp { app in
            let api = app.api
            let (ada, album, a, _) = try await Self.albumOfTwo(api)
            let auth = "Token token=\(ada)"
            // The test takes A out of the album in a transaction it holds open (as removing does);
            // choosing A as the cover meanwhile waits for it, then finds A gone.
            let chosen = try await app.db { client in
                try await client.transaction(logger: testLogger) { connection in
                    try await connection.query(
                        """
                        DELETE FROM album_photos ap USING albums al, photos p
                        WHERE ap.album_id = al.id AND al.public_id = \(album) AND p.id = ap.photo_id AND p.public_id = \(a)
                        """,
                        logger: testLogger
                    )
                    try await connection.query("UPDATE albums SET updated_at = now() WHERE public_id = \(album)", logger: testLogger)
                    let chosen = Task { try await api.send(.patch, "/api/albums/\(album)", body: #"{"cover_random_id":"\#(a)"}"#, authorization: auth) }
                    try await TestApp.untilSomeoneWaitsForALock(client)
                    return chosen
                }
            }
            #expect(try await chosen.value.status == .unprocessableContent)
            let stored: Int64? = try await app.scalar("SELECT cover_photo_id FROM albums WHERE public_id = \(album)")
            #expect(stored == nil, "the album holds B only; A is no cover")
        }
    }

    @Test("share links: made with an explicit expiry or the week, 'never' only as null, listed without their URL, revoked; someone else's is a 404")
    func shareLinks() async throws {
        try await withTestApp { app in
            let api = app.api
            let ada = try await api.signedInUser()
            let bob = try await api.signedInUser()
            let auth = "Token token=\(ada)"
            let photo = try await Self.upload(api, ada, TestImage.jpeg(size: 1000))
            let bobs = try await Self.upload(api, bob, TestImage.jpeg(size: 1000, seed: 4))

            let week = try await api.send(.post, "/api/share_links", body: #"{"random_id":"\#(photo)"}"#, authorization: auth)
            #expect(week.status == .created)
            let made = try week.json()
            let url = try #require(made["url"] as? String)
            #expect(url.hasPrefix("http://localhost/s/") && url.count == "http://localhost/s/".count + 32)
            let expires = try #require((made["expires_at"] as? String).flatMap(apiDate))
            #expect(abs(expires.timeIntervalSinceNow - 7 * 86400) < 60)
            let never = try await api.send(.post, "/api/share_links", body: #"{"random_id":"\#(photo)","expires_in_days":null,"password":"open sesame 1","allow_download":true}"#, authorization: auth).json()
            #expect(never["expires_at"] is NSNull && never["has_password"] as? Bool == true && never["allow_download"] as? Bool == true)
            #expect(try await api.send(.post, "/api/share_links", body: #"{"random_id":"\#(photo)","expires_in_days":3}"#, authorization: auth).status == .unprocessableContent)
            #expect(try await api.send(.post, "/api/share_links", body: #"{"random_id":"\#(photo)","password":"short"}"#, authorization: auth).status == .unprocessableContent)
            #expect(try await api.send(.post, "/api/share_links", body: "{}", authorization: auth).status == .unprocessableContent)
            #expect(try await api.send(.post, "/api/share_links", body: #"{"random_id":"\#(bobs)"}"#, authorization: auth).status == .notFound)
            #expect(try await api.send(.post, "/api/share_links", body: #"{"album_id":"nope-nope-nope-nope-nope"}"#, authorization: auth).status == .notFound)

            let listed = try await api.send(.get, "/api/share_links", authorization: auth).jsonArray()
            #expect(listed.count == 2 && listed.allSatisfy { $0["url"] == nil && $0["random_id"] as? String == photo })
            #expect(try await app.browser().get(String(url.dropFirst("http://localhost".count))).status == .ok)

            let id = try #require(made["id"] as? String)
            #expect(try await api.send(.delete, "/api/share_links/\(id)", authorization: "Token token=\(bob)").apiError().status == 404)
            #expect(try await api.send(.delete, "/api/share_links/\(id)", authorization: auth).json()["message"] as? String == "Link revoked")
            let again = try await api.send(.delete, "/api/share_links/\(id)", authorization: auth).apiError()
            #expect(again == (404, "You have no such link: it may have been turned off already."))
            #expect(try await app.browser().get(String(url.dropFirst("http://localhost".count))).status == .notFound)
            #expect(try await api.send(.get, "/api/share_links", authorization: auth).jsonArray().count == 1)
        }
    }
}

/// `2026-11-25T10:00:00.000Z`, the API's dates.
func apiDate(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
}
