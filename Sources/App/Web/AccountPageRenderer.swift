import Foundation
import Hummingbird
import SelfieCore

/// The account page, drawn for the account controller and for the forms of other controllers
/// that answer a refusal on it (two-step verification's), so no controller holds another.
struct AccountPageRenderer: Sendable {
    let accounts: AccountService
    let social: SocialSignInService
    let secondFactor: SecondFactorService
    let passkeys: PasskeyService
    let photos: PhotoService
    let pages: PageRenderer

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
        /// Originals, renditions and the trash against the quota.
        let storage: StorageUsageText
        let hasPassword: Bool
        /// An account with neither email nor username chooses a username with its first password.
        let needsUsername: Bool
        let identities: [IdentityRow]
        let linkable: [ProviderButton]
        /// Unlinking is offered only while another way to sign in remains (`WaysIn`).
        let canUnlink: Bool
        /// (Stored, not computed: templates read stored properties only.)
        let mustSetPasswordToUnlink: Bool
        /// Removing a passkey is offered only while another way to sign in remains.
        let canRemovePasskey: Bool
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
        var preferences: PreferencesSection? = nil
        /// "3 unused recovery codes left", "2 browsers skip the code for now".
        var recoveryCodesText = ""
        var rememberedBrowsersText = ""
    }

    /// "Language and time": what the account is shown in, changed with the footer's form.
    struct PreferencesSection: Sendable {
        let languages: [PageRenderer.Chrome.Choice]
        let themes: [PageRenderer.Chrome.Choice]
        /// "Europe/Berlin", from this browser; nil until a page script has told us.
        let timeZone: String?
        let now: String

        init(viewer: Viewer, words: Words) {
            let chrome = PageRenderer.Chrome(viewer: viewer, translations: words.translations)
            languages = chrome.languages
            themes = chrome.themes
            timeZone = viewer.timeZone?.identifier
            now = viewer.time(Date())
        }
    }

    /// The page, with `refused` filling in the refusal of one of its forms.
    func render(
        context: SignedInContext,
        notice: LocalizedText? = nil,
        status: HTTPResponse.Status = .ok,
        refused: (inout AccountPage) -> Void = { _ in }
    ) async throws -> HTML {
        let words = pages.words(for: context)
        let sessions = try await accounts.listSessions(of: context.user).map { session in
            AccountPage.SessionRow(
                device: UserAgentSummary.describe(session.userAgent, words: words),
                ipAddress: session.ipAddress.isEmpty ? words("account-unknown-address") : session.ipAddress,
                signedInAt: words.time(session.createdAt),
                lastSeenAt: words.time(session.lastSeenAt),
                isCurrent: session.id == context.session.sessionID
            )
        }
        let linked = try await social.identities(of: context.user)
        let hasLogin = context.user.email != nil || context.user.username != nil
        let waysIn = try await accounts.waysIn(of: context.user)
        // A password is only ever set together with something to type next to it (the username
        // chosen with a first password), so the way in and the stored hash go together.
        let hasPassword = waysIn.password
        let providers = social.providers
        let twoFactor = try await secondFactor.status(of: context.user)
        let passkeyRows = try await passkeys.list(of: context.user).map { passkey in
            AccountPage.PasskeyRow(
                id: passkey.id,
                name: passkey.name,
                addedAt: words.time(passkey.createdAt),
                lastUsedAt: passkey.lastUsedAt.map(words.time) ?? words("account-never"),
                isSynced: passkey.isBackedUp
            )
        }
        var page = AccountPage(
            fullName: context.user.fullName,
            email: context.user.email ?? words("account-no-email"),
            hasEmail: context.user.email != nil,
            username: context.user.username,
            memberSince: words.time(context.user.createdAt),
            storage: StorageUsageText(try await photos.usage(of: context.user), words: words),
            hasPassword: hasPassword,
            needsUsername: !hasLogin,
            identities: linked.map { identity in
                AccountPage.IdentityRow(
                    id: identity.id,
                    provider: providers.displayName(of: identity.provider),
                    account: identity.email ?? identity.displayName ?? words("account-provider-account", ["id": .text(identity.subject)]),
                    linkedAt: words.time(identity.createdAt)
                )
            },
            linkable: providers.oidcConfigurations.filter { configuration in
                !linked.contains { $0.provider == configuration.name }
            }.map(ProviderButton.init),
            canUnlink: waysIn.canLoseOne,
            mustSetPasswordToUnlink: !waysIn.canLoseOne && !linked.isEmpty,
            canRemovePasskey: waysIn.canLoseOne,
            sessions: sessions,
            hasOtherSessions: sessions.contains { !$0.isCurrent },
            emailConfirmed: context.user.emailVerified,
            signedInRecently: StepUp.isRecent(context.session.confirmedAt),
            recentSignInMinutes: Int(StepUp.window / 60),
            twoFactorEnabled: twoFactor.isEnabled,
            unusedRecoveryCodes: twoFactor.unusedRecoveryCodes,
            rememberedBrowsers: twoFactor.rememberedBrowsers,
            passkeys: passkeyRows,
            preferences: PreferencesSection(viewer: context.viewer, words: words)
        )
        page.recoveryCodesText = words("account-recovery-codes-left", ["count": .number(twoFactor.unusedRecoveryCodes)])
        page.rememberedBrowsersText = words("account-remembered-browsers", ["count": .number(twoFactor.rememberedBrowsers)])
        refused(&page)
        return try pages.render(.account, title: "title-account", page: page, context: context, notice: notice, status: status)
    }
}
