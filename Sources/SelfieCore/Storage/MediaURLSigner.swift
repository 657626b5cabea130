import Base64URLCoding
import Crypto
import Foundation

/// Signs and checks `/media/<key>?expires=…&sig=…` URLs for blobs that Selfie serves itself
/// (the filesystem store). The signature is an HMAC of key and expiry under a key derived from
/// `SECRET_KEY`; whoever holds the URL may fetch the blob until it expires, nobody else.
public struct MediaURLSigner: Sendable {
    private let key: SymmetricKey
    /// The HMAC with its key already mixed in: each signature copies it instead of keying anew.
    private let keyedHMAC: HMAC<SHA256>
    let publicURL: URL
    /// `<public URL>/media/`: a page of 24 photos signs ~50 URLs, each begins with it.
    private let urlPrefix: String

    /// Where Selfie serves signed blobs: `<path>/<blob key>`.
    public static let path = "/media"

    public init(secretKey: SecretKey, publicURL: URL) {
        self.key = secretKey.derived(for: "media-url")
        self.keyedHMAC = HMAC<SHA256>(key: key)
        self.publicURL = publicURL
        self.urlPrefix = "\(publicURL.absoluteString)\(Self.path)/"
    }

    /// Expiry rounded up to the next quarter hour, so a page reloaded within minutes gets the same
    /// URL and the browser's cache keeps working.
    func url(for blob: BlobKey, lifetime: Duration, now: Date = .now) -> String {
        let quarter = 900
        let earliest = Int(now.timeIntervalSince1970) + Int(lifetime.components.seconds)
        let expires = (earliest + quarter - 1) / quarter * quarter
        let expiry = String(expires)
        return urlPrefix + blob.value + "?expires=" + expiry + "&sig=" + signature(blob: blob, expires: expiry)
    }

    public enum Verdict: Equatable {
        case valid
        case expired
        case badSignature
    }

    public func verify(blob: BlobKey, expires: String?, signature: String?, now: Date = .now) -> Verdict {
        guard let expires, let expiry = Int(expires), let signature else { return .badSignature }
        let expected = self.signature(blob: blob, expires: String(expiry))
        guard constantTimeEquals(Array(signature.utf8), Array(expected.utf8)) else { return .badSignature }
        return expiry >= Int(now.timeIntervalSince1970) ? .valid : .expired
    }

    /// base64url(HMAC-SHA256("<blob key>\n<expiry in decimal>")).
    private func signature(blob: BlobKey, expires: String) -> String {
        var hmac = keyedHMAC
        var message = blob.value + "\n" + expires
        message.withUTF8 { hmac.update(data: UnsafeRawBufferPointer($0)) }
        return hmac.finalize().withUnsafeBytes { Base64URL.encode($0) }
    }
}
