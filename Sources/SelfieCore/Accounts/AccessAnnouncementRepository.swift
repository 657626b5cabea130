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

    /// Opens a connection of its own to `database`, listens on the channel, and runs `consume` with
    /// the payloads as they arrive (the sequence ends or throws when the connection does); the
    /// connection is closed when `consume` returns or throws.
    func listen<T>(
        on database: DatabaseURL,
        _ consume: (AccessAnnouncements) async throws -> T
    ) async throws -> T {
        let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration(), id: 0, logger: logger)
        do {
            let result = try await connection.listen(on: Self.channel) { notifications in
                try await consume(AccessAnnouncements(notifications: notifications))
            }
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Announces `probe:<nonce>` through the pool, as any change would be announced.
    func announceProbe(_ nonce: String) async throws {
        try await client.query("SELECT pg_notify(\(Self.channel), \(Self.probePrefix + nonce))", logger: logger)
    }
}

/// The payloads announced on the channel, as they arrive.
struct AccessAnnouncements: AsyncSequence, Sendable {
    let notifications: PostgresNotificationSequence

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: PostgresNotificationSequence.AsyncIterator

        mutating func next() async throws -> String? {
            try await base.next()?.payload
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: notifications.makeAsyncIterator())
    }
}
