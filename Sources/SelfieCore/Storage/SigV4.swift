import Crypto
import Foundation

/// AWS credentials for request signing.
public struct AWSCredentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// A request as SigV4 sees it. `path` is already URI-encoded exactly as it will be sent;
/// `query` holds raw (unencoded) names and values, which the signer encodes canonically.
struct SignableRequest: Sendable {
    var method: String
    /// `host[:port]`, as sent in the Host header.
    var host: String
    var path: String
    var query: [(String, String)] = []
    var headers: [(String, String)] = []
}

/// AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html),
/// for the Authorization header and for presigned URLs.
struct SigV4Signer: Sendable {
    static let algorithm = "AWS4-HMAC-SHA256"
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    let credentials: AWSCredentials
    let region: String
    let service: String

    /// The request's headers plus `Host`, `X-Amz-Date` (and the session token) and `Authorization`.
    func signedHeaders(for request: SignableRequest, payloadHash: String, date: Date) -> [(String, String)] {
        let (amzDate, day) = Self.timestamps(date)
        var headers = request.headers
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { headers.append(("Host", request.host)) }
        headers.append(("X-Amz-Date", amzDate))
        if let token = credentials.sessionToken { headers.append(("X-Amz-Security-Token", token)) }

        let canonical = Self.canonicalHeaders(headers)
        let canonicalRequest = [
            request.method,
            request.path,
            Self.canonicalQuery(request.query),
            canonical.block,
            canonical.signedNames,
            payloadHash,
        ].joined(separator: "\n")
        let signature = sign(canonicalRequest: canonicalRequest, amzDate: amzDate, day: day)
        headers.append((
            "Authorization",
            "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(day)), "
                + "SignedHeaders=\(canonical.signedNames), Signature=\(signature)"
        ))
        return headers
    }

    /// The query of a presigned URL (everything after `?`), valid for `expires` seconds from `date`.
    /// Only `host` is signed and the payload is unsigned, as S3 expects for browser GETs.
    func presignedQuery(for request: SignableRequest, expires: Int, date: Date) -> String {
        let (amzDate, day) = Self.timestamps(date)
        var query = request.query
        query.append(("X-Amz-Algorithm", Self.algorithm))
        query.append(("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(day))"))
        query.append(("X-Amz-Date", amzDate))
        query.append(("X-Amz-Expires", String(expires)))
        if let token = credentials.sessionToken { query.append(("X-Amz-Security-Token", token)) }
        query.append(("X-Amz-SignedHeaders", "host"))
        let canonicalRequest = [
            request.method,
            request.path,
            Self.canonicalQuery(query),
            "host:\(request.host)\n",
            "host",
            Self.unsignedPayload,
        ].joined(separator: "\n")
        let signature = sign(canonicalRequest: canonicalRequest, amzDate: amzDate, day: day)
        return Self.canonicalQuery(query) + "&X-Amz-Signature=\(signature)"
    }

    private func scope(_ day: String) -> String { "\(day)/\(region)/\(service)/aws4_request" }

    private func sign(canonicalRequest: String, amzDate: String, day: String) -> String {
        let stringToSign = [Self.algorithm, amzDate, scope(day), Self.hexSHA256(Data(canonicalRequest.utf8))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key)
        return signature.hexString
    }

    // MARK: Canonical forms

    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map {
            (uriEncode($0.0, encodeSlash: true), uriEncode($0.1, encodeSlash: true))
        }
        let sorted = encoded.sorted { lhs, rhs in
            lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name
        }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    private static func canonicalHeaders(_ headers: [(String, String)]) -> (block: String, signedNames: String) {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
                .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            merged[name.lowercased(), default: []].append(trimmed)
        }
        let names = merged.keys.sorted()
        let block = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    /// RFC 3986 encoding as SigV4 wants it: unreserved characters stay, everything else is %XX.
    static func uriEncode(_ text: String, encodeSlash: Bool) -> String {
        PercentEncoding.encode(text, keepingSlash: !encodeSlash)
    }

    static func timestamps(_ date: Date) -> (amzDate: String, day: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let day = String(format: "%04d%02d%02d", c.year!, c.month!, c.day!)
        return (day + String(format: "T%02d%02d%02dZ", c.hour!, c.minute!, c.second!), day)
    }

    static func hexSHA256(_ data: some DataProtocol) -> String { SHA256.hash(data: data).hexString }

}
