import Hummingbird

/// The context of every `/admin` page: creating it fails for visitors (sent to sign in) and for
/// signed-in people who are not admins (a 403 page), so no admin handler can forget the check.
public struct AdminContext: ChildRequestContext, PageContext {
    public var coreContext: CoreRequestContextStorage
    public let session: ActiveSession
    public let remoteAddress: String
    public let csrfToken: String

    public var admin: User { session.user }
    public var signedInUser: User? { session.user }

    public init(context: AppRequestContext) throws {
        guard let session = context.session else { throw SignInRequired() }
        guard session.user.role == .admin else {
            throw AppError(.forbidden, "This page is for administrators.")
        }
        self.coreContext = context.coreContext
        self.session = session
        self.remoteAddress = context.remoteAddress
        self.csrfToken = context.csrfToken
    }

    func origin(_ request: Request) -> RequestOrigin { RequestOrigin(request, remoteAddress: remoteAddress) }
}
