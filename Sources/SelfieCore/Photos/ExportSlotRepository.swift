import Foundation
import Logging
import PostgresNIO

/// "Download my data" under way, one per account across instances (`data_exports_running`).
public struct ExportSlotRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Marks an export of the account as running and returns its claim; nil while another one is
    /// (a claim older than an hour is a crashed export's and is taken over).
    func claim(userID: Int64) async throws -> Date? {
        let rows = try await client.query(
            """
            INSERT INTO data_exports_running (user_id) VALUES (\(userID))
            ON CONFLICT (user_id) DO UPDATE SET started_at = now()
            WHERE data_exports_running.started_at < now() - interval '1 hour'
            RETURNING started_at
            """,
            logger: logger
        )
        for try await startedAt in rows.decode(Date.self) { return startedAt }
        return nil
    }

    /// The export of `claim` ended (written, failed or cut off): its slot goes, not one another
    /// export took over. Runs even in a cancelled task.
    func release(userID: Int64, claim: Date) async {
        let (client, logger) = (self.client, self.logger)
        do {
            try await evenIfCancelled {
                _ = try await client.query("DELETE FROM data_exports_running WHERE user_id = \(userID) AND started_at = \(claim)", logger: logger)
            }
        } catch {
            logger.warning("an export's slot is left for an hour", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
