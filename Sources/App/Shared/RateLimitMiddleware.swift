import Hummingbird
import SelfieCore

/// Applies a per-address rate limit to the routes it guards (throws `RateLimited`).
struct RateLimitMiddleware<Context: ClientAddressProviding>: RouterMiddleware {
    let protection: BruteForceProtection
    let action: BruteForceProtection.Action

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        try await protection.consume(action, client: context.remoteAddress)
        return try await next(request, context)
    }
}

extension RouterGroup where Context: ClientAddressProviding {
    /// A group whose routes count against the per-address limit of `action`.
    func limited(_ action: BruteForceProtection.Action, by protection: BruteForceProtection) -> RouterGroup<Context> {
        group().add(middleware: RateLimitMiddleware(protection: protection, action: action))
    }
}

extension RequestOrigin {
    /// The origin of an HTTP request: the peer's address and its User-Agent.
    init(_ request: Request, remoteAddress: String) {
        self.init(ipAddress: remoteAddress, userAgent: request.headers[.userAgent] ?? "")
    }
}
