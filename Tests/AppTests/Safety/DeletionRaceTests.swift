@testable import App
@testable import SelfieCore
import Foundation
import NIOCore
import PostgresNIO
import Testing

/// A photo deleted for good while its renditions are being remade (the backfill, `selfie check
/// --repair`, on any instance) takes the new renditions' blobs with it: the deletion must see the
/// rows the remake committed while it waited for the photo, not the ones it saw when it began.
@Suite("Deleting a photo while its renditions are remade")
struct DeletionRaceTests {
    enum Way: String, CaseIterable, CustomTestStringConvertible {
        case delete, emptyTrash, deleteAccount
        var testDescription: String { rawValue }
    }

    @Test("a photo deleted for good (a delete without the trash, the trash emptied, the account deleted) while a remake holds it: the remade rendition's blob goes too", arguments: Way.allCases)
    func remadeMeanwhile(way: Way) async throws {
        try await withTestApp(configure: { $0.trashDays = way == .emptyTrash ? 30 : 0 }) { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail("racing"))
            let photo = try await owner.uploadPhoto(TestImage.jpeg(size: 3000, seed: 7))
            if way == .emptyTrash {
                #expect(try await owner.submit("/photos/selection/delete", from: "/gallery", [("photo", photo)]).status == .seeOther)
            }
            // The remake's new blob, stored before its row, as the backfill stores them.
            let remade = try #require(BlobKey.random(contentType: "image/webp"))
            let writer = try await app.blobs.makeWriter(for: remade)
            try await writer.write(ByteBuffer(string: "a remade thumbnail"))
            try await writer.commit()

            let deleted = try await app.db { client in
                try await client.transaction(logger: testLogger) { connection in
                    // What `replaceRenditions` holds while it swaps the rows.
                    try await connection.query("UPDATE photos SET width = width WHERE public_id = \(photo)", logger: testLogger)
                    let deletion = Task {
                        switch way {
                        case .delete: try await owner.submit("/photos/selection/delete", from: "/gallery", [("photo", photo)])
                        case .emptyTrash: try await owner.submit("/trash/empty", from: "/trash", [])
                        case .deleteAccount: try await owner.submit("/account/delete", from: "/account", [("current_password", "correct horse battery")])
                        }
                    }
                    try await TestApp.untilSomeoneWaitsForALock(client)
                    try await connection.query(
                        """
                        UPDATE photo_renditions SET blob_key = \(remade.value)
                        WHERE name = 'thumb-400' AND photo_id = (SELECT id FROM photos WHERE public_id = \(photo))
                        """,
                        logger: testLogger
                    )
                    return deletion
                }
            }
            #expect(try await deleted.value.status == .seeOther)
            #expect(try await app.photoCount() == 0)
            let queued: Int = try await app.scalar("SELECT count(*)::int FROM blob_deletions WHERE blob_key = \(remade.value)")
            #expect(try await !app.blobs.exists(remade) || queued == 1, "the remade rendition's blob is deleted, or queued to be")
        }
    }
}
