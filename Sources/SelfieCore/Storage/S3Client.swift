import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The few S3 operations Selfie needs, signed with SigV4, over AsyncHTTPClient.
struct S3Client: Sendable {
    let configuration: S3Configuration
    let http: HTTPClient
    let signer: SigV4Signer
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }
    /// Per request, for its answer once the body is sent; an unreachable store fails within
    /// this time. A body gets more on top (`uplinkFloor`).
    var timeout: TimeAmount = .seconds(30)
    /// The slowest link to the store a body is given time for, in bytes a second (256 kbit/s): the
    /// deadline runs until the answer's head, which S3 sends only once it has the whole body, so
    /// a fixed one would cut every 5 MiB part off on an uplink under 1.4 Mbit/s.
    static let uplinkFloor: Int64 = 32 * 1024

    init(configuration: S3Configuration, http: HTTPClient = .shared, logger: Logger) {
        self.configuration = configuration
        self.http = http
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region, service: "s3")
        self.scopedLogger = ScopedLogger(logger)
    }

    struct Response {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: ByteBuffer
    }

    /// Where a request for `objectKey` (nil: the bucket itself) goes, in the configured addressing style.
    func location(objectKey: String?, endpoint: URL? = nil) -> (scheme: String, host: String, path: String) {
        let endpoint = endpoint ?? configuration.endpoint
        let scheme = endpoint.scheme?.lowercased() ?? "https"
        var host = endpoint.host ?? "localhost"
        if let port = endpoint.port { host += ":\(port)" }
        var basePath = endpoint.path
        if basePath.hasSuffix("/") { basePath.removeLast() }
        let encodedKey = objectKey.map { SigV4Signer.uriEncode($0, encodeSlash: false) }
        switch configuration.addressing {
        case .path:
            let bucketPath = "\(basePath)/\(SigV4Signer.uriEncode(configuration.bucket, encodeSlash: true))"
            return (scheme, host, encodedKey.map { "\(bucketPath)/\($0)" } ?? bucketPath)
        case .virtualHost:
            return (scheme, "\(configuration.bucket).\(host)", "\(basePath)/\(encodedKey ?? "")")
        }
    }

    /// A presigned GET URL for an object, at the public endpoint when there is one. Signed as of
    /// the start of the current quarter hour (and valid a quarter hour longer), so the URL stays
    /// the same across page loads and browsers can cache the image.
    func presignedGetURL(objectKey: String, lifetime: Duration, now: Date = .now) -> String {
        let (scheme, host, path) = location(objectKey: objectKey, endpoint: configuration.publicEndpoint)
        let quarter = 900
        let signedAt = Date(timeIntervalSince1970: TimeInterval(Int(now.timeIntervalSince1970) / quarter * quarter))
        let seconds = min(max(Int(lifetime.components.seconds), 1) + quarter, 7 * 24 * 3600)
        let query = signer.presignedQuery(
            for: SignableRequest(method: "GET", host: host, path: path),
            expires: seconds,
            date: signedAt
        )
        return "\(scheme)://\(host)\(path)?\(query)"
    }

    /// A request's body: bytes in memory, or a part spooled on disk and streamed from there.
    enum Payload {
        case bytes(ByteBuffer)
        case spooled(S3PartSpool)
    }

    /// Sends a signed request and collects the (small) response body.
    func send(
        _ method: HTTPMethod,
        objectKey: String?,
        query: [(String, String)] = [],
        headers extraHeaders: [(String, String)] = [],
        body: ByteBuffer? = nil
    ) async throws -> Response {
        try await send(method, objectKey: objectKey, query: query, headers: extraHeaders, payload: body.map(Payload.bytes))
    }

    func send(
        _ method: HTTPMethod,
        objectKey: String?,
        query: [(String, String)] = [],
        headers extraHeaders: [(String, String)] = [],
        payload: Payload?
    ) async throws -> Response {
        let response = try await execute(method, objectKey: objectKey, query: query, headers: extraHeaders, payload: payload)
        let collected: ByteBuffer
        do {
            collected = try await response.body.collect(upTo: 4 * 1024 * 1024)
        } catch {
            throw BlobStoreError.unavailable("reading S3 response: \(error)")
        }
        return Response(status: response.status, headers: response.headers, body: collected)
    }

    /// Sends a signed request and hands back the streaming response.
    func execute(
        _ method: HTTPMethod,
        objectKey: String?,
        query: [(String, String)] = [],
        headers extraHeaders: [(String, String)] = [],
        payload: Payload? = nil
    ) async throws -> HTTPClientResponse {
        let (scheme, host, path) = location(objectKey: objectKey)
        let payloadHash = switch payload {
        case .bytes(let body): SigV4Signer.hexSHA256(body.readableBytesView)
        case .spooled(let spool): spool.hexSHA256
        case nil: SigV4Signer.emptyPayloadHash
        }
        let signed = signer.signedHeaders(
            for: SignableRequest(
                method: method.rawValue,
                host: host,
                path: path,
                query: query,
                headers: extraHeaders + [("x-amz-content-sha256", payloadHash)]
            ),
            payloadHash: payloadHash,
            date: .now
        )
        let queryString = SigV4Signer.canonicalQuery(query)
        var request = HTTPClientRequest(url: "\(scheme)://\(host)\(path)" + (queryString.isEmpty ? "" : "?\(queryString)"))
        request.method = method
        // Every signed header goes out exactly as signed, Host included (AsyncHTTPClient would
        // otherwise write its own, without an explicit default port).
        for (name, value) in signed {
            request.headers.add(name: name, value: value)
        }
        var sending: Int64 = 0
        switch payload {
        case .bytes(let body):
            request.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
            request.body = .bytes(body)
            sending = Int64(body.readableBytes)
        case .spooled(let spool):
            request.headers.replaceOrAdd(name: "Content-Length", value: String(spool.count))
            request.body = .stream(spool.chunks(), length: .known(Int64(spool.count)))
            sending = Int64(spool.count)
        case nil where method == .PUT || method == .POST:
            request.headers.replaceOrAdd(name: "Content-Length", value: "0")
        case nil:
            break
        }
        let deadline = timeout + .milliseconds(sending * 1000 / Self.uplinkFloor)
        do {
            return try await http.execute(request, timeout: deadline, logger: logger)
        } catch let error as HTTPClientError where error == .remoteConnectionClosed && Self.mayResend(method, payload) {
            // A kept-alive connection the store closed just as the request went out (its idle
            // timeout is shorter than the pool's): no answer came, so the request is sent once
            // more, on a new connection.
            do {
                return try await http.execute(request, timeout: deadline, logger: logger)
            } catch {
                throw BlobStoreError.unavailable("S3 \(method.rawValue) \(path): \(error)")
            }
        } catch {
            throw BlobStoreError.unavailable("S3 \(method.rawValue) \(path): \(error)")
        }
    }

    /// Whether a request may go out again after its connection closed unanswered: an idempotent
    /// one (GET, HEAD, DELETE, PUT — not the POSTs that start and complete a multipart upload)
    /// whose body is still in memory.
    static func mayResend(_ method: HTTPMethod, _ payload: Payload?) -> Bool {
        switch payload {
        case .spooled: false
        case .bytes, nil: [.GET, .HEAD, .DELETE, .PUT].contains(method)
        }
    }

    /// An error for a non-2xx answer: the S3 error code and message are kept for the log.
    func failure(_ response: Response, _ action: String) -> BlobStoreError {
        let text = String(buffer: response.body)
        let code = XMLText.values(of: "Code", in: text).first ?? "HTTP \(response.status.code)"
        let message = XMLText.values(of: "Message", in: text).first ?? ""
        let reason = "S3 \(action) failed: \(code) \(message)"
        if response.status.code == 507 || code == "XMinioStorageFull" || code == "QuotaExceeded" {
            return .insufficientStorage(reason)
        }
        return .unavailable(reason)
    }

    /// Creates the bucket (used by tests and first-time set-up); an existing bucket of ours is fine.
    func createBucket() async throws {
        let body: ByteBuffer? =
            configuration.region == "us-east-1"
            ? nil
            : ByteBuffer(
                string:
                    "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(configuration.region)</LocationConstraint></CreateBucketConfiguration>"
            )
        let response = try await send(.PUT, objectKey: nil, body: body)
        guard response.status.code < 300 || String(buffer: response.body).contains("BucketAlreadyOwnedByYou") else {
            throw failure(response, "CreateBucket")
        }
    }
}

/// Just enough XML reading for S3's small, flat answers.
enum XMLText {
    /// The text of every `<tag>…</tag>` in document order, entities decoded.
    static func values(of tag: String, in xml: String) -> [String] {
        var values: [String] = []
        var rest = xml[...]
        let open = "<\(tag)>"
        let close = "</\(tag)>"
        while let start = rest.range(of: open), let end = rest.range(of: close, range: start.upperBound..<rest.endIndex) {
            values.append(decode(String(rest[start.upperBound..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        return values
    }

    /// Each `<tag>…</tag>` element's inner XML, for reading repeated records such as `<Contents>`.
    static func elements(_ tag: String, in xml: String) -> [String] {
        var elements: [String] = []
        var rest = xml[...]
        while let start = rest.range(of: "<\(tag)>"), let end = rest.range(of: "</\(tag)>", range: start.upperBound..<rest.endIndex) {
            elements.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return elements
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func decode(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}
