import Hummingbird
import SelfieCore

/// The context of every `/admin` page: creating it fails for visitors (sent to sign in) and for
/// signed-in people who are not admins (a 403 page), so no admin handler can forget the check.
struct AdminContext: ChildRequestContext, PageContext {
    var coreContext: CoreRequestContextStorage
    let session: ActiveSession
    let remoteAddress: String
    let csrfToken: String
    let viewer: Viewer

    var admin: User { session.user }
    var signedInUser: User? { session.user }
    var maxUploadSize: Int { 64 * 1024 }

    init(context: WebRequestContext) throws {
        guard let session = context.session else { throw SignInRequired() }
        guard session.user.role == .admin else {
            throw Refusal(.forbidden, "error-admins-only")
        }
        self.coreContext = context.coreContext
        self.session = session
        self.remoteAddress = context.remoteAddress
        self.csrfToken = context.csrfToken
        self.viewer = context.viewer
    }

    func origin(_ request: Request) -> RequestOrigin { RequestOrigin(request, remoteAddress: remoteAddress) }
}
