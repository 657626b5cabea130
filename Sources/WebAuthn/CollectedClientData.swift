import Base64URLCoding
import Foundation

/// The parts of clientDataJSON (WebAuthn Level 2 §5.8.1) the relying party checks.
struct CollectedClientData: Decodable, Sendable {
    struct TokenBinding: Decodable, Sendable {
        let status: String
    }

    let type: String
    let challenge: String
    let origin: String
    let crossOrigin: Bool?
    let tokenBinding: TokenBinding?

    static func parse(_ json: [UInt8]) throws(WebAuthnError) -> CollectedClientData {
        do {
            return try JSONDecoder().decode(CollectedClientData.self, from: Data(json))
        } catch {
            throw .malformed("clientDataJSON: \(error)")
        }
    }

    /// The checks common to both ceremonies (§7.1 steps 7–10, §7.2 steps 11–14).
    func verify(type expectedType: String, challenge expectedChallenge: [UInt8], origin expectedOrigin: String) throws(WebAuthnError) {
        guard type == expectedType else { throw .malformed("clientDataJSON type is \"\(type)\", expected \"\(expectedType)\"") }
        // An empty or short expected challenge means the caller lost the issued one (e.g. no session):
        // never let that match a response that simply echoes an empty challenge.
        guard expectedChallenge.count >= 16 else { throw .wrongChallenge }
        guard let challengeBytes = Base64URL.decode(challenge), challengeBytes == expectedChallenge else {
            throw .wrongChallenge
        }
        // Exact string match: origins are ASCII-serialised by the browser (scheme://host[:port]).
        guard origin == expectedOrigin else { throw .wrongOrigin }
        // A credential created or used inside a cross-origin iframe is not our page's doing.
        guard crossOrigin != true else { throw .wrongOrigin }
        // Token Binding is dead in browsers; "present" would mean a binding we cannot check, so refuse.
        if let tokenBinding, tokenBinding.status == "present" {
            throw .malformed("token binding is not supported")
        }
    }
}
