import Foundation
import Logging
import PostgresNIO

/// Storage of albums and which photos they hold. Every statement is scoped to the owner: there is
/// no way to reach another user's album, nor to put another user's photo in one.
public struct AlbumRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }
    let statements: HotStatements

    /// - Parameter preparedStatements: whether the album names every grid's selection bar shows are
    ///   asked with a prepared statement (`DATABASE_PREPARED_STATEMENTS`).
    public init(client: PostgresClient, preparedStatements: Bool = true, loopConnections: LoopConnections? = nil, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
        self.statements = HotStatements(client: client, prepared: preparedStatements, loopConnections: loopConnections)
    }

    /// The album's columns from `albums` aliased `a`, with its photo count.
    private static let columns = """
        a.id, a.public_id, a.user_id, a.title, a.description, a.cover_photo_id,
        (SELECT count(*)::int FROM album_photos ap JOIN photos p ON p.id = ap.photo_id WHERE ap.album_id = a.id AND p.trashed_at IS NULL),
        a.created_at, a.updated_at
        """
    private typealias Row = (Int64, String, Int64, String, String, Int64?, Int, Date, Date)

    /// A new album, unless the user has `limit` already (`AlbumError.tooManyAlbums`). The owner's
    /// row is locked first (as an upload's quota check does), so albums made at the same moment
    /// are counted one after the other: the count taken after the lock sees the others.
    func insert(userID: Int64, publicID: String, title: String, description: String, limit: Int) async throws -> Album {
        let logger = self.logger
        let inserted = try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT 1 FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
            var albums: [Album] = []
            let rows = try await connection.query(
                """
                WITH a AS (
                    INSERT INTO albums (public_id, user_id, title, description)
                    SELECT \(publicID), \(userID), \(title), \(description)
                    WHERE (SELECT count(*) FROM albums WHERE user_id = \(userID)) < \(limit)
                    RETURNING *
                )
                SELECT \(unescaped: Self.columns) FROM a
                """,
                logger: logger
            )
            for try await row in rows.decode(Row.self) { albums.append(Self.album(row)) }
            return albums
        }
        guard let album = inserted.first else { throw AlbumError.tooManyAlbums(max: limit) }
        return album
    }

    /// The user's albums, the latest made first, each with the row id of the photo its card shows:
    /// the chosen cover, else the album's latest photo.
    func list(userID: Int64) async throws -> [(album: Album, coverID: Int64?)] {
        var found: [(Album, Int64?)] = []
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns), coalesce(
                (SELECT c.id FROM photos c WHERE c.id = a.cover_photo_id AND c.trashed_at IS NULL), (
                SELECT p.id FROM album_photos ap JOIN photos p ON p.id = ap.photo_id WHERE ap.album_id = a.id AND p.trashed_at IS NULL
                ORDER BY coalesce(p.taken_at, p.created_at) DESC, p.id DESC LIMIT 1))
            FROM albums a WHERE a.user_id = \(userID) ORDER BY a.id DESC
            """,
            logger: logger
        )
        for try await (id, publicID, userID, title, description, cover, count, created, updated, shownCover) in rows.decode(
            (Int64, String, Int64, String, String, Int64?, Int, Date, Date, Int64?).self
        ) {
            found.append((Self.album((id, publicID, userID, title, description, cover, count, created, updated)), shownCover))
        }
        return found
    }

    /// The user's albums' public ids and titles, by title (the "add to album" choices).
    func names(userID: Int64) async throws -> [(publicID: String, title: String)] {
        try await statements.rows(AlbumNames(userID: userID), logger: logger).map { ($0.publicID, $0.title) }
    }

    func find(userID: Int64, publicID: String) async throws -> Album? {
        try await fetch("SELECT \(unescaped: Self.columns) FROM albums a WHERE a.user_id = \(userID) AND a.public_id = \(publicID)").first
    }

    /// The user's albums that hold the photo, by title.
    func containing(photoID: Int64, userID: Int64) async throws -> [Album] {
        try await fetch(
            """
            SELECT \(unescaped: Self.columns) FROM albums a JOIN album_photos ap ON ap.album_id = a.id
            WHERE a.user_id = \(userID) AND ap.photo_id = \(photoID) ORDER BY a.title, a.id
            """
        )
    }

    func update(userID: Int64, publicID: String, title: String, description: String) async throws -> Album? {
        try await fetch(
            """
            WITH a AS (
                UPDATE albums SET title = \(title), description = \(description), updated_at = now()
                WHERE user_id = \(userID) AND public_id = \(publicID) RETURNING *
            )
            SELECT \(unescaped: Self.columns) FROM a
            """
        ).first
    }

    /// Deletes the album (its share links go with it; its photos stay); its title and how many
    /// links went, or nil when the user has no such album.
    func delete(userID: Int64, publicID: String) async throws -> (title: String, links: Int)? {
        let rows = try await client.query(
            """
            WITH deleted AS (DELETE FROM albums WHERE user_id = \(userID) AND public_id = \(publicID) RETURNING id, title)
            SELECT d.title, (SELECT count(*)::int FROM share_links l WHERE l.album_id = d.id) FROM deleted d
            """,
            logger: logger
        )
        for try await (title, links) in rows.decode((String, Int).self) { return (title, links) }
        return nil
    }

    /// What adding photos to an album came to.
    enum AddOutcome: Equatable {
        case albumMissing
        /// Some of the photos are not the user's (or do not exist): none was added.
        case photosMissing
        /// How many were added (photos already in the album are not counted twice).
        case added(Int)
    }

    /// Adds the user's photos to the user's album in one statement: all of them, or none when one
    /// of `photoIDs` is not the user's photo.
    func add(photoIDs: [String], toAlbum albumID: String, userID: Int64) async throws -> AddOutcome {
        let wanted = Array(Set(photoIDs))
        let rows = try await client.query(
            """
            WITH a AS (SELECT id FROM albums WHERE user_id = \(userID) AND public_id = \(albumID) FOR NO KEY UPDATE),
            p AS (SELECT id FROM photos WHERE user_id = \(userID) AND public_id = ANY(\(wanted)) AND trashed_at IS NULL FOR KEY SHARE),
            added AS (
                INSERT INTO album_photos (album_id, photo_id, user_id)
                SELECT a.id, p.id, \(userID) FROM a, p WHERE (SELECT count(*) FROM p) = \(wanted.count)
                ON CONFLICT DO NOTHING RETURNING 1
            ), touched AS (
                UPDATE albums SET updated_at = now() WHERE id = (SELECT id FROM a) AND EXISTS (SELECT 1 FROM added) RETURNING 1
            )
            SELECT (SELECT count(*)::int FROM a), (SELECT count(*)::int FROM p), (SELECT count(*)::int FROM added)
            """,
            logger: logger
        )
        for try await (albums, photos, added) in rows.decode((Int, Int, Int).self) {
            if albums == 0 { return .albumMissing }
            if photos != wanted.count { return .photosMissing }
            return .added(added)
        }
        return .albumMissing
    }

    /// Takes photos out of the user's album (they stay in the gallery); nil: no such album. The
    /// cover goes too when it is one of them.
    func remove(photoIDs: [String], fromAlbum albumID: String, userID: Int64) async throws -> Int? {
        let rows = try await client.query(
            """
            WITH a AS (SELECT id FROM albums WHERE user_id = \(userID) AND public_id = \(albumID) FOR NO KEY UPDATE),
            removed AS (
                DELETE FROM album_photos ap USING a, photos p
                WHERE ap.album_id = a.id AND p.id = ap.photo_id AND p.public_id = ANY(\(photoIDs))
                RETURNING ap.photo_id
            ), uncovered AS (
                UPDATE albums SET cover_photo_id = CASE WHEN cover_photo_id IN (SELECT photo_id FROM removed) THEN NULL ELSE cover_photo_id END,
                    updated_at = now()
                WHERE id = (SELECT id FROM a) RETURNING 1
            )
            SELECT (SELECT count(*)::int FROM a), (SELECT count(*)::int FROM removed), (SELECT count(*)::int FROM uncovered)
            """,
            logger: logger
        )
        for try await (albums, removed, _) in rows.decode((Int, Int, Int).self) {
            return albums == 0 ? nil : removed
        }
        return nil
    }

    /// What choosing a cover came to.
    enum CoverOutcome: Equatable {
        case albumMissing
        case photoNotInAlbum
        case set
    }

    /// Makes one of the album's photos its cover (nil: back to its latest photo). The album is
    /// locked first, as adding and removing do (the same order: no deadlock), and then the
    /// photo's place in it as it is read: a removal not yet committed is waited for, and a photo
    /// it took out is then not found (without that lock the statement's snapshot still held it,
    /// and the album was given a cover it no longer contained).
    func setCover(photoID: String?, album albumID: String, userID: Int64) async throws -> CoverOutcome {
        let rows = try await client.query(
            """
            WITH a AS (SELECT id FROM albums WHERE user_id = \(userID) AND public_id = \(albumID) FOR NO KEY UPDATE),
            p AS (
                SELECT ap.photo_id AS id FROM album_photos ap JOIN photos p ON p.id = ap.photo_id
                WHERE ap.album_id = (SELECT id FROM a) AND p.public_id = \(photoID) AND p.trashed_at IS NULL
                FOR KEY SHARE OF ap
            ), changed AS (
                UPDATE albums SET cover_photo_id = (SELECT id FROM p), updated_at = now()
                WHERE id = (SELECT id FROM a) AND (\(photoID)::text IS NULL OR EXISTS (SELECT 1 FROM p)) RETURNING 1
            )
            SELECT (SELECT count(*)::int FROM a), (SELECT count(*)::int FROM changed)
            """,
            logger: logger
        )
        for try await (albums, changed) in rows.decode((Int, Int).self) {
            if albums == 0 { return .albumMissing }
            return changed == 1 ? .set : .photoNotInAlbum
        }
        return .albumMissing
    }

    /// Every album of the user, the first made first, with the public ids of all its photos
    /// (those in the trash too), as they were added: what "Download my data" writes down.
    func everyAlbumWithItsPhotos(userID: Int64) async throws -> [(album: Album, photoIDs: [String])] {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns), coalesce(
                (SELECT array_agg(p.public_id ORDER BY ap.added_at, p.id) FROM album_photos ap JOIN photos p ON p.id = ap.photo_id
                 WHERE ap.album_id = a.id), '{}')
            FROM albums a WHERE a.user_id = \(userID) ORDER BY a.id
            """,
            logger: logger
        )
        var found: [(Album, [String])] = []
        for try await (id, publicID, userID, title, description, cover, count, created, updated, photoIDs) in rows.decode(
            (Int64, String, Int64, String, String, Int64?, Int, Date, Date, [String]).self
        ) {
            found.append((Self.album((id, publicID, userID, title, description, cover, count, created, updated)), photoIDs))
        }
        return found
    }

    private func fetch(_ query: PostgresQuery) async throws -> [Album] {
        var albums: [Album] = []
        for try await row in try await client.query(query, logger: logger).decode(Row.self) {
            albums.append(Self.album(row))
        }
        return albums
    }

    /// The album of a row that selects `columns`.
    private static func album(_ row: Row) -> Album {
        let (id, publicID, userID, title, description, cover, count, created, updated) = row
        return Album(
            id: id, publicID: publicID, userID: userID, title: title, description: description, coverPhotoID: cover, photoCount: count,
            createdAt: created, updatedAt: updated
        )
    }
}

struct AlbumRowMissing: Error {}

/// The gallery and every album page ask this for their selection bar.
struct AlbumNames: ReadOnlyStatement {
    static let name = "album_names"
    static let sql = "SELECT public_id, title FROM albums WHERE user_id = $1 ORDER BY lower(title), id"
    let userID: Int64

    struct Row: Sendable {
        let publicID: String
        let title: String
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(userID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        var columns = ColumnReader(row)
        return Row(publicID: try columns.next(), title: try columns.next())
    }
}
