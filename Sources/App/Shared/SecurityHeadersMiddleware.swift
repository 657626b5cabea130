import Foundation
import HTTPTypes
import Hummingbird
import SelfieCore

/// Adds `SecurityHeaders` to every response, errors included (this runs outside the error path).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let headers: SecurityHeaders

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        headers.add(to: &response.headers, requestID: context.id)
        return response
    }
}

/// Headers every response gets: the request id, `nosniff`, no framing, a strict referrer policy,
/// HSTS behind https, and on HTML pages a Content-Security-Policy without inline script. Added by
/// `SecurityHeadersMiddleware` to what the router answers and by `StaticAssetsOnTheLoop` to the
/// static files it answers itself.
struct SecurityHeaders: Sendable {
    let contentSecurityPolicy: String
    let strictTransportSecurity: Bool

    init(config: AppConfiguration) {
        var imageSources = ["'self'"]
        if case .s3(let s3) = config.blobStore, let origin = Self.origin(of: s3.publicEndpoint ?? s3.endpoint, bucket: s3) {
            imageSources.append(origin)
        }
        // "Continue with …" forms redirect to the provider, which form-action also governs.
        var formTargets = ["'self'"]
        for provider in config.social.oidc {
            if let origin = URL(string: provider.issuer).flatMap(Self.origin(of:)), !formTargets.contains(origin) {
                formTargets.append(origin)
            }
        }
        self.contentSecurityPolicy = [
            "default-src 'self'",
            "img-src \(imageSources.joined(separator: " "))",
            "script-src 'self'",
            "style-src 'self'",
            "form-action \(formTargets.joined(separator: " "))",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "object-src 'none'",
        ].joined(separator: "; ")
        self.strictTransportSecurity = config.usesHTTPS
    }

    func add(to headers: inout HTTPFields, requestID: String) {
        headers[.xRequestID] = requestID
        addFixed(to: &headers)
    }

    /// All but the request id: what is the same on every answer with these headers.
    func addFixed(to headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[.xFrameOptions] = "DENY"
        // Pages that must not send a referrer at all (a share link's) have said so already.
        if headers[.referrerPolicy] == nil { headers[.referrerPolicy] = "same-origin" }
        if strictTransportSecurity {
            headers[.strictTransportSecurity] = "max-age=31536000; includeSubDomains"
        }
        if headers[.contentType]?.hasPrefix("text/html") == true {
            headers[.contentSecurityPolicy] = contentSecurityPolicy
        }
    }

    /// The origin images are loaded from in the S3 store's addressing style.
    static func origin(of endpoint: URL, bucket: S3Configuration) -> String? {
        guard bucket.addressing == .virtualHost else { return origin(of: endpoint) }
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
        components?.host = endpoint.host.map { "\(bucket.bucket).\($0)" }
        return components?.url.flatMap(origin(of:))
    }

    /// `scheme://host[:port]` of a URL.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}

extension HTTPField.Name {
    static let xRequestID = Self("X-Request-Id")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}

