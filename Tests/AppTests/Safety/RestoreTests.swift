@testable import App
@testable import SelfieCore
import Foundation
import Testing

/// `selfie restore` with `--force` over a database that is not empty (the restore drill,
/// `scripts/restore_drill.py`, covers restoring into empty ones end to end).
@Suite("Restore over a database that is not empty")
struct RestoreTests {
    @Test("--force over a database newer than the backup (a table the backup does not have) is refused before anything changes: pg_restore --clean would have left that table beside the restored ones")
    func forceOverANewerDatabase() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            _ = try await browser.uploadPhoto(TestImage.jpeg(size: 4_000, seed: 5))
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restore-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let newest = try Migrator.loadMigrations(from: "\(repositoryRoot)/migrations").map(\.version).max() ?? 0
            try await app.db { client in
                let service = BackupService(
                    repository: BackupRepository(client: client, logger: testLogger),
                    photos: PhotoRepository(client: client, logger: testLogger),
                    database: app.database,
                    blobs: app.blobs,
                    logger: testLogger
                )
                _ = try await service.backup(into: folder)
                // What a newer Selfie's migration made after the backup.
                try await client.query("CREATE TABLE future_things (id bigint PRIMARY KEY)")
                try await client.query("INSERT INTO future_things VALUES (1)")
                let users = try await app.scalar("SELECT count(*)::int FROM users", as: Int.self)
                await #expect(throws: BackupError.tablesNotInBackup(["future_things"])) {
                    try await service.restore(from: folder, snapshot: nil, force: true, binarySchemaVersion: newest)
                }
                #expect(try await app.scalar("SELECT count(*)::int FROM future_things", as: Int.self) == 1, "nothing changed")
                #expect(try await app.scalar("SELECT count(*)::int FROM users", as: Int.self) == users)
                #expect(BackupError.tablesNotInBackup(["future_things"]).description.contains("Restore into a new, empty database"))

                // Without the newer table, --force replaces what the backup holds, as before.
                try await client.query("DROP TABLE future_things")
                let report = try await service.restore(from: folder, snapshot: nil, force: true, binarySchemaVersion: newest)
                #expect(report.blobs > 0)
            }
        }
    }

    @Test("a tool that writes more than a pipe holds to its standard error is still waited for, and its failure says the end of what it said")
    func toolThatComplainsAtLength() async throws {
        // 180 KB of complaints (in a few large writes: a line at a time, each waking the reader, took
        // seconds on a busy machine), then the reason, then a failure: before, standard error was
        // read only once the tool had ended, and a tool blocked on a full pipe never ends.
        let script = "yes 'warning: something the tool says at length, again and again' | head -n 3000 >&2; echo 'error: the reason it stopped' >&2; exit 3"
        // Wall time, generous: a whole suite's CPU-bound tests (QR codes, a CRC of 64 MiB) hold both
        // of Swift's shared threads for half a minute at its start; 20 s failed there.
        let outcome = try await withDeadline(longEnough) {
            do {
                try await PostgresTools.run("sh", ["-c", script], database: try DatabaseURL("postgres://nobody@127.0.0.1:1/none"))
                return BackupError.noBackup("it succeeded")
            } catch let error as BackupError {
                return error
            }
        }
        guard case .toolFailed("sh", status: 3, let message) = outcome else {
            Issue.record("the tool's failure, not \(outcome)")
            return
        }
        #expect(message.hasSuffix("error: the reason it stopped"))
        #expect(message.count == PostgresTools.complaintKept)
    }
}
