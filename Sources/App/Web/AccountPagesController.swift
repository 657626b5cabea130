import Hummingbird
import SelfieCore

/// The account page: profile, password and address changes, the user's signed-in browsers, a
/// copy of their data, and deleting the account.
struct AccountPagesController {
    let accounts: AccountService
    let emails: AccountEmails
    let deletion: AccountDeletion
    let export: DataExport
    let accountPage: AccountPageRenderer
    let cookies: BrowserCookies
    let protection: BruteForceProtection

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

    func show(_ request: Request, context: SignedInContext) async throws -> Response {
        try await accountPage.render(context: context, notice: Notice.message(from: request))
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
                in: context.session,
                to: form.email ?? "",
                currentPassword: form.currentPassword ?? "",
                origin: context.origin(request)
            )
        } catch let problems as InvalidFields {
            return try await render(context: context, errors: problems, in: .email, newEmail: form.email ?? "")
                .response(from: request, context: context)
        } catch let limited as RateLimited where limited.scope == .user {
            throw Refusal(.tooManyRequests, "error-too-many-links-today")
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
        try await .download(for: request, filename: DataExport.filename(for: context.user), contentType: "application/zip") {
            try await export.archive(of: context.user, origin: context.origin(request))
        }
    }

    func endOtherSessions(_ request: Request, context: SignedInContext) async throws -> Response {
        try await accounts.endOtherSessions(of: context.user, keeping: context.session.sessionID, origin: context.origin(request))
        return .seeOther(WebPath.account(notice: .otherSessionsEnded))
    }

    /// The page again, with what was refused next to the form it came from.
    private func render(context: SignedInContext, errors: InvalidFields, in section: Section, newEmail: String = "") async throws -> HTML {
        let messages = ErrorCopy(words: accountPage.pages.words(for: context)).messages(for: errors)
        return try await accountPage.render(context: context, status: .unprocessableContent) { page in
            switch section {
            case .password: page.passwordErrors = messages
            case .email:
                page.emailErrors = messages
                page.newEmail = newEmail
            case .deletion: page.deletionErrors = messages
            }
        }
    }
}
