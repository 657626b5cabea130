import Hummingbird
import SelfieCore

/// "Confirm it's you" (`StepUp`): the page a sensitive change sends a browser to when its last
/// proof is older than ten minutes. The password, or for an account without one a new sign-in
/// with a passkey or a linked provider, and the browser goes back to where it was.
struct StepUpPagesController {
    let stepUp: StepUp
    let accounts: AccountService
    let social: SocialSignInService
    let pages: PageRenderer
    let protection: BruteForceProtection

    func addRoutes(to signedIn: RouterGroup<SignedInContext>) {
        signedIn.get(RouterPath(WebPath.confirmItsYou), use: show)
        // The password again is a guess like a sign-in: the same per-address limit.
        signedIn.limited(.signIn, by: protection).post(RouterPath(WebPath.confirmItsYou), use: confirm)
    }

    struct ConfirmPage: Sendable {
        let next: String
        let hasPassword: Bool
        /// Two-step verification is on: the password comes with a code.
        let needsCode: Bool
        let hasPasskeys: Bool
        /// The account's linked providers that can sign in here again.
        let providers: [ProviderButton]
        var error: String?
    }

    struct ConfirmForm: Decodable {
        var currentPassword: String?
        var code: String?
        var next: String?

        enum CodingKeys: String, CodingKey {
            case currentPassword = "current_password"
            case code
            case next
        }
    }

    func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let next = SafeRedirect.localPath(request.uri.queryParameters["next"].map(String.init), default: WebPath.account)
        return try await render(next: next, context: context).response(from: request, context: context)
    }

    func confirm(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(ConfirmForm.self, from: request, context: context)
        let next = SafeRedirect.localPath(form.next, default: WebPath.account)
        do {
            try await stepUp.confirm(context.session, password: form.currentPassword ?? "", code: form.code, origin: context.origin(request))
        } catch let problems as InvalidFields {
            let message = ErrorCopy(words: pages.words(for: context)).messages(for: problems)["currentPassword"] ?? ErrorCopy(words: pages.words(for: context)).sentence(for: problems)
            return try await render(next: next, context: context, error: message, status: .unprocessableContent)
                .response(from: request, context: context)
        } catch let error as SecondFactorError where error == .incorrectCode {
            return try await render(next: next, context: context, error: ErrorCopy(words: pages.words(for: context)).secondFactorError(error).message, status: .unprocessableContent)
                .response(from: request, context: context)
        }
        return .seeOther(next)
    }

    private func render(next: String, context: SignedInContext, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> HTML {
        let waysIn = try await accounts.waysIn(of: context.user)
        let linked = waysIn.identities == 0 ? [] : Set(try await social.identities(of: context.user).map(\.provider))
        let page = ConfirmPage(
            next: next,
            hasPassword: waysIn.password,
            needsCode: try await stepUp.needsCode(context.user),
            hasPasskeys: waysIn.passkeys > 0,
            providers: social.providers.oidcConfigurations.filter { linked.contains($0.name) }.map(ProviderButton.init),
            error: error
        )
        return try pages.render(.confirmItsYou, title: "title-confirm-its-you", page: page, context: context, status: status)
    }
}
