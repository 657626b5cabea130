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

    /// Marks an export of the account as running; false while another one is (a row older than
    /// an hour is a crashed export's and is taken over).
    func claim(userID: Int64) async throws -> Bool {
        try await client.query(
            """
            INSERT INTO data_exports_running (user_id) VALUES (\(userID))
            ON CONFLICT (user_id) DO UPDATE SET started_at = now()
            WHERE data_exports_running.started_at < now() - interval '1 hour'
            RETURNING user_id
            """,
            logger: logger
        ).collect().count == 1
    }

    /// The export ended (written, failed or cut off); runs even in a cancelled task.
    func release(userID: Int64) async {
        let (client, logger) = (self.client, self.logger)
        do {
            try await evenIfCancelled {
                try await client.query("DELETE FROM data_exports_running WHERE user_id = \(userID)", logger: logger)
            }
        } catch {
            logger.warning("an export's slot is left for an hour", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
