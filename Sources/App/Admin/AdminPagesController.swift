import Foundation
import Hummingbird
import SelfieCore

/// The management pages under `/admin`: dashboard, users, one user (with actions), API keys, audit log.
struct AdminPagesController {
    let service: AdminService
    let accounts: AccountService
    let social: SocialSignInService
    let photos: PhotoService
    let albums: AlbumService
    let sharing: ShareLinkService
    let pages: PageRenderer
    /// The log transport on an https site: nobody receives their links.
    let mailIsNotSent: Bool
    static let pageSize = 25
    /// Far more pages than any user list has; a bound, so that no page number overflows.
    static let maximumPage = 1_000_000

    func addRoutes(to forms: RouterGroup<WebRequestContext>) {
        let admin = forms.group(RouterPath(AdminPath.prefix), context: AdminContext.self)
        admin.get(AdminPath.Pattern.dashboard, use: dashboard)
        admin.get(AdminPath.Pattern.users, use: users)
        admin.get(AdminPath.Pattern.user, use: user)
        // Changes (and the pages that lead to them) need a recent proof, as a person's own
        // sensitive changes do: a stolen admin cookie alone changes nothing.
        let changes = admin.group().add(middleware: RecentConfirmationMiddleware<AdminContext>())
        changes.get(AdminPath.Pattern.userAction, use: confirmUserAction)
        changes.post(AdminPath.Pattern.userAction, use: performUserAction)
        changes.post(AdminPath.Pattern.quota, use: setQuota)
        changes.get(AdminPath.Pattern.apiKeys, use: apiKeys)
        changes.post(AdminPath.Pattern.apiKeys, use: createAPIKey)
        changes.get(AdminPath.Pattern.revokeAPIKey, use: confirmRevokeAPIKey)
        changes.post(AdminPath.Pattern.revokeAPIKey, use: revokeAPIKey)
        admin.get(AdminPath.Pattern.audit, use: auditLog)
        admin.get(AdminPath.Pattern.mail, use: mail)
    }

    // MARK: Dashboard

    struct DashboardPage: Sendable {
        let users: Int
        let activeSessions: Int
        let photos: Int
        let storage: String
        let signIns: Int
        let failedSignIns: Int
        let mailIsNotSent: Bool
        /// The users who store the most.
        let largest: [UserRow]
        let hasLargest: Bool
    }

    func dashboard(_ request: Request, context: AdminContext) async throws -> Response {
        let counts = try await service.dashboard()
        let largest = try await service.users(search: "", sort: .storage, offset: 0, limit: 5).map(UserRow.init)
        let page = DashboardPage(
            users: counts.users,
            activeSessions: counts.activeSessions,
            photos: counts.photos,
            storage: ByteCountText.describe(counts.bytesStored),
            signIns: counts.signInsLastDay,
            failedSignIns: counts.failedSignInsLastDay,
            mailIsNotSent: mailIsNotSent,
            largest: largest,
            hasLargest: !largest.isEmpty
        )
        return try pages.render(.adminDashboard, title: "title-admin", page: page, context: context).response(from: request, context: context)
    }

    // MARK: Users

    struct UserRow: Sendable {
        let id: Int64
        let email: String
        let fullName: String
        let signedUp: String
        let photoCount: Int
        let storage: String
        let lastSignIn: String
        let isDisabled: Bool
        let isAdmin: Bool

        init(_ summary: UserSummary) {
            self.id = summary.user.id
            self.email = summary.user.handle
            self.fullName = summary.user.fullName
            self.signedUp = summary.user.createdAt.displayString
            self.photoCount = summary.photoCount
            self.storage = ByteCountText.describe(summary.bytesStored)
            self.lastSignIn = summary.lastSignedInAt?.displayString ?? "never"
            self.isDisabled = summary.user.isDisabled
            self.isAdmin = summary.user.role == .admin
        }
    }

    struct UsersPage: Sendable {
        struct SortChoice: Sendable {
            let label: String
            let url: String
            let isCurrent: Bool
        }

        let search: String
        let sort: String
        let sorts: [SortChoice]
        let rows: [UserRow]
        let isEmpty: Bool
        let previousURL: String?
        let nextURL: String?
    }

    func users(_ request: Request, context: AdminContext) async throws -> Response {
        let query = request.uri.queryParameters
        let search = String(query["q"] ?? "").trimmingCharacters(in: .whitespaces)
        let sort = UserSort(rawValue: String(query["sort"] ?? "")) ?? .newest
        let pageNumber = try request.queryInteger("page", in: 1...Self.maximumPage) ?? 1
        let found = try await service.users(
            search: search,
            sort: sort,
            offset: (pageNumber - 1) * Self.pageSize,
            limit: Self.pageSize + 1
        )
        func url(page: Int) -> String {
            AdminPath.link(AdminPath.users, ["q": search, "sort": sort.rawValue, "page": String(page)])
        }
        let sorts: [(UserSort, String)] = [(.newest, "newest first"), (.oldest, "oldest first"), (.storage, "most storage first")]
        let page = UsersPage(
            search: search,
            sort: sort.rawValue,
            sorts: sorts.map { choice, label in
                UsersPage.SortChoice(
                    label: label,
                    url: AdminPath.link(AdminPath.users, ["q": search, "sort": choice.rawValue]),
                    isCurrent: choice == sort
                )
            },
            rows: found.prefix(Self.pageSize).map(UserRow.init),
            isEmpty: found.isEmpty,
            previousURL: pageNumber > 1 ? url(page: pageNumber - 1) : nil,
            nextURL: found.count > Self.pageSize ? url(page: pageNumber + 1) : nil
        )
        return try pages.render(.adminUsers, title: "title-admin-users", page: page, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    struct UserPage: Sendable {
        struct Action: Sendable {
            let path: String
            let label: String
            let isDangerous: Bool
        }

        struct Thumbnail: Sendable {
            /// nil while the photo has no renditions yet (admins never see originals).
            let imageURL: String?
            let alt: String
        }

        struct Device: Sendable {
            let description: String
            let detail: String
        }

        struct Quota: Sendable {
            let action: String
            let followsDefault: Bool
            let unlimited: Bool
            let custom: Bool
            let defaultText: String
            /// The custom quota in MB, for the number field.
            let megabytes: String
        }

        let user: UserRow
        let storage: StorageUsageText
        let quota: Quota
        let actions: [Action]
        let photos: [Thumbnail]
        let morePhotos: Bool
        let sessions: [Device]
        let tokens: [Device]
        let identities: [Device]
        /// Their albums ("Holidays · 12 photos") and the share links that open now ("album
        /// Holidays · until … · 3 views"): what they show to people without an account.
        let albums: [Device]
        let liveLinks: [Device]
    }

    func user(_ request: Request, context: AdminContext) async throws -> Response {
        let summary = try await target(context)
        let (shown, more) = try await photos.page(for: summary.user, after: nil, size: 24)
        let sessions = try await accounts.listSessions(of: summary.user).map {
            UserPage.Device(
                description: UserAgentSummary.describe($0.userAgent),
                detail: "IP \($0.ipAddress.isEmpty ? "unknown" : $0.ipAddress) · signed in \($0.createdAt.displayString) · last active \($0.lastSeenAt.displayString)"
            )
        }
        let tokens = try await service.tokens(of: summary.user.id).map {
            UserPage.Device(
                description: "API token (app key \($0.appKey))",
                detail: "issued \($0.createdAt.displayString) · last used \($0.lastUsedAt.displayString) · expires \($0.expiresAt.displayString)"
            )
        }
        let identities = try await social.identities(of: summary.user).map {
            UserPage.Device(
                description: social.providers.displayName(of: $0.provider),
                detail: "\($0.email ?? $0.displayName ?? "id \($0.subject)") · linked \($0.createdAt.displayString) · last used \($0.lastUsedAt.displayString)"
            )
        }
        let page = UserPage(
            user: UserRow(summary),
            storage: StorageUsageText(try await photos.usage(of: summary.user), words: pages.words(for: context)),
            quota: quotaForm(summary),
            actions: Self.actions(for: summary.user).map {
                UserPage.Action(path: AdminPath.userAction($0, on: summary.user.id), label: Self.label($0), isDangerous: $0 == .delete || $0 == .disable)
            },
            photos: shown.map { UserPage.Thumbnail(imageURL: photos.url(of: .thumbnail400, for: $0), alt: $0.title.isEmpty ? "Photo" : $0.title) },
            morePhotos: more,
            sessions: sessions,
            tokens: tokens,
            identities: identities,
            albums: try await albums.cards(for: summary.user).map {
                UserPage.Device(description: $0.album.title, detail: Album.describe(count: $0.album.photoCount))
            },
            liveLinks: try await sharing.liveLinks(ofUserID: summary.user.id).map { link in
                let what = link.albumID != nil ? "Album" : "Photo"
                let expiry = link.expiresAt.map { "until \($0.displayString)" } ?? "never expires"
                let password = link.hasPassword ? " · password" : ""
                return UserPage.Device(
                    description: "\(what) “\(link.targetTitle.isEmpty ? "untitled" : link.targetTitle)”",
                    detail: "made \(link.createdAt.displayString) · \(expiry)\(password) · \(link.views) view(s)"
                )
            }
        )
        return try pages.render(.adminUser, title: .verbatim(summary.user.fullName), page: page, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    private func quotaForm(_ summary: UserSummary) -> UserPage.Quota {
        let defaultBytes = photos.limits.defaultQuotaBytes
        var megabytes = ""
        if case .bytes(let bytes) = summary.quota { megabytes = String(max(1, bytes / (1 << 20))) }
        return UserPage.Quota(
            action: AdminPath.quota(of: summary.user.id),
            followsDefault: summary.quota == .followsDefault,
            unlimited: summary.quota == .unlimited,
            custom: !megabytes.isEmpty,
            defaultText: defaultBytes == 0 ? "no limit" : ByteCountText.describe(defaultBytes),
            megabytes: megabytes
        )
    }

    struct QuotaForm: Decodable {
        var quota: String?
        var megabytes: String?
    }

    /// The quota form: the default, no limit, or a number of MB.
    func setQuota(_ request: Request, context: AdminContext) async throws -> Response {
        let summary = try await target(context)
        let form = try await URLEncodedFormDecoder().decode(QuotaForm.self, from: request, context: context)
        let quota: QuotaSetting
        let described: String
        switch form.quota {
        case "default":
            quota = .followsDefault
            described = "the default"
        case "none":
            quota = .unlimited
            described = "no limit"
        case "custom":
            let text = (form.megabytes ?? "").trimmingCharacters(in: .whitespaces)
            // Up to a petabyte: a bound, so that the bytes never overflow.
            guard let megabytes = Int64(text), (1...1 << 30).contains(megabytes) else {
                throw AppError(.unprocessableContent, "Enter the quota as a whole number of MB, at least 1.")
            }
            quota = .bytes(megabytes << 20)
            described = ByteCountText.describe(megabytes << 20)
        default:
            throw AppError(.unprocessableContent, "Choose the default quota, no limit, or a number of MB.")
        }
        try await service.setQuota(quota, described: described, on: summary.user.id, by: context.admin, origin: context.origin(request))
        return .seeOther(AdminPath.user(summary.user.id, notice: .quotaChanged))
    }

    static func actions(for user: User) -> [AdminService.UserAction] {
        let reset: [AdminService.UserAction] = user.email != nil && !user.isDisabled ? [.sendResetLink] : []
        return reset + [
            user.isDisabled ? .enable : .disable, .revokeAccess, .resetSecondFactor, .revokeLinks, user.role == .admin ? .demote : .promote, .delete,
        ]
    }

    static func label(_ action: AdminService.UserAction) -> String {
        switch action {
        case .disable: "Disable account"
        case .enable: "Enable account"
        case .revokeAccess: "Sign out everywhere (sessions and API tokens)"
        case .delete: "Delete account and photos"
        case .promote: "Make admin"
        case .demote: "Remove admin role"
        case .sendResetLink: "Send a password reset link"
        case .resetSecondFactor: "Reset two-step verification and passkeys"
        case .revokeLinks: "Turn off every share link"
        }
    }

    struct ConfirmPage: Sendable {
        let question: String
        let consequence: String
        let action: String
        let button: String
        let isDangerous: Bool
        let cancelURL: String
    }

    func confirmUserAction(_ request: Request, context: AdminContext) async throws -> Response {
        let summary = try await target(context)
        let action = try userAction(context)
        let who = "\(summary.user.fullName) (\(summary.user.handle))"
        let consequence: String = switch action {
        case .disable: "They will be signed out everywhere at once and cannot sign in until enabled again."
        case .enable: "They will be able to sign in again."
        case .revokeAccess: "Every browser session and API token of theirs ends now; they can sign in again."
        case .delete: "Their account, \(summary.photoCount) photo(s) and every session end for good. This cannot be undone."
        case .promote: "They will be able to use these admin pages."
        case .demote: "They will no longer be able to use these admin pages."
        case .resetSecondFactor:
            "Their authenticator app, recovery codes, remembered browsers and passkeys are removed: their password alone signs them in until they set it up again. Do this only once you are sure it is them (they lost their phone)."
        case .revokeLinks:
            "Every album and photo they shared stops opening for whoever has the link, at once. Their photos and albums stay; they can share again."
        case .sendResetLink:
            "A link to choose a new password goes to \(summary.user.email ?? "their address"); it works once, for one hour. Their current password keeps working until they use it."
        }
        let page = ConfirmPage(
            question: "\(Self.label(action))? \(who)",
            consequence: consequence,
            action: AdminPath.userAction(action, on: summary.user.id),
            button: "Yes: \(Self.label(action).lowercased())",
            isDangerous: action == .delete || action == .disable,
            cancelURL: AdminPath.user(summary.user.id)
        )
        return try pages.render(.adminConfirm, title: "title-admin-confirm", page: page, context: context).response(from: request, context: context)
    }

    func performUserAction(_ request: Request, context: AdminContext) async throws -> Response {
        let summary = try await target(context)
        let action = try userAction(context)
        do {
            try await service.perform(action, on: summary.user.id, by: context.admin, origin: context.origin(request))
        } catch AdminError.lastAdmin {
            throw AppError(.conflict, "\(summary.user.handle) is the last administrator. Make someone else an admin first.")
        }
        if action == .delete { return .seeOther(AdminPath.users(notice: .userDeleted)) }
        if action == .sendResetLink { return .seeOther(AdminPath.user(summary.user.id, notice: .resetLinkSent)) }
        if action == .resetSecondFactor { return .seeOther(AdminPath.user(summary.user.id, notice: .twoFactorReset)) }
        if action == .revokeLinks { return .seeOther(AdminPath.user(summary.user.id, notice: .linksRevoked)) }
        // An admin who removed their own admin role has no admin pages left to return to.
        if summary.user.id == context.admin.id, action == .demote { return .seeOther(WebPath.gallery) }
        return .seeOther(AdminPath.user(summary.user.id, notice: .userUpdated))
    }

    private func target(_ context: AdminContext) async throws -> UserSummary {
        guard let id = context.parameters.get("id").flatMap(Int64.init), let summary = try await service.user(id: id) else {
            throw AppError.notFound("There is no such user.")
        }
        return summary
    }

    private func userAction(_ context: AdminContext) throws -> AdminService.UserAction {
        guard let action = context.parameters.get("action").flatMap(AdminService.UserAction.init(rawValue:)) else {
            throw AppError.notFound()
        }
        return action
    }

    // MARK: API keys

    struct KeysPage: Sendable {
        struct Key: Sendable {
            let name: String
            let source: String
            let created: String
            let lastUsed: String
            let status: String
            let revokeURL: String?
        }

        let keys: [Key]
        var newKey: String?
        var newKeyPassword: String?
        var error: String?
        var name = ""
    }

    func apiKeys(_ request: Request, context: AdminContext) async throws -> Response {
        try await renderKeys(KeysPage(keys: keyRows()), notice: Notice.message(from: request), context: context)
            .response(from: request, context: context)
    }

    struct NewKeyForm: Decodable {
        var name: String?
    }

    func createAPIKey(_ request: Request, context: AdminContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(NewKeyForm.self, from: request, context: context)
        let name = (form.name ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let password = try await service.createAppKey(name: name, by: context.admin, origin: context.origin(request))
            var page = KeysPage(keys: try await keyRows())
            page.newKey = name
            page.newKeyPassword = password
            return try await renderKeys(page, notice: nil, context: context).response(from: request, context: context)
        } catch let error as AdminError {
            let refusal = ErrorCopy(words: pages.words(for: context)).adminError(error)
            var page = KeysPage(keys: try await keyRows())
            page.error = refusal.message
            page.name = name
            return try await renderKeys(page, notice: nil, context: context, status: refusal.status).response(from: request, context: context)
        }
    }

    func confirmRevokeAPIKey(_ request: Request, context: AdminContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let page = ConfirmPage(
            question: "Revoke the app key \(name)?",
            consequence: "Apps using it can no longer sign up, sign in or get tokens. Tokens already issued through it keep working for photos until they expire, but can no longer change a password.",
            action: AdminPath.revokeAPIKey(name),
            button: "Yes: revoke \(name)",
            isDangerous: true,
            cancelURL: AdminPath.apiKeys
        )
        return try pages.render(.adminConfirm, title: "title-admin-confirm", page: page, context: context).response(from: request, context: context)
    }

    func revokeAPIKey(_ request: Request, context: AdminContext) async throws -> Response {
        try await service.revokeAppKey(name: try context.parameters.require("name"), by: context.admin, origin: context.origin(request))
        return .seeOther(AdminPath.apiKeys(notice: .appKeyRevoked))
    }

    private func keyRows() async throws -> [KeysPage.Key] {
        try await service.appKeyListings().map { key in
            KeysPage.Key(
                name: key.name,
                source: key.isFromEnvironment ? "environment (API_AUTH_NAME)" : "added here",
                created: key.createdAt?.displayString ?? "—",
                lastUsed: key.lastUsedAt?.displayString ?? "never",
                status: key.revokedAt.map { "revoked \($0.displayString)" } ?? "active",
                revokeURL: key.isFromEnvironment || key.revokedAt != nil ? nil : AdminPath.revokeAPIKey(key.name)
            )
        }
    }

    private func renderKeys(_ page: KeysPage, notice: LocalizedText?, context: AdminContext, status: HTTPResponse.Status = .ok) async throws -> HTML {
        try pages.render(.adminAPIKeys, title: "title-admin-api-keys", page: page, context: context, notice: notice, status: status)
    }

    // MARK: Mail

    struct MailPage: Sendable {
        struct Row: Sendable {
            let recipient: String
            let kind: String
            let queued: String
            let failed: String
            let attempts: Int
            let error: String
        }

        let pending: Int
        let failed: [Row]
        let hasFailed: Bool
    }

    /// What the outbox could not deliver, and how much is waiting.
    func mail(_ request: Request, context: AdminContext) async throws -> Response {
        let (failed, pending) = try await service.undeliveredMail(limit: 100)
        let page = MailPage(
            pending: pending,
            failed: failed.map {
                MailPage.Row(
                    recipient: $0.recipient,
                    kind: $0.kind,
                    queued: $0.createdAt.displayString,
                    failed: $0.failedAt?.displayString ?? "—",
                    attempts: $0.attempts,
                    error: $0.lastError ?? ""
                )
            },
            hasFailed: !failed.isEmpty
        )
        return try pages.render(.adminMail, title: "title-admin-mail", page: page, context: context).response(from: request, context: context)
    }

    // MARK: Audit log

    struct AuditPage: Sendable {
        struct Row: Sendable {
            let when: String
            let event: String
            let actor: String
            let target: String
            let origin: String
        }

        struct TypeOption: Sendable {
            let value: String
            let selected: Bool
        }

        let rows: [Row]
        let isEmpty: Bool
        let userFilter: String
        let types: [TypeOption]
        let olderURL: String?
    }

    /// "ada@example.com · photo Xy…" — the user and what the event was about, each once.
    static func describeTarget(_ entry: AuditEntry) -> String {
        let user = entry.targetUserEmail ?? entry.targetUserID.map { "user #\($0)" }
        let detail = entry.target.isEmpty || entry.target == entry.targetUserEmail ? nil : entry.target
        return [user, detail].compactMap { $0 }.joined(separator: " · ")
    }

    func auditLog(_ request: Request, context: AdminContext) async throws -> Response {
        let query = request.uri.queryParameters
        let userFilter = String(query["user"] ?? "")
        let userID = Int64(userFilter)
        let type = query["type"].map(String.init).flatMap { AuditEventType(rawValue: $0)?.rawValue }
        let before = try request.queryInteger("before", in: 1...Int64.max)
        let entries = try await service.auditEntries(userID: userID, type: type, before: before, limit: Self.pageSize + 1)
        let rows = entries.prefix(Self.pageSize).map { entry in
            AuditPage.Row(
                when: entry.occurredAt.displayString,
                event: entry.type,
                actor: entry.actorEmail ?? entry.actorID.map { "user #\($0)" } ?? "—",
                target: Self.describeTarget(entry),
                origin: [entry.ipAddress, UserAgentSummary.describe(entry.userAgent)].filter { !$0.isEmpty }.joined(separator: " · ")
            )
        }
        var olderURL: String?
        if entries.count > Self.pageSize, let last = entries.prefix(Self.pageSize).last {
            olderURL = AdminPath.link(AdminPath.audit, ["user": userFilter, "type": type ?? "", "before": String(last.id)])
        }
        let page = AuditPage(
            rows: Array(rows),
            isEmpty: rows.isEmpty,
            userFilter: userFilter,
            types: AuditEventType.allCases.map { AuditPage.TypeOption(value: $0.rawValue, selected: $0.rawValue == type) },
            olderURL: olderURL
        )
        return try pages.render(.adminAudit, title: "title-admin-audit", page: page, context: context).response(from: request, context: context)
    }
}
