import Hummingbird
import SelfieCore

/// A context with a signed-in browser session (the signed-in pages, the admin pages).
protocol SessionContext: RequestContext {
    var session: ActiveSession { get }
}

extension SignedInContext: SessionContext {}
extension AdminContext: SessionContext {}

/// Guards the sensitive pages that ask for no password of their own (passkeys, two-step
/// verification, linked providers, a copy of the data, an administrator's changes): without a
/// proof from the last ten minutes (`StepUp`) the browser is sent to "confirm it's you" (by
/// `WebErrorMiddleware`) and comes back.
struct RecentConfirmationMiddleware<Context: SessionContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try StepUp.require(confirmedAt: context.session.confirmedAt)
        return try await next(request, context)
    }
}
