import Foundation
import Logging
import PostgresNIO

/// Storage of share links. The owner's reads and deletes are scoped to the owner; a visitor's
/// lookup goes by the token's SHA-256 only.
public struct ShareLinkRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }
    let statements: HotStatements

    /// - Parameter preparedStatements: whether a visitor's lookup by token (every share page and
    ///   every image on it) is prepared (`DATABASE_PREPARED_STATEMENTS`).
    public init(client: PostgresClient, preparedStatements: Bool = true, loopConnections: LoopConnections? = nil, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
        self.statements = HotStatements(client: client, prepared: preparedStatements, loopConnections: loopConnections)
    }

    /// A link's columns from `share_links` aliased `l`, with what it shows and whether its owner
    /// is disabled.
    static let columns = """
        l.id, l.public_id, l.user_id, l.album_id, l.photo_id, coalesce(a.public_id, p.public_id), coalesce(a.title, p.title),
        l.expires_at, l.password_hash, l.allow_download, l.views, l.last_viewed_at, l.created_at, u.disabled,
        p.trashed_at IS NOT NULL
        """
    static let joins = """
        JOIN users u ON u.id = l.user_id LEFT JOIN albums a ON a.id = l.album_id LEFT JOIN photos p ON p.id = l.photo_id
        """

    struct Insert {
        var publicID: String
        var userID: Int64
        var tokenHash: [UInt8]
        var album: String?
        var photo: String?
        var expiresAt: Date?
        var passwordHash: String?
        var allowDownload: Bool
    }

    /// Inserts the link if the album or photo is the user's; nil when it is not, or is deleted
    /// while the link is made.
    func insert(_ link: Insert) async throws -> ShareLink? {
        do {
            return try await insertIfFound(link)
        } catch let error as PSQLError where error.isForeignKeyViolation {
            return nil
        }
    }

    private func insertIfFound(_ link: Insert) async throws -> ShareLink? {
        try await fetch(
            """
            WITH l AS (
                INSERT INTO share_links (public_id, user_id, token_hash, album_id, photo_id, expires_at, password_hash, allow_download)
                SELECT \(link.publicID), \(link.userID), \(ByteBuffer(bytes: link.tokenHash)), a.id, p.id, \(link.expiresAt), \(link.passwordHash), \(link.allowDownload)
                FROM (SELECT 1) one
                LEFT JOIN albums a ON a.user_id = \(link.userID) AND a.public_id = \(link.album)
                LEFT JOIN photos p ON p.user_id = \(link.userID) AND p.public_id = \(link.photo) AND p.trashed_at IS NULL
                WHERE a.id IS NOT NULL OR p.id IS NOT NULL
                RETURNING *
            )
            SELECT \(unescaped: Self.columns) FROM l \(unescaped: Self.joins)
            """
        ).first
    }

    /// The user's links, the latest made first.
    func list(userID: Int64) async throws -> [ShareLink] {
        try await fetch("SELECT \(unescaped: Self.columns) FROM share_links l \(unescaped: Self.joins) WHERE l.user_id = \(userID) ORDER BY l.id DESC")
    }

    /// The user's links to one album.
    func list(userID: Int64, album: Int64) async throws -> [ShareLink] {
        try await fetch(
            "SELECT \(unescaped: Self.columns) FROM share_links l \(unescaped: Self.joins) WHERE l.user_id = \(userID) AND l.album_id = \(album) ORDER BY l.id DESC"
        )
    }

    /// The link whose token hashes to `tokenHash`, whatever its state (the service decides).
    func find(tokenHash: [UInt8]) async throws -> ShareLink? {
        try await statements.rows(FindShareLink(tokenHash: tokenHash), logger: logger).first
    }

    /// Adds the views counted since the last time (`ShareViewTally`), all links in one statement.
    func addViews(_ views: [Int64: ShareViewTally.Pending]) async throws {
        let ids = Array(views.keys)
        let counts = ids.map { views[$0]!.count }
        let moments = ids.map { views[$0]!.lastViewedAt }
        try await client.query(
            """
            UPDATE share_links AS l SET views = l.views + v.count,
                last_viewed_at = greatest(l.last_viewed_at, v.last_viewed_at)
            FROM unnest(\(ids)::bigint[], \(counts)::bigint[], \(moments)::timestamptz[]) AS v(id, count, last_viewed_at)
            WHERE l.id = v.id
            """,
            logger: logger
        )
    }

    /// Deletes the user's link; nil when there is none (then nothing happened).
    func delete(userID: Int64, publicID: String) async throws -> ShareLink? {
        try await fetch(
            """
            WITH l AS (DELETE FROM share_links WHERE user_id = \(userID) AND public_id = \(publicID) RETURNING *)
            SELECT \(unescaped: Self.columns) FROM l \(unescaped: Self.joins)
            """
        ).first
    }

    /// Deletes every link of the user with the audit event of it, in one transaction; how many
    /// there were.
    func deleteAll(userID: Int64, as act: AdminAct) async throws -> Int {
        let logger = self.logger
        return try await client.transaction(as: act, logger: logger) { connection, record in
            let count = try await connection.query("DELETE FROM share_links WHERE user_id = \(userID) RETURNING 1", logger: logger).collect().count
            record?.target = "\(count) link(s)"
            return count
        }
    }

    /// Counts one password attempt on the link before the password is checked, in the window of
    /// `window` seconds that started with the first failure: the attempts in it so far (this one
    /// included) and when it started. One statement, so attempts sent at once are all counted.
    func claimPasswordAttempt(linkID: Int64, now: Date, window: Int) async throws -> (attempts: Int, windowStart: Date) {
        let rows = try await client.query(
            """
            UPDATE share_links SET
                password_failures = CASE WHEN password_window_start IS NULL OR password_window_start <= \(now) - make_interval(secs => \(window))
                    THEN 1 ELSE password_failures + 1 END,
                password_window_start = CASE WHEN password_window_start IS NULL OR password_window_start <= \(now) - make_interval(secs => \(window))
                    THEN \(now) ELSE password_window_start END
            WHERE id = \(linkID)
            RETURNING password_failures, password_window_start
            """,
            logger: logger
        )
        for try await (attempts, start) in rows.decode((Int, Date).self) { return (attempts, start) }
        throw ShareLinkError.notFound
    }

    /// The right password: the count starts again.
    func clearPasswordAttempts(linkID: Int64) async throws {
        try await client.query("UPDATE share_links SET password_failures = 0, password_window_start = NULL WHERE id = \(linkID)", logger: logger)
    }

    private func fetch(_ query: PostgresQuery) async throws -> [ShareLink] {
        var links: [ShareLink] = []
        for try await row in try await client.query(query, logger: logger) { links.append(try Self.link(from: row)) }
        return links
    }

    /// A row of `columns`, read column after column.
    static func link(from row: PostgresRow) throws -> ShareLink {
        var columns = ColumnReader(row)
        let id: Int64 = try columns.next()
        let publicID: String = try columns.next()
        let userID: Int64 = try columns.next()
        let albumID: Int64? = try columns.next()
        let photoID: Int64? = try columns.next()
        let targetID: String = try columns.next()
        return ShareLink(
            id: id,
            publicID: publicID,
            userID: userID,
            albumID: albumID,
            photoID: photoID,
            target: albumID != nil ? .album(targetID) : .photo(targetID),
            targetTitle: try columns.next(),
            expiresAt: try columns.next(),
            passwordHash: try columns.next(),
            allowDownload: try columns.next(),
            views: try columns.next(),
            lastViewedAt: try columns.next(),
            createdAt: try columns.next(),
            ownerDisabled: try columns.next(),
            targetTrashed: try columns.next()
        )
    }
}

/// A visitor's lookup of a link by its token: every share page and every image on one asks it.
struct FindShareLink: LookupByTokenHash {
    static let name = "find_share_link"
    static let sql = "SELECT \(ShareLinkRepository.columns) FROM share_links l \(ShareLinkRepository.joins) WHERE l.token_hash = $1"
    let tokenHash: [UInt8]

    func decodeRow(_ row: PostgresRow) throws -> ShareLink {
        try ShareLinkRepository.link(from: row)
    }
}
