import Crypto
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The browsers and apps an account has signed in from, as the kind of browser or app
/// (`UserAgentSummary`) and the network (an IPv4 /24, an IPv6 /48): a sign-in from one not seen
/// before is mailed to the owner ("a new sign-in to your account"). Only a hash is kept.
struct KnownSignIns: Sendable {
    let client: PostgresClient
    let emails: AccountEmails
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    /// Records a sign-in; mails the owner when it comes from a browser or app and network the
    /// account has not used before (not for the account's very first sign-in). A failure is
    /// logged: the sign-in itself already happened.
    func record(_ user: User, userAgent: String, ipAddress: String) async {
        let device = UserAgentSummary.describe(userAgent)
        let network = Self.network(of: ipAddress)
        let fingerprint = Array(SHA256.hash(data: Data("\(device)\n\(network)".utf8)))
        do {
            let rows = try await client.query(
                """
                WITH prior AS (SELECT count(*)::int AS n FROM known_sign_ins WHERE user_id = \(user.id)),
                seen AS (
                    INSERT INTO known_sign_ins (user_id, fingerprint) VALUES (\(user.id), \(ByteBuffer(bytes: fingerprint)))
                    ON CONFLICT (user_id, fingerprint) DO UPDATE SET last_seen_at = now()
                    RETURNING (xmax = 0) AS inserted
                )
                SELECT seen.inserted, prior.n FROM seen, prior
                """,
                logger: logger
            )
            for try await (inserted, prior) in rows.decode((Bool, Int).self) where inserted && prior > 0 {
                await emails.notify(user, .newSignIn(device: device, network: network))
            }
        } catch {
            logger.error("could not record a sign-in's browser", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// The network an address belongs to, as a person would recognise it changing (home, office,
    /// phone): an IPv4 /24, an IPv6 /48.
    static func network(of address: String) -> String {
        guard let parsed = IPAddress(address)?.unmapped else { return address }
        return parsed.isIPv6 ? "\(parsed.masked(to: 48))/48" : "\(parsed.masked(to: 24))/24"
    }
}
