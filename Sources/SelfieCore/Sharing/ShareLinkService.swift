import Base64URLCoding
import Crypto
import Foundation
import Logging

/// Share links: `/s/<token>` shows one album or one photo — its renditions only — to whoever holds
/// the token, until it expires or its owner revokes it. The token has 192 random bits and only its
/// SHA-256 is stored. A link dies with its album, photo or owner, and shows nothing while its owner
/// is disabled. A password, if set, is checked with bcrypt, a limited number of times per link and
/// per client; once right, the browser keeps a proof (`unlockProof`) in a cookie.
public struct ShareLinkService: Sendable {
    let links: ShareLinkRepository
    let photos: PhotoRepository
    let blobs: any BlobStore
    let hasher: PasswordHasher
    let audit: AuditRepository
    let protection: BruteForceProtection
    let publicURL: String
    /// Views counted in memory and written every second; run it as a service beside the server.
    public let views: ShareViewTally
    private let unlockKey: SymmetricKey
    /// The time, from the system's clock except in tests.
    public private(set) var now: @Sendable () -> Date

    /// Where shared pages live: `<path>/<token>`.
    public static let path = "/s"
    /// Random bytes in a token (192 bits; 32 characters).
    static let tokenBytes = 24

    public init(
        links: ShareLinkRepository,
        photos: PhotoRepository,
        blobs: any BlobStore,
        hasher: PasswordHasher,
        audit: AuditRepository,
        protection: BruteForceProtection,
        publicURL: URL,
        secretKey: SecretKey,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.views = ShareViewTally(links: links, logger: logger)
        self.links = links
        self.photos = photos
        self.blobs = blobs
        self.hasher = hasher
        self.audit = audit
        self.protection = protection
        self.publicURL = publicURL.absoluteString
        self.unlockKey = secretKey.derived(for: "share-link-unlock")
        self.now = now
    }

    /// The same service on another clock (tests move time forward).
    func withClock(_ now: @escaping @Sendable () -> Date) -> ShareLinkService {
        var copy = self
        copy.now = now
        return copy
    }

    // MARK: The owner's

    /// Makes a link to the user's album or photo. `password` nil or empty: none.
    public func create(
        for user: User,
        target: ShareTarget,
        expiry: ShareExpiry,
        password: String?,
        allowDownload: Bool,
        origin: RequestOrigin
    ) async throws -> NewShareLink {
        var passwordHash: String?
        if let password, !password.isEmpty {
            if let problem = PasswordPolicy.problem(with: password) { throw ShareLinkError.password(problem) }
            passwordHash = try await hasher.hash(password)
        }
        let token = RandomToken.urlSafe(byteCount: Self.tokenBytes)
        var album: String?
        var photo: String?
        switch target {
        case .album(let id): album = id
        case .photo(let id): photo = id
        }
        let insert = ShareLinkRepository.Insert(
            publicID: RandomToken.urlSafe(byteCount: 18),
            userID: user.id,
            tokenHash: RandomToken.hash(token),
            album: album,
            photo: photo,
            expiresAt: expiry.expiresAt(from: now()),
            passwordHash: passwordHash,
            allowDownload: allowDownload
        )
        guard let link = try await links.insert(insert) else {
            if album != nil { throw AlbumError.notFound }
            throw PhotoError.notFound
        }
        await audit.record(.shareLinkCreated, actor: user.id, targetUser: user.id, target: link.publicID, origin: origin)
        return NewShareLink(link: link, token: token, url: url(token: token))
    }

    /// The user's links, the latest made first (expired ones too, until revoked). The lists write
    /// the views counted so far first; if that fails, they show the counts already written.
    public func links(for user: User) async throws -> [ShareLink] {
        await views.flushLogging()
        return try await links.list(userID: user.id)
    }

    /// The user's links to one of their albums.
    public func links(to album: Album) async throws -> [ShareLink] {
        await views.flushLogging()
        return try await links.list(userID: album.userID, album: album.id)
    }

    /// The user's links that still open: not expired, owner not disabled.
    public func liveLinks(ofUserID userID: Int64) async throws -> [ShareLink] {
        await views.flushLogging()
        let at = now()
        return try await links.list(userID: userID).filter { $0.opens(at: at) }
    }

    /// Ends the link at once: its page and its images answer "not found" from now on.
    public func revoke(_ publicID: String, of user: User, origin: RequestOrigin) async throws {
        guard let link = try await links.delete(userID: user.id, publicID: publicID) else { throw ShareLinkError.notAmongYours }
        await audit.record(.shareLinkRevoked, actor: user.id, targetUser: user.id, target: link.publicID, origin: origin)
    }

    /// Ends every link of a user (an administrator's "turn off every link"), in one transaction
    /// with its audit event; how many there were.
    func revokeAll(ofUserID userID: Int64, audit record: AuditRecord) async throws -> Int {
        try await links.deleteAll(userID: userID, as: AdminAct(record))
    }

    // MARK: The visitor's

    /// The link a visitor's token opens; `ShareLinkError.notFound` when there is none, or it has
    /// expired, or its owner is disabled — one answer for all.
    public func open(token: String) async throws -> ShareLink {
        guard Self.isWellFormed(token), let link = try await links.find(tokenHash: RandomToken.hash(token)), link.opens(at: now())
        else { throw ShareLinkError.notFound }
        return link
    }

    /// Checks the link's password, after counting the attempt against the link (the sign-in
    /// lockout's threshold and window) and the client (the sign-in rate). `RateLimited` once
    /// either is used up; the link's owner hears of a link locked by repeated wrong passwords
    /// through the audit log. Returns the proof to keep in a cookie.
    public func unlock(_ link: ShareLink, password: String, client: String, origin: RequestOrigin) async throws -> String {
        guard let hash = link.passwordHash else { return unlockProof(for: link) }
        try await protection.consume(.shareLinkPassword, client: client)
        let threshold = protection.configuration.lockoutThreshold
        let window = Int(protection.configuration.lockoutWindow.components.seconds)
        if threshold > 0 {
            let at = now()
            let (attempts, start) = try await links.claimPasswordAttempt(linkID: link.id, now: at, window: window)
            if attempts > threshold {
                if attempts == threshold + 1 {
                    await audit.record(.shareLinkPasswordLocked, actor: nil, targetUser: link.userID, target: link.publicID, origin: origin)
                }
                let left = Int(start.addingTimeInterval(TimeInterval(window)).timeIntervalSince(at).rounded(.up))
                throw RateLimited(scope: .shareLink, retryAfter: left)
            }
        }
        guard try await hasher.verify(password, against: hash) else { throw ShareLinkError.wrongPassword }
        if threshold > 0 { try await links.clearPasswordAttempts(linkID: link.id) }
        return unlockProof(for: link)
    }

    /// Whether `proof` (from the visitor's cookie) is this link's and less than a day old: always
    /// for a link without a password. A proof up to a minute "from the future" is taken too: it
    /// was issued by another instance whose clock is a little ahead of this one's.
    public func isUnlocked(_ link: ShareLink, proof: String?) -> Bool {
        guard link.hasPassword else { return true }
        guard let proof, let dot = proof.firstIndex(of: "."), let issued = Int64(proof[..<dot]) else { return false }
        let age = Int64(now().timeIntervalSince1970) - issued
        guard (-Self.clockSkew..<Self.unlockLifetime).contains(age) else { return false }
        return constantTimeEquals(Array(proof.utf8), Array(unlockProof(for: link, issuedAt: issued).utf8))
    }

    /// How long a right password keeps a browser in, in seconds (the cookie lives no longer).
    public static let unlockLifetime: Int64 = 86400
    /// How far apart instances' clocks may be, in seconds, for a proof one issued to open on another.
    static let clockSkew: Int64 = 60

    /// `<issued at>.<HMAC of the link, its password's hash and that time>`: nothing to store,
    /// useless for any other link, and void after a day or once the link goes.
    func unlockProof(for link: ShareLink, issuedAt: Int64? = nil) -> String {
        let issued = issuedAt ?? Int64(now().timeIntervalSince1970)
        var hmac = HMAC<SHA256>(key: unlockKey)
        hmac.update(data: Data("\(link.id)\n\(link.passwordHash ?? "")\n\(issued)".utf8))
        return "\(issued)." + hmac.finalize().withUnsafeBytes { Base64URL.encode($0) }
    }

    /// A page view: counted, with its time.
    public func recordView(of link: ShareLink) {
        views.record(linkID: link.id, at: now())
    }

    /// One page of what the link shows, in gallery order: the album's photos, or the one photo
    /// (which has no second page: `PhotoError.notFound`).
    public func page(of link: ShareLink, after position: PhotoPosition?, size: Int) async throws -> (photos: [Photo], hasMore: Bool) {
        if let photoID = link.photoID {
            guard position == nil else { throw PhotoError.notFound }
            return (try await photos.find(userID: link.userID, ids: [photoID]), false)
        }
        let found = try await photos.page(userID: link.userID, album: link.albumID, after: position, limit: size + 1)
        return (Array(found.prefix(size)), found.count > size)
    }

    /// The display copies of what the link shows as one ZIP, if its owner allowed it (refused
    /// here, at once, so that a HEAD is refused as a GET is); the ZIP itself is made only when
    /// the returned function is called (a GET). Numbered in gallery order, without the captions or
    /// anything else of the originals. One client may download five a minute (`client`: its address).
    public func archive(of link: ShareLink, client: String, logger: Logger) throws -> @Sendable () async throws -> BlobBody {
        guard link.allowDownload else { throw ShareLinkError.downloadNotAllowed }
        return { try await makeArchive(of: link, client: client, logger: logger) }
    }

    private func makeArchive(of link: ShareLink, client: String, logger: Logger) async throws -> BlobBody {
        try await protection.consume(.shareLinkDownload, client: client)
        var shown: [Photo] = []
        var after: PhotoPosition?
        repeat {
            let (batch, hasMore) = try await page(of: link, after: after, size: 500)
            shown += batch
            after = hasMore ? batch.last?.position : nil
        } while after != nil
        let copies = shown.compactMap { $0.rendition(.display) }
        let digits = String(copies.count).count
        let entries = copies.enumerated().map { index, copy in
            let number = String(index + 1)
            return PhotoArchive.Entry(
                blob: copy.blobKey,
                name: "photo-\(String(repeating: "0", count: max(0, digits - number.count)))\(number).\(PhotoArchive.fileExtension(of: copy.blobKey))",
                modified: now()
            )
        }
        return PhotoArchive.body(entries: entries, blobs: blobs, logger: logger)
    }

    /// One of the renditions of a photo the link shows (never its original), and a function that
    /// opens its bytes: a browser revalidating a copy it holds is answered from the row, without
    /// opening the file (on S3, a HEAD and a GET whose body went unread).
    public func image(_ name: RenditionName, of publicID: String, in link: ShareLink) async throws
        -> (rendition: PhotoRendition, content: @Sendable () async throws -> BlobContent)
    {
        let photo = try await photo(publicID, in: link)
        guard let rendition = photo.rendition(name) else { throw PhotoError.notFound }
        let blobs = self.blobs
        return (rendition, {
            guard let content = try await blobs.read(rendition.blobKey, range: nil) else { throw PhotoError.notFound }
            return content
        })
    }

    /// A photo the link shows; `PhotoError.notFound` for any other.
    public func photo(_ publicID: String, in link: ShareLink) async throws -> Photo {
        if let photoID = link.photoID {
            guard let photo = try await photos.find(userID: link.userID, ids: [photoID]).first, photo.publicID == publicID else { throw PhotoError.notFound }
            return photo
        }
        guard let photo = try await photos.find(userID: link.userID, publicID: publicID, album: link.albumID) else { throw PhotoError.notFound }
        return photo
    }

    /// The photos either side of `photo` in the link's album.
    public func neighbours(of photo: Photo, in link: ShareLink) async throws -> (newer: String?, older: String?) {
        guard let album = link.albumID else { return (nil, nil) }
        return try await photos.neighbours(of: photo, album: album)
    }

    // MARK: Tokens

    /// The link's address: `<PUBLIC_URL>/s/<token>`.
    func url(token: String) -> String { "\(publicURL)\(Self.path)/\(token)" }

    /// 32 base64url characters: anything else is not a token and is not looked up.
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 32 && token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }
}
