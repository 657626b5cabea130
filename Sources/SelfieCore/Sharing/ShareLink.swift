import Foundation

/// What a share link shows: one album or one photo, by their public ids.
public enum ShareTarget: Sendable, Equatable {
    case album(String)
    case photo(String)

    /// Exactly one of an album's and a photo's public id (an empty one counts as none).
    public init(album: String?, photo: String?) throws {
        switch (album.flatMap { $0.isEmpty ? nil : $0 }, photo.flatMap { $0.isEmpty ? nil : $0 }) {
        case (let album?, nil): self = .album(album)
        case (nil, let photo?): self = .photo(photo)
        default: throw ShareLinkError.targetMissing
        }
    }
}

/// How long a new link lives. "Never" is a choice of its own, never a default.
public enum ShareExpiry: Sendable, Equatable {
    case days(Int)
    case never

    /// The lifetimes offered: a day, a week (the default), a month.
    public static let dayChoices = [1, 7, 30]
    public static let `default` = ShareExpiry.days(7)

    /// One of the offered lifetimes in days; anything else is refused ("never" is `.never`).
    public init(days: Int) throws {
        guard Self.dayChoices.contains(days) else { throw ShareLinkError.unknownExpiry }
        self = .days(days)
    }

    func expiresAt(from now: Date) -> Date? {
        switch self {
        case .days(let days): now.addingTimeInterval(TimeInterval(days) * 86400)
        case .never: nil
        }
    }
}

/// A share link as its owner sees it (the token itself is only known when it is made).
public struct ShareLink: Sendable, Equatable {
    public let id: Int64
    /// What the owner's pages and the API call the link.
    public let publicID: String
    public let userID: Int64
    /// The album's or the photo's row id: exactly one is set.
    public let albumID: Int64?
    public let photoID: Int64?
    /// The album's or the photo's public id and title, for "my links".
    public let target: ShareTarget
    public let targetTitle: String
    public let expiresAt: Date?
    let passwordHash: String?
    public let allowDownload: Bool
    public let views: Int64
    public let lastViewedAt: Date?
    public let createdAt: Date
    /// Its owner is disabled: the link shows nothing meanwhile.
    let ownerDisabled: Bool
    /// Its photo is in the trash: the link shows nothing unless it is restored.
    public let targetTrashed: Bool

    public var hasPassword: Bool { passwordHash != nil }

    public func hasExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// Whether the link shows anything at `now`: not expired, its owner not disabled, its photo
    /// not in the trash. The one place that decides it (a revoked link has no row).
    public func opens(at now: Date) -> Bool {
        !hasExpired(at: now) && !ownerDisabled && !targetTrashed
    }
}

/// A new link and its token, which exists nowhere else: its URL can be shown once.
public struct NewShareLink: Sendable {
    public let link: ShareLink
    public let token: String
    public let url: String
}

/// Why a share link operation was refused. The surfaces turn each into a status and words.
public enum ShareLinkError: Error, Equatable, Sendable {
    /// No such link among the user's; on the shared pages: no such link, or it expired, was
    /// revoked, or its owner is disabled (one answer for all, so a token reveals nothing).
    case notFound
    /// No such link among the owner's own (turning one off that is off already, in another tab):
    /// told to its owner, not in the words for someone a link was shared with.
    case notAmongYours
    /// An expiry other than 1, 7 or 30 days or "never".
    case unknownExpiry
    /// Neither or both of an album and a photo.
    case targetMissing
    /// A password for the link that is too short, too long or has control characters.
    case password(FieldProblem)
    /// The link needs its password (or the one given is wrong).
    case passwordRequired
    case wrongPassword
    /// The owner did not allow downloading this link's photos.
    case downloadNotAllowed
}
