import Base64URLCoding

/// A one-time WebAuthn challenge: 32 random bytes, sent to the browser as base64url and
/// kept server-side (e.g. in the session) until the ceremony's response comes back.
public struct WebAuthnChallenge: Sendable, Hashable {
    public let bytes: [UInt8]

    /// A fresh challenge from the system's cryptographically secure generator.
    public static func generate() -> WebAuthnChallenge {
        var generator = SystemRandomNumberGenerator()
        return WebAuthnChallenge(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads back a challenge stored as base64url; `nil` if the text is not strict base64url.
    public init?(base64URL: String) {
        guard let bytes = Base64URL.decode(base64URL) else { return nil }
        self.bytes = bytes
    }

    /// The form to put in `PublicKeyCredentialCreationOptions.challenge` / `…RequestOptions.challenge`.
    public var base64URL: String { Base64URL.encode(bytes) }
}
