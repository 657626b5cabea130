import Hummingbird
import SelfieCore

/// The account page: profile, password and address changes, the user's signed-in browsers, a
/// copy of their data, and deleting the account.
struct AccountPagesController {
    let accounts: AccountService
    let emails: AccountEmails
    let deletion: AccountDeletion
    let export: DataExport
    let social: SocialSignInService
    let pages: PageRenderer
    let cookies: BrowserCookies
    let protection: BruteForceProtection
    let secondFactor: SecondFactorService
    let passkeys: PasskeyService

    func addRoutes(to group: RouterGroup<SignedInContext>, sensitive: RouterGroup<SignedInContext>) {
        group.get(RouterPath(WebPath.account), use: show)
        // A current-password check is a guess like a sign-in: the same per-address limit.
        let passwordChecked = group.limited(.signIn, by: protection)
        passwordChecked.post(RouterPath(WebPath.accountPassword), use: changePassword)
        passwordChecked.post(RouterPath(WebPath.changeEmail), use: requestEmailChange)
        passwordChecked.post(RouterPath(WebPath.deleteAccount), use: deleteAccount)
        group.post(RouterPath(WebPath.endOtherSessions), use: endOtherSessions)
        sensitive.get(RouterPath(WebPath.exportData), use: exportData)
    }

    /// Which form on the page a refusal belongs to (several ask for the current password).
    enum Section {
        case password
        case email
        case deletion
    }

    struct AccountPage: Sendable {
        struct SessionRow: Sendable {
            let device: String
            let ipAddress: String
            let signedInAt: String
            let lastSeenAt: String
            let isCurrent: Bool
        }

        struct PasskeyRow: Sendable {
            let id: Int64
            let name: String
            let addedAt: String
            let lastUsedAt: String
            let isSynced: Bool
        }

        struct IdentityRow: Sendable {
            let id: Int64
            let provider: String
            let account: String
            let linkedAt: String
        }

        let fullName: String
        let email: String
        let hasEmail: Bool
        let username: String?
        let memberSince: String
        let hasPassword: Bool
        /// An account with neither email nor username chooses a username with its first password.
        let needsUsername: Bool
        let identities: [IdentityRow]
        let linkable: [ProviderButton]
        /// Unlinking is offered only while another way to sign in remains.
        let canUnlink: Bool
        /// (Stored, not computed: templates read stored properties only.)
        let mustSetPasswordToUnlink: Bool
        let sessions: [SessionRow]
        let hasOtherSessions: Bool
        /// Whether the current address is confirmed (the profile says so, or offers the link again).
        let emailConfirmed: Bool
        /// An account without a password confirms its deletion with a recent sign-in.
        let signedInRecently: Bool
        let recentSignInMinutes: Int
        let twoFactorEnabled: Bool
        let unusedRecoveryCodes: Int
        let rememberedBrowsers: Int
        let passkeys: [PasskeyRow]
        var twoFactorError: String?
        var passwordErrors: [String: String] = [:]
        var emailErrors: [String: String] = [:]
        var newEmail = ""
        var deletionErrors: [String: String] = [:]
    }

    func show(_ request: Request, context: SignedInContext) async throws -> Response {
        try await render(context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    struct PasswordForm: Decodable {
        var currentPassword: String?
        var newPassword: String?
        var newPasswordConfirmation: String?
        /// Only asked of an account with neither email nor username, with its first password.
        var username: String?

        enum CodingKeys: String, CodingKey {
            case currentPassword = "current_password"
            case newPassword = "new_password"
            case newPasswordConfirmation = "new_password_confirmation"
            case username
        }
    }

    func changePassword(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(PasswordForm.self, from: request, context: context)
        let hadPassword = try await accounts.hasPassword(context.user)
        do {
            try await accounts.changePassword(
                of: context.user,
                current: form.currentPassword ?? "",
                new: form.newPassword ?? "",
                confirmation: form.newPasswordConfirmation ?? "",
                username: form.username,
                keepingSession: context.session.sessionID,
                confirmedAt: context.session.confirmedAt,
                origin: context.origin(request)
            )
            context.logger.info("password changed", metadata: ["user": "\(context.user.id)"])
            return .seeOther(WebPath.account(notice: hadPassword ? .passwordChanged : .passwordSet))
        } catch let problems as InvalidFields {
            return try await render(context: context, errors: problems, in: .password).response(from: request, context: context)
        }
    }

    struct EmailChangeForm: Decodable {
        var email: String?
        var currentPassword: String?

        enum CodingKeys: String, CodingKey {
            case email
            case currentPassword = "current_password"
        }
    }

    /// Mails a link to the new address (and a notice to the current one); the account keeps its
    /// address until the link is opened.
    func requestEmailChange(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(EmailChangeForm.self, from: request, context: context)
        do {
            try await emails.requestEmailChange(
                of: context.user,
                to: form.email ?? "",
                currentPassword: form.currentPassword ?? "",
                confirmedAt: context.session.confirmedAt,
                origin: context.origin(request)
            )
        } catch let problems as InvalidFields {
            return try await render(context: context, errors: problems, in: .email, newEmail: form.email ?? "")
                .response(from: request, context: context)
        } catch let limited as RateLimited where limited.scope == .address {
            throw AppError(.tooManyRequests, "We have already sent several links today. Use one of them, or try again tomorrow.")
        }
        return .seeOther(WebPath.account(notice: .emailChangeRequested))
    }

    struct DeletionForm: Decodable {
        var currentPassword: String?

        enum CodingKeys: String, CodingKey {
            case currentPassword = "current_password"
        }
    }

    /// Deletes the account, its photos and its sessions; this browser is signed out.
    func deleteAccount(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(DeletionForm.self, from: request, context: context)
        do {
            try await deletion.delete(
                context.user,
                password: form.currentPassword ?? "",
                confirmedAt: context.session.confirmedAt,
                origin: context.origin(request)
            )
        } catch let problems as InvalidFields {
            return try await render(context: context, errors: problems, in: .deletion).response(from: request, context: context)
        }
        context.logger.info("account deleted by its owner", metadata: ["user": "\(context.user.id)"])
        var response = Response.seeOther(WebPath.signIn(notice: .accountDeleted))
        response.setCookie(cookies.clearedSession())
        return response
    }

    /// "Download my data": a ZIP streamed while it is written (no length known in advance).
    func exportData(_ request: Request, context: SignedInContext) async throws -> Response {
        let archive = try await export.archive(of: context.user, origin: context.origin(request))
        return .download(archive, filename: DataExport.filename(for: context.user), contentType: "application/zip")
    }

    func endOtherSessions(_ request: Request, context: SignedInContext) async throws -> Response {
        try await accounts.endOtherSessions(of: context.user, keeping: context.session.sessionID)
        return .seeOther(WebPath.account(notice: .otherSessionsEnded))
    }

    /// The page again, with what was refused next to the form it came from.
    private func render(context: SignedInContext, errors: InvalidFields, in section: Section, newEmail: String = "") async throws -> HTML {
        let messages = ErrorCopy.messages(for: errors)
        return try await render(context: context, status: .unprocessableContent) { page in
            switch section {
            case .password: page.passwordErrors = messages
            case .email:
                page.emailErrors = messages
                page.newEmail = newEmail
            case .deletion: page.deletionErrors = messages
            }
        }
    }

    /// The page, with `refused` filling in the refusal of one of its forms.
    func render(
        context: SignedInContext,
        notice: String? = nil,
        status: HTTPResponse.Status = .ok,
        refused: (inout AccountPage) -> Void = { _ in }
    ) async throws -> HTML {
        let sessions = try await accounts.listSessions(of: context.user).map { session in
            AccountPage.SessionRow(
                device: UserAgentSummary.describe(session.userAgent),
                ipAddress: session.ipAddress.isEmpty ? "unknown" : session.ipAddress,
                signedInAt: session.createdAt.displayString,
                lastSeenAt: session.lastSeenAt.displayString,
                isCurrent: session.id == context.session.sessionID
            )
        }
        let linked = try await social.identities(of: context.user)
        let hasPassword = try await accounts.hasPassword(context.user)
        // A password is only a way in with an email or a username to type next to it.
        let hasLogin = context.user.email != nil || context.user.username != nil
        let signsInWithPassword = hasPassword && hasLogin
        let providers = social.providers
        let twoFactor = try await secondFactor.status(of: context.user)
        let passkeyRows = try await passkeys.list(of: context.user).map { passkey in
            AccountPage.PasskeyRow(
                id: passkey.id,
                name: passkey.name,
                addedAt: passkey.createdAt.displayString,
                lastUsedAt: passkey.lastUsedAt?.displayString ?? "never",
                isSynced: passkey.isBackedUp
            )
        }
        var page = AccountPage(
            fullName: context.user.fullName,
            email: context.user.email ?? "none",
            hasEmail: context.user.email != nil,
            username: context.user.username,
            memberSince: context.user.createdAt.displayString,
            hasPassword: hasPassword,
            needsUsername: !hasLogin,
            identities: linked.map { identity in
                AccountPage.IdentityRow(
                    id: identity.id,
                    provider: providers.displayName(of: identity.provider),
                    account: identity.email ?? identity.displayName ?? "account \(identity.subject)",
                    linkedAt: identity.createdAt.displayString
                )
            },
            linkable: providers.oidcConfigurations.filter { configuration in
                !linked.contains { $0.provider == configuration.name }
            }.map(ProviderButton.init),
            canUnlink: signsInWithPassword || linked.count > 1,
            mustSetPasswordToUnlink: !signsInWithPassword && linked.count == 1,
            sessions: sessions,
            hasOtherSessions: sessions.contains { !$0.isCurrent },
            emailConfirmed: context.user.emailVerified,
            signedInRecently: StepUp.isRecent(context.session.confirmedAt),
            recentSignInMinutes: Int(StepUp.window / 60),
            twoFactorEnabled: twoFactor.isEnabled,
            unusedRecoveryCodes: twoFactor.unusedRecoveryCodes,
            rememberedBrowsers: twoFactor.rememberedBrowsers,
            passkeys: passkeyRows
        )
        refused(&page)
        return try pages.render(.account, title: "Your account", page: page, context: context, notice: notice, status: status)
    }
}
