import Logging
import PostgresNIO

/// The channel on which changes to sessions, tokens and users are announced
/// (`migrations/0019_access_changes.sql`), and the probe that proves an instance hears it.
public struct AccessAnnouncementRepository: Sendable {
    static let channel = "selfie_access"
    /// What a probe's payload starts with (a user's id, the other payload, is digits only).
    static let probePrefix = "probe:"

    let client: PostgresClient
    let logger: Logger

    /// Announces `probe:<nonce>` through the pool, as any change would be announced.
    func announceProbe(_ nonce: String) async throws {
        try await client.query("SELECT pg_notify(\(Self.channel), \(Self.probePrefix + nonce))", logger: logger)
    }
}
