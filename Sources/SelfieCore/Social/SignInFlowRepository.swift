import Foundation
import Logging
import PostgresNIO

/// A browser's sign-in with a provider, between leaving for the provider and coming back.
public struct SignInFlow: Sendable, Equatable {
    public let provider: String
    public let nonce: String
    public let codeVerifier: String
    /// Set when a signed-in user is linking the provider to their account.
    public let linkUserID: Int64?
    public let returnTo: String
}

/// Single-use state of sign-ins with providers: code-flow states and ID-token nonces.
public struct SignInFlowRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    public func save(_ flow: SignInFlow, stateHash: [UInt8], expiresAt: Date) async throws {
        try await client.query(
            """
            INSERT INTO oauth_flows (state_hash, provider, nonce, code_verifier, link_user_id, return_to, expires_at)
            VALUES (\(ByteBuffer(bytes: stateHash)), \(flow.provider), \(flow.nonce), \(flow.codeVerifier), \(flow.linkUserID),
                    \(flow.returnTo), \(expiresAt))
            """,
            logger: logger
        )
    }

    /// The flow with this state, deleted as it is read: a state works once.
    public func take(stateHash: [UInt8]) async throws -> SignInFlow? {
        let rows = try await client.query(
            """
            DELETE FROM oauth_flows WHERE state_hash = \(ByteBuffer(bytes: stateHash))
            RETURNING provider, nonce, code_verifier, link_user_id, return_to, expires_at > now()
            """,
            logger: logger
        )
        for try await (provider, nonce, verifier, linkUserID, returnTo, live) in rows.decode(
            (String, String, String, Int64?, String, Bool).self
        ) where live {
            return SignInFlow(provider: provider, nonce: nonce, codeVerifier: verifier, linkUserID: linkUserID, returnTo: returnTo)
        }
        return nil
    }

    /// Records a nonce seen in an ID token; false when it was seen before (a replay).
    public func claimNonce(_ nonce: String, issuer: String, until expiresAt: Date) async throws -> Bool {
        let rows = try await client.query(
            """
            INSERT INTO used_id_token_nonces (issuer, nonce_hash, expires_at)
            VALUES (\(issuer), \(ByteBuffer(bytes: RandomToken.hash(nonce))), \(expiresAt))
            ON CONFLICT DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    @discardableResult
    public func deleteExpired() async throws -> Int {
        let flows = try await client.query("DELETE FROM oauth_flows WHERE expires_at < now() RETURNING 1", logger: logger)
        let nonces = try await client.query("DELETE FROM used_id_token_nonces WHERE expires_at < now() RETURNING 1", logger: logger)
        return try await flows.collect().count + nonces.collect().count
    }
}
