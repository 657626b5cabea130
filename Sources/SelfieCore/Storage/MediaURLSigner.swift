import Crypto
import Foundation

/// Signs and checks `/media/<key>?expires=…&sig=…` URLs for blobs that Selfie serves itself
/// (the filesystem store). The signature is an HMAC of key and expiry under a key derived from
/// `SECRET_KEY`; whoever holds the URL may fetch the blob until it expires, nobody else.
public struct MediaURLSigner: Sendable {
    private let key: SymmetricKey
    let publicURL: URL

    /// Where Selfie serves signed blobs: `<path>/<blob key>`.
    public static let path = "/media"

    public init(secretKey: SecretKey, publicURL: URL) {
        self.key = secretKey.derived(for: "media-url")
        self.publicURL = publicURL
    }

    /// Expiry rounded up to the next quarter hour, so a page reloaded within minutes gets the same
    /// URL and the browser's cache keeps working.
    func url(for blob: BlobKey, lifetime: Duration, now: Date = .now) -> String {
        let quarter = 900
        let earliest = Int(now.timeIntervalSince1970) + Int(lifetime.components.seconds)
        let expires = (earliest + quarter - 1) / quarter * quarter
        return "\(publicURL.absoluteString)\(Self.path)/\(blob.value)?expires=\(expires)&sig=\(signature(blob: blob, expires: expires))"
    }

    public enum Verdict: Equatable {
        case valid
        case expired
        case badSignature
    }

    public func verify(blob: BlobKey, expires: String?, signature: String?, now: Date = .now) -> Verdict {
        guard let expires, let expiry = Int(expires), let signature else { return .badSignature }
        let expected = self.signature(blob: blob, expires: expiry)
        guard constantTimeEquals(Array(signature.utf8), Array(expected.utf8)) else { return .badSignature }
        return expiry >= Int(now.timeIntervalSince1970) ? .valid : .expired
    }

    private func signature(blob: BlobKey, expires: Int) -> String {
        let message = Data("\(blob.value)\n\(expires)".utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).base64URLEncoded()
    }
}
