@testable import App
@testable import SelfieCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

/// An upload whose connection to PostgreSQL breaks as its photo's row is stored: the one moment
/// the server cannot tell from the error alone whether the row exists. Both ways in must find
/// out before they answer — a photo that exists is answered as made (the client would otherwise
/// send it again and make a second one), and one that does not leaves no blob behind.
@Suite("An upload whose database connection breaks at its commit")
struct LostCommitTests {
    enum WayIn: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case multipart, resumable
        var testDescription: String { rawValue }
    }

    /// What came of an upload whose photo's transaction was cut.
    struct Cut: Sendable {
        let app: TestApp
        let token: String
        let bytes: [UInt8]
        let answer: TestResponse
        /// A resumable upload's path.
        let path: String?
    }

    /// Uploads a photo `way`, through a proxy in front of PostgreSQL that cuts the connection of
    /// the first transaction sending the statement `after` when it sends `at` (`delivered`: after
    /// PostgreSQL has it). `prepare` runs first, on the test's own connection.
    private func upload(
        _ way: WayIn, seed: UInt64, cutting after: String, at: String, delivered: Bool,
        prepare: @escaping @Sendable (PostgresClient) async throws -> Void = { _ in },
        _ check: @escaping @Sendable (Cut) async throws -> Void
    ) async throws {
        try await withAppBehindTheProxy { proxy, app in
            let token = try await app.api.signedInUser()
            let bytes = TestImage.jpeg(size: 80_000, seed: seed)
            try await app.db(prepare)
            proxy.cut(after: after, at: at, delivered: delivered)
            let (answer, path) = try await upload(bytes, way, token: token, app: app)
            #expect(proxy.hasCut, "the test cut the transaction at \(at)")
            try await check(Cut(app: app, token: token, bytes: bytes, answer: answer, path: path))
        }
    }

    /// A test app whose connections to PostgreSQL go through a `SilentProxy`.
    private func withAppBehindTheProxy(_ body: @escaping @Sendable (SilentProxy, TestApp) async throws -> Void) async throws {
        try await SilentProxy.with { proxy in
            try await withTestApp(configure: { config in
                proxy.carry(&config)
                config.logLevel = .critical
            }) { app in
                try await body(proxy, app)
            }
        }
    }

    /// Uploads `bytes` one way or the other: the answer, and (resumable) the upload's path.
    private func upload(_ bytes: [UInt8], _ way: WayIn, token: String, app: TestApp) async throws -> (answer: TestResponse, path: String?) {
        switch way {
        case .multipart:
            return (try await app.api.uploadPhoto(token: token, image: bytes, title: "lost"), nil)
        case .resumable:
            let tus = TusTestClient(app: app, token: token)
            let path = try await tus.create(length: bytes.count, title: "lost")
            return (try await tus.patch(path, at: 0, bytes), path)
        }
    }

    @Test("its COMMIT ran but the answer was lost: the photo is answered as made, once, and a resumable upload names it to the client's HEAD", arguments: WayIn.allCases)
    func committedAnswerLost(_ way: WayIn) async throws {
        try await upload(way, seed: 31, cutting: "INSERT INTO photos", at: "COMMIT", delivered: true) { cut in
            let app = cut.app
            #expect(try await app.photoCount() == 1)
            let stored: String = try await app.scalar("SELECT public_id FROM photos")
            switch way {
            case .multipart:
                #expect(cut.answer.status == .ok, "\(cut.answer.status) \(cut.answer.text)")
                #expect(try cut.answer.json()["random_id"] as? String == stored)
            case .resumable:
                #expect(cut.answer.status == .noContent, "\(cut.answer.status) \(cut.answer.text)")
                #expect(cut.answer.headers[TusTestClient.photoID] == stored)
                // A client that lost this answer too asks where the upload stands: done, this photo.
                let head = try await TusTestClient(app: app, token: cut.token).send(.head, try #require(cut.path))
                #expect(head.status == .ok)
                #expect(head.headers[TusTestClient.offset] == String(cut.bytes.count))
                #expect(head.headers[TusTestClient.photoID] == stored)
            }
            #expect(try await app.originalSHA256(of: stored) == SHA256.hash(data: cut.bytes).hexString)
            #expect(try await app.api.getPhotos(token: cut.token).jsonArray().count == 1)
        }
    }

    @Test("its COMMIT still running when the connection breaks (a slow commit): the look waits for it, and the photo is answered as made with its blobs kept", arguments: WayIn.allCases)
    func commitStillRunning(_ way: WayIn) async throws {
        // Runs at COMMIT, after the connection is cut (PostgreSQL does not notice a client gone
        // mid-statement), so the commit ends a second after the app saw the break.
        let slowCommit: @Sendable (PostgresClient) async throws -> Void = { client in
            try await client.query("CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1.5); RETURN NULL; END $$")
            try await client.query(
                """
                CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON photos DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION slow_commit()
                """
            )
        }
        try await upload(way, seed: 33, cutting: "INSERT INTO photos", at: "COMMIT", delivered: true, prepare: slowCommit) { cut in
            let app = cut.app
            #expect(cut.answer.status == (way == .multipart ? .ok : .noContent), "\(cut.answer.status) \(cut.answer.text)")
            #expect(try await app.photoCount() == 1)
            let stored: String = try await app.scalar("SELECT public_id FROM photos")
            #expect(try await app.originalSHA256(of: stored) == SHA256.hash(data: cut.bytes).hexString, "the original is kept")
            let renditions: Int = try await app.scalar("SELECT count(*)::int FROM photo_renditions")
            #expect(app.filesInBlobStore().count == 1 + renditions, "the renditions are kept")
        }
    }

    @Test("its connection broke before the COMMIT while the database went away: the blobs go at once (a COMMIT never sent committed nothing), and a multipart upload is answered without waiting for the database to come back", arguments: WayIn.allCases)
    func brokeBeforeCommitAndUnreachable(_ way: WayIn) async throws {
        try await withAppBehindTheProxy { proxy, app in
            let token = try await app.api.signedInUser()
            let bytes = TestImage.jpeg(size: 80_000, seed: 34)
            let away = Duration.seconds(10)
            proxy.cut(after: "quota_bytes FROM users WHERE", at: "INSERT INTO photos", delivered: false, thenRefusingFor: away)
            let started = ContinuousClock.now
            let (answer, _) = try await upload(bytes, way, token: token, app: app)
            let took = ContinuousClock.now - started
            #expect(proxy.hasCut)
            #expect(answer.status == .serviceUnavailable, "\(answer.status) \(answer.text)")
            if way == .multipart {
                // (A resumable upload's PATCH also gives its lease back before it answers, which
                // waits for the database.)
                #expect(took < away - .seconds(3), "answered in \(took), not once the database was back")
            }
            #expect(app.filesInBlobStore() == [], "no original, rendition or part is left, though nothing could be asked")
            try await waitUntil(timeout: .seconds(30)) { (try? await app.photoCount()) != nil }
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("its connection broke before the COMMIT: the upload is refused as unavailable (try again), with no row and no blob left", arguments: WayIn.allCases)
    func brokeBeforeCommit(_ way: WayIn) async throws {
        // The photo's transaction has locked its owner for the quota; its INSERT never arrives.
        try await upload(way, seed: 32, cutting: "quota_bytes FROM users WHERE", at: "INSERT INTO photos", delivered: false) { cut in
            let app = cut.app
            #expect(cut.answer.status == .serviceUnavailable, "\(cut.answer.status) \(cut.answer.text)")
            #expect(try cut.answer.apiError().message.isEmpty == false)
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore() == [], "no original, rendition or part is left")
            if let path = cut.path {
                // Nothing to resume (the part became the blob that went): the client starts again.
                #expect(try await TusTestClient(app: app, token: cut.token).send(.head, path).status == .notFound)
            }
            // And it can: the same file again is one photo.
            let again = try await upload(cut.bytes, way, token: cut.token, app: app).answer
            #expect(again.status == (way == .multipart ? .ok : .noContent), "\(again.status) \(again.text)")
            #expect(try await app.photoCount() == 1)
        }
    }

    @Test("a remake whose COMMIT ran but whose answer was lost keeps the renditions it recorded; one refused takes its blobs with it (`RealPhotosTests`)")
    func remadeAnswerLost() async throws {
        try await withAppBehindTheProxy { proxy, app in
            let token = try await app.api.signedInUser()
            #expect(try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 4000, seed: 33), title: "old").status == .ok)
            // As a photo stored before renditions existed.
            let old: [String] = try await app.db { client in
                var keys: [String] = []
                for try await key in try await client.query("DELETE FROM photo_renditions RETURNING blob_key").decode(String.self) { keys.append(key) }
                return keys
            }
            for key in old { try await app.blobs.delete(try #require(BlobKey(key))) }
            let services = try CoreServices(forWeb: app.config, logger: testLogger)
            proxy.cut(after: "DELETE FROM photo_renditions", at: "COMMIT", delivered: true)
            try await services.whileRunning {
                await #expect(throws: (any Error).self, "the lost answer ends the run") { try await services.backfill.run(missingOnly: true) }
            }
            #expect(proxy.hasCut)
            let recorded: [String] = try await app.db { client in
                var keys: [String] = []
                for try await key in try await client.query("SELECT blob_key FROM photo_renditions").decode(String.self) { keys.append(key) }
                return keys
            }
            #expect(recorded.count == 3, "the remake committed")
            for key in recorded {
                #expect(try await app.blobs.exists(try #require(BlobKey(key))), "a recorded rendition's blob is kept: \(key)")
            }
        }
    }
}
