import Foundation
import HTTPTypes
import Hummingbird
import SelfieCore

/// Headers every response gets, errors included (this runs outside the error path): the request
/// id, `nosniff`, no framing, a strict referrer policy, HSTS behind https, and on HTML pages a
/// Content-Security-Policy without inline script.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
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

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        response.headers[.xRequestID] = context.id
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        // Pages that must not send a referrer at all (a share link's) have said so already.
        if response.headers[.referrerPolicy] == nil { response.headers[.referrerPolicy] = "same-origin" }
        if strictTransportSecurity {
            response.headers[.strictTransportSecurity] = "max-age=31536000; includeSubDomains"
        }
        if response.headers[.contentType]?.hasPrefix("text/html") == true {
            response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        }
        return response
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

