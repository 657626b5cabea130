import Base64URLCoding
import Foundation
import Logging
import WebAuthn

/// Passkeys (WebAuthn Level 2): adding one to an account, signing in with one (which satisfies
/// the second factor: the device and its lock are two factors already), listing, renaming and
/// removing. The relying party is `PUBLIC_URL`: its host is the RP ID, its origin the only origin
/// accepted. Attestation "none"; user verification required; ES256 and RS256 keys.
public struct PasskeyService: Sendable {
    let store: PasskeyRepository
    let users: UserRepository
    let audit: AuditRepository
    /// Passkeys added and removed are mailed to the owner.
    let emails: AccountEmails
    let relyingParty: WebAuthnRelyingParty
    /// The name browsers show in their passkey prompts.
    public let relyingPartyName: String

    static let challengeLifetime: TimeInterval = 5 * 60

    init(store: PasskeyRepository, users: UserRepository, audit: AuditRepository, emails: AccountEmails, publicURL: URL, relyingPartyName: String) {
        self.emails = emails
        self.store = store
        self.users = users
        self.audit = audit
        self.relyingPartyName = relyingPartyName
        let host = publicURL.host ?? "localhost"
        var origin = "\(publicURL.scheme ?? "https")://\(host)"
        if let port = publicURL.port { origin += ":\(port)" }
        relyingParty = WebAuthnRelyingParty(id: host, origin: origin)
    }

    public var relyingPartyID: String { relyingParty.id }

    /// What `navigator.credentials.create()` needs (binary values base64url).
    public struct CreationOptions: Sendable {
        public let challenge: String
        public let userHandle: String
        public let userName: String
        public let userDisplayName: String
        /// The account's passkeys, so the same authenticator is not registered twice.
        public let excludeCredentialIDs: [String]
    }

    public func creationOptions(for user: User) async throws -> CreationOptions {
        try user.requireProvenAddress()
        let handle = try await store.userHandle(userID: user.id, ifMissing: WebAuthnChallenge.generate().bytes)
        let challenge = WebAuthnChallenge.generate()
        try await store.saveChallenge(challenge.bytes, purpose: .register, userID: user.id, lifetime: Self.challengeLifetime)
        return CreationOptions(
            challenge: challenge.base64URL,
            userHandle: Base64URL.encode(handle),
            userName: user.email ?? user.username ?? user.handle,
            userDisplayName: user.fullName,
            excludeCredentialIDs: try await store.credentialIDs(userID: user.id).map { Base64URL.encode($0) }
        )
    }

    /// The browser's answer to `create()`, base64url fields as `PublicKeyCredential.toJSON()` gives them.
    public struct Registration: Sendable {
        public var clientDataJSON: String
        public var attestationObject: String
        public init(clientDataJSON: String, attestationObject: String) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
        }
    }

    /// Verifies and stores a new passkey named `name`, while the session asking for it lasts.
    public func register(_ registration: Registration, name: String, for user: User, inSession sessionID: Int64, origin: RequestOrigin) async throws -> Passkey {
        try user.requireProvenAddress()
        let name = try Self.validName(name)
        guard let clientData = Base64URL.decode(registration.clientDataJSON),
            let attestation = Base64URL.decode(registration.attestationObject)
        else { throw SecondFactorError.passkeyRefused("fields are not base64url") }
        let challenge = try await takeChallenge(in: clientData, purpose: .register, userID: user.id)
        let credential: RegisteredCredential
        do {
            credential = try relyingParty.verifyRegistration(
                RegistrationResponse(clientDataJSON: clientData, attestationObject: attestation),
                expectedChallenge: challenge,
                requireUserVerification: true
            )
        } catch {
            throw SecondFactorError.passkeyRefused("\(error)")
        }
        guard let passkey = try await store.add(
            userID: user.id,
            credentialID: credential.id,
            publicKey: credential.publicKey,
            signCount: credential.signCount,
            name: name,
            isBackedUp: credential.isBackedUp,
            whileSession: sessionID,
            notifying: emails.pending(.securityChange(.passkeyAdded, name: name), to: user)
        ) else { throw SecondFactorError.passkeyRefused("credential id already registered") }
        emails.nudge()
        await audit.record(.passkeyAdded, actor: user.id, targetUser: user.id, target: name, origin: origin)
        return passkey
    }

    /// A challenge for `navigator.credentials.get()` (any of the site's passkeys may answer).
    public func signInChallenge() async throws -> String {
        let challenge = WebAuthnChallenge.generate()
        try await store.saveChallenge(challenge.bytes, purpose: .signIn, userID: nil, lifetime: Self.challengeLifetime)
        return challenge.base64URL
    }

    /// The browser's answer to `get()`.
    public struct Assertion: Sendable {
        public var credentialID: String
        public var clientDataJSON: String
        public var authenticatorData: String
        public var signature: String
        public var userHandle: String?
        public init(credentialID: String, clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
            self.credentialID = credentialID
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// The account a verified passkey belongs to, ready for a session (its second factor satisfied).
    func signIn(_ assertion: Assertion, origin: RequestOrigin) async throws -> UserCredentials {
        guard let credentialID = Base64URL.decode(assertion.credentialID),
            let clientData = Base64URL.decode(assertion.clientDataJSON),
            let authenticatorData = Base64URL.decode(assertion.authenticatorData),
            let signature = Base64URL.decode(assertion.signature)
        else { throw SecondFactorError.passkeyRefused("fields are not base64url") }
        let userHandle = try assertion.userHandle.map { text in
            guard let bytes = Base64URL.decode(text) else { throw SecondFactorError.passkeyRefused("userHandle is not base64url") }
            return bytes
        }
        let challenge = try await takeChallenge(in: clientData, purpose: .signIn, userID: nil)
        guard let stored = try await store.find(credentialID: credentialID) else {
            throw SecondFactorError.passkeyRefused("unknown credential")
        }
        let verified: VerifiedAssertion
        do {
            verified = try relyingParty.verifyAssertion(
                AssertionResponse(
                    credentialID: credentialID,
                    clientDataJSON: clientData,
                    authenticatorData: authenticatorData,
                    signature: signature,
                    userHandle: userHandle
                ),
                expectedChallenge: challenge,
                credential: StoredCredential(id: credentialID, publicKey: stored.publicKey, signCount: stored.signCount, userHandle: stored.userHandle),
                requireUserVerification: true,
                requireUserHandle: true
            )
        } catch {
            throw SecondFactorError.passkeyRefused("\(error)")
        }
        guard try await store.recordUse(id: stored.id, previousCount: stored.signCount, newCount: verified.signCount, isBackedUp: verified.isBackedUp),
            let account = try await users.credentials(forID: stored.userID), !account.user.isDisabled
        else { throw SecondFactorError.passkeyRefused("passkey used concurrently, or account disabled") }
        try await users.recordSignIn(userID: account.user.id)
        await audit.record(.passkeySignedIn, actor: account.user.id, targetUser: account.user.id, target: account.user.handle, origin: origin)
        var credentials = account
        credentials.secondFactor = .satisfied
        return credentials
    }

    public func list(of user: User) async throws -> [Passkey] {
        try await store.list(userID: user.id)
    }

    public func rename(_ id: Int64, of user: User, to name: String) async throws {
        guard try await store.rename(id: id, userID: user.id, to: Self.validName(name)) else { throw SecondFactorError.passkeyNotFound }
    }

    public func remove(_ id: Int64, of user: User, origin: RequestOrigin) async throws {
        let emails = self.emails
        let notice = { @Sendable (name: String) in emails.pending(.securityChange(.passkeyRemoved, name: name), to: user) }
        guard let name = try await store.remove(id: id, userID: user.id, notifying: notice) else { throw SecondFactorError.passkeyNotFound }
        emails.nudge()
        await audit.record(.passkeyRemoved, actor: user.id, targetUser: user.id, target: name, origin: origin)
    }

    static func validName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(trimmed.unicodeScalars.count), !trimmed.isBlankWhenShown, !trimmed.containsControlCharacters,
            !trimmed.containsDirectionOverrides
        else {
            throw SecondFactorError.invalidPasskeyName
        }
        return trimmed
    }

    /// The challenge a clientDataJSON answers, taken back (single use) if this server issued it
    /// for this ceremony; the full checks follow in the relying party.
    private func takeChallenge(in clientDataJSON: [UInt8], purpose: PasskeyRepository.Purpose, userID: Int64?) async throws -> [UInt8] {
        struct Challenged: Decodable { let challenge: String }
        guard clientDataJSON.count <= 8 * 1024,
            let challenged = try? JSONDecoder().decode(Challenged.self, from: Data(clientDataJSON)),
            let challenge = Base64URL.decode(challenged.challenge), challenge.count == 32
        else { throw SecondFactorError.passkeyRefused("no challenge in clientDataJSON") }
        guard try await store.takeChallenge(challenge, purpose: purpose, userID: userID) else {
            throw SecondFactorError.passkeyRefused("challenge unknown, used or expired")
        }
        return challenge
    }
}
