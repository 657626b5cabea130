import HTTPTypes
import Hummingbird
import SelfieCore

/// Behind a trusted reverse proxy, the client is the one the proxy names (in the one header
/// `CLIENT_IP_HEADER` says it sets; the scheme also from `X-Forwarded-Proto`), not the proxy:
/// every surface, rate limit, session and audit entry downstream sees that address. From any
/// other peer the headers are ignored.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let trusted: TrustedProxies
    let header: ClientIPHeader

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard !trusted.blocks.isEmpty else { return try await next(request, context) }
        var context = context
        let client = ClientAddress.resolve(
            peer: context.peerAddress,
            reading: header,
            forwarded: request.headers[values: .forwarded],
            xForwardedFor: request.headers[values: .xForwardedFor],
            xForwardedProto: request.headers[values: .xForwardedProto],
            trusted: trusted
        )
        context.remoteAddress = client.address
        context.scheme = client.scheme
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let forwarded = Self("Forwarded")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}
