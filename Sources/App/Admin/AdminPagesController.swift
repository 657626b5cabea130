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
        /// "3" and "users": the number stands out, the words beside it agree with it.
        struct Stat: Sendable {
            let number: String
            let words: String
        }

        let stats: [Stat]
        let mailIsNotSent: Bool
        /// The users who store the most.
        let largest: [UserRow]
        let hasLargest: Bool
    }

    func dashboard(_ request: Request, context: AdminContext) async throws -> Response {
        let words = pages.words(for: context)
        let counts = try await service.dashboard()
        let largest = try await service.users(search: "", sort: .storage, offset: 0, limit: 5).map { UserRow($0, words: words) }
        func stat(_ count: Int, _ key: String) -> DashboardPage.Stat {
            DashboardPage.Stat(number: words.language.formatNumber(count), words: words(key, ["count": .number(count)]))
        }
        let page = DashboardPage(
            stats: [
                stat(counts.users, "admin-stat-users"),
                stat(counts.activeSessions, "admin-stat-sessions"),
                stat(counts.photos, "admin-stat-photos"),
                DashboardPage.Stat(number: ByteCountText.describe(counts.bytesStored, in: words.language), words: words("admin-stat-stored")),
                stat(counts.signInsLastDay, "admin-stat-sign-ins"),
                stat(counts.failedSignInsLastDay, "admin-stat-failed-sign-ins"),
            ],
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
        let photoCount: String
        let storage: String
        let lastSignIn: String
        let isDisabled: Bool
        let isAdmin: Bool

        init(_ summary: UserSummary, words: Words) {
            self.id = summary.user.id
            self.email = summary.user.handle
            self.fullName = summary.user.fullName
            self.signedUp = words.time(summary.user.createdAt)
            self.photoCount = words.language.formatNumber(summary.photoCount)
            self.storage = ByteCountText.describe(summary.bytesStored, in: words.language)
            self.lastSignIn = summary.lastSignedInAt.map(words.time) ?? words("account-never")
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
        let words = pages.words(for: context)
        let sorts: [(UserSort, String)] = [
            (.newest, words("admin-sort-newest")), (.oldest, words("admin-sort-oldest")), (.storage, words("admin-sort-storage")),
        ]
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
            rows: found.prefix(Self.pageSize).map { UserRow($0, words: words) },
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
        let words = pages.words(for: context)
        let (shown, more) = try await photos.page(for: summary.user, after: nil, size: 24)
        let sessions = try await accounts.listSessions(of: summary.user).map {
            UserPage.Device(
                description: UserAgentSummary.describe($0.userAgent, words: words),
                detail: words("account-session-facts", [
                    "address": .text($0.ipAddress.isEmpty ? words("account-unknown-address") : $0.ipAddress),
                    "signedIn": .text(words.time($0.createdAt)),
                    "active": .text(words.time($0.lastSeenAt)),
                ])
            )
        }
        let tokens = try await service.tokens(of: summary.user.id).map {
            UserPage.Device(
                description: words("admin-token", ["key": .text($0.appKey)]),
                detail: words("admin-token-facts", [
                    "issued": .text(words.time($0.createdAt)), "used": .text(words.time($0.lastUsedAt)), "expires": .text(words.time($0.expiresAt)),
                ])
            )
        }
        let identities = try await social.identities(of: summary.user).map {
            UserPage.Device(
                description: social.providers.displayName(of: $0.provider),
                detail: words("admin-identity-facts", [
                    "account": .text($0.email ?? $0.displayName ?? words("account-provider-account", ["id": .text($0.subject)])),
                    "linked": .text(words.time($0.createdAt)),
                    "used": .text(words.time($0.lastUsedAt)),
                ])
            )
        }
        let page = UserPage(
            user: UserRow(summary, words: words),
            storage: StorageUsageText(try await photos.usage(of: summary.user), words: words),
            quota: quotaForm(summary, words: words),
            actions: Self.actions(for: summary.user).map {
                UserPage.Action(
                    path: AdminPath.userAction($0, on: summary.user.id), label: words(Self.labelKey($0)), isDangerous: $0 == .delete || $0 == .disable
                )
            },
            photos: shown.map {
                UserPage.Thumbnail(imageURL: photos.url(of: .thumbnail400, for: $0), alt: $0.title.isEmpty ? words("title-photo") : $0.title)
            },
            morePhotos: more,
            sessions: sessions,
            tokens: tokens,
            identities: identities,
            albums: try await albums.cards(for: summary.user).map {
                UserPage.Device(description: $0.album.title, detail: words("photo-count", ["count": .number($0.album.photoCount)]))
            },
            liveLinks: try await sharing.liveLinks(ofUserID: summary.user.id).map { link in
                let title = link.targetTitle.isEmpty ? words("admin-link-untitled") : link.targetTitle
                // A list of facts, each a message of its own, as the account page lists a session's.
                let facts = [
                    words("admin-link-made", ["date": .text(words.time(link.createdAt))]),
                    link.expiresAt.map { words("admin-link-until", ["date": .text(words.time($0))]) } ?? words("admin-link-never-expires"),
                    link.hasPassword ? words("admin-link-password") : nil,
                    words("admin-link-views", ["count": .number(Int(link.views))]),
                ]
                return UserPage.Device(
                    description: words(link.albumID != nil ? "admin-link-album" : "admin-link-photo", ["title": .text(title)]),
                    detail: facts.compactMap { $0 }.joined(separator: " · ")
                )
            }
        )
        return try pages.render(.adminUser, title: .verbatim(summary.user.fullName), page: page, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    private func quotaForm(_ summary: UserSummary, words: Words) -> UserPage.Quota {
        let defaultBytes = photos.limits.defaultQuotaBytes
        var megabytes = ""
        if case .bytes(let bytes) = summary.quota { megabytes = String(max(1, bytes / (1 << 20))) }
        return UserPage.Quota(
            action: AdminPath.quota(of: summary.user.id),
            followsDefault: summary.quota == .followsDefault,
            unlimited: summary.quota == .unlimited,
            custom: !megabytes.isEmpty,
            defaultText: defaultBytes == 0 ? words("admin-no-limit") : ByteCountText.describe(defaultBytes, in: words.language),
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
                throw Refusal(.unprocessableContent, "error-admin-quota")
            }
            quota = .bytes(megabytes << 20)
            described = ByteCountText.describe(megabytes << 20)
        default:
            throw Refusal(.unprocessableContent, "error-admin-quota-choice")
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

    /// The part of the action's message keys after `admin-action-` (the link), `admin-do-` (the
    /// confirmation's button) and `admin-then-` (what follows).
    static func messageName(_ action: AdminService.UserAction) -> String {
        switch action {
        case .disable: "disable"
        case .enable: "enable"
        case .revokeAccess: "revoke-access"
        case .delete: "delete"
        case .promote: "promote"
        case .demote: "demote"
        case .sendResetLink: "send-reset-link"
        case .resetSecondFactor: "reset-second-factor"
        case .revokeLinks: "revoke-links"
        }
    }

    static func labelKey(_ action: AdminService.UserAction) -> String { "admin-action-" + messageName(action) }

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
        let words = pages.words(for: context)
        let who = "\(summary.user.fullName) (\(summary.user.handle))"
        let name = Self.messageName(action)
        let consequence = words("admin-then-" + name, [
            "count": .number(summary.photoCount),
            "address": .text(summary.user.email ?? words("admin-their-address")),
        ])
        let page = ConfirmPage(
            question: words("admin-confirm-question", ["action": .text(words(Self.labelKey(action))), "user": .text(who)]),
            consequence: consequence,
            action: AdminPath.userAction(action, on: summary.user.id),
            button: words("admin-do-" + name),
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
            throw Refusal(.conflict, "error-admin-is-last-admin", ["user": .text(summary.user.handle)])
        } catch SecondFactorError.lastWayIn {
            throw Refusal(.conflict, "error-admin-reset-last-way-in", ["user": .text(summary.user.handle)])
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
            throw Refusal(.notFound, "error-admin-no-user")
        }
        return summary
    }

    private func userAction(_ context: AdminContext) throws -> AdminService.UserAction {
        guard let action = context.parameters.get("action").flatMap(AdminService.UserAction.init(rawValue:)) else {
            throw Refusal(.notFound, "error-status-404")
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
        try await renderKeys(KeysPage(keys: keyRows(words: pages.words(for: context))), notice: Notice.message(from: request), context: context)
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
            var page = KeysPage(keys: try await keyRows(words: pages.words(for: context)))
            page.newKey = name
            page.newKeyPassword = password
            return try await renderKeys(page, notice: nil, context: context).response(from: request, context: context)
        } catch let error as AdminError {
            let refusal = ErrorCopy(words: pages.words(for: context)).adminError(error)
            var page = KeysPage(keys: try await keyRows(words: pages.words(for: context)))
            page.error = refusal.message
            page.name = name
            return try await renderKeys(page, notice: nil, context: context, status: refusal.status).response(from: request, context: context)
        }
    }

    func confirmRevokeAPIKey(_ request: Request, context: AdminContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let words = pages.words(for: context)
        let page = ConfirmPage(
            question: words("admin-revoke-question", ["name": .text(name)]),
            consequence: words("admin-then-revoke-key"),
            action: AdminPath.revokeAPIKey(name),
            button: words("admin-do-revoke-key", ["name": .text(name)]),
            isDangerous: true,
            cancelURL: AdminPath.apiKeys
        )
        return try pages.render(.adminConfirm, title: "title-admin-confirm", page: page, context: context).response(from: request, context: context)
    }

    func revokeAPIKey(_ request: Request, context: AdminContext) async throws -> Response {
        try await service.revokeAppKey(name: try context.parameters.require("name"), by: context.admin, origin: context.origin(request))
        return .seeOther(AdminPath.apiKeys(notice: .appKeyRevoked))
    }

    private func keyRows(words: Words) async throws -> [KeysPage.Key] {
        try await service.appKeyListings().map { key in
            KeysPage.Key(
                name: key.name,
                source: words(key.isFromEnvironment ? "admin-key-from-environment" : "admin-key-added-here"),
                created: key.createdAt.map(words.time) ?? "—",
                lastUsed: key.lastUsedAt.map(words.time) ?? words("account-never"),
                status: key.revokedAt.map { words("admin-key-revoked", ["date": .text(words.time($0))]) } ?? words("admin-status-active"),
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
            let attempts: String
            let error: String
        }

        let pending: String
        /// What the number counts, agreeing with it.
        let pendingWords: String
        let failed: [Row]
        let hasFailed: Bool
    }

    /// What the outbox could not deliver, and how much is waiting.
    func mail(_ request: Request, context: AdminContext) async throws -> Response {
        let (failed, pending) = try await service.undeliveredMail(limit: 100)
        let words = pages.words(for: context)
        let page = MailPage(
            pending: words.language.formatNumber(pending),
            pendingWords: words("admin-mail-pending", ["count": .number(pending)]),
            failed: failed.map {
                MailPage.Row(
                    recipient: $0.recipient,
                    kind: $0.kind,
                    queued: words.time($0.createdAt),
                    failed: $0.failedAt.map(words.time) ?? "—",
                    attempts: words.language.formatNumber($0.attempts),
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

    /// "ada@example.com · photo Xy…" — the user and what the event was about, each once. The
    /// detail is the event's own record (an id, a key's name, a quota as it was set), not words.
    static func describeTarget(_ entry: AuditEntry, words: Words) -> String {
        let user = entry.targetUserEmail ?? entry.targetUserID.map { words("admin-user-number", ["id": .text(String($0))]) }
        let detail = entry.target.isEmpty || entry.target == entry.targetUserEmail ? nil : entry.target
        return [user, detail].compactMap { $0 }.joined(separator: " · ")
    }

    func auditLog(_ request: Request, context: AdminContext) async throws -> Response {
        let query = request.uri.queryParameters
        let userFilter = String(query["user"] ?? "")
        // An empty box is no filter; anything else must be a user's number (a filter that does
        // not apply must not show the whole log under the typed value).
        let userID = try userFilter.isEmpty ? nil : request.queryInteger("user", in: 1...Int64.max)
        let type = query["type"].map(String.init).flatMap { AuditEventType(rawValue: $0)?.rawValue }
        let before = try request.queryInteger("before", in: 1...Int64.max)
        let entries = try await service.auditEntries(userID: userID, type: type, before: before, limit: Self.pageSize + 1)
        let words = pages.words(for: context)
        let rows = entries.prefix(Self.pageSize).map { entry in
            AuditPage.Row(
                when: words.time(entry.occurredAt),
                event: entry.type,
                actor: entry.actorEmail ?? entry.actorID.map { words("admin-user-number", ["id": .text(String($0))]) } ?? "—",
                target: Self.describeTarget(entry, words: words),
                origin: [entry.ipAddress, UserAgentSummary.describe(entry.userAgent, words: words)].filter { !$0.isEmpty }.joined(separator: " · ")
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
