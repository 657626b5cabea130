import Foundation
import Logging
import PostgresNIO

/// A blob as the rows describe it: whose photo, which copy, its size and recorded SHA-256.
struct BlobRow: Sendable {
    let photoID: Int64
    let publicID: String
    let owner: String
    let key: BlobKey
    /// nil for the original; else the rendition's name.
    let rendition: RenditionName?
    let sha256: [UInt8]?
}

/// The SQL of the integrity check.
public struct IntegrityRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The blobs rows reference whose keys start with `prefix` (one or two characters): originals
    /// and renditions, with their photo and its owner; a range of the byte-ordered key indexes.
    func blobRows(startingWith prefix: String) async throws -> [BlobRow] {
        let end = BlobNamePrefixes.end(of: prefix)
        return try await blobRows(
            """
            SELECT * FROM (\(unescaped: Self.blobRowsSQL)) b WHERE b.blob_key COLLATE "C" >= \(prefix) AND b.blob_key COLLATE "C" < \(end)
            ORDER BY b.id, b.name NULLS FIRST
            """
        )
    }

    /// `count` blobs at random among those whose checksum is recorded (the light check's sample).
    func sampleOfBlobRows(count: Int) async throws -> [BlobRow] {
        try await blobRows("SELECT * FROM (\(unescaped: Self.blobRowsSQL)) b WHERE b.sha256 IS NOT NULL ORDER BY random() LIMIT \(count)")
    }

    private static let blobRowsSQL = """
        SELECT p.id, p.public_id, coalesce(u.email, u.username, 'user ' || u.id) AS owner, p.blob_key, NULL::text AS name, p.sha256
        FROM photos p JOIN users u ON u.id = p.user_id
        UNION ALL
        SELECT p.id, p.public_id, coalesce(u.email, u.username, 'user ' || u.id), r.blob_key, r.name, r.sha256
        FROM photo_renditions r JOIN photos p ON p.id = r.photo_id JOIN users u ON u.id = p.user_id
        """

    private func blobRows(_ query: PostgresQuery) async throws -> [BlobRow] {
        var rows: [BlobRow] = []
        for try await (id, publicID, owner, key, name, sha) in try await client.query(query, logger: logger)
            .decode((Int64, String, String, String, String?, ByteBuffer?).self)
        {
            guard let key = BlobKey(key) else { continue }
            rows.append(
                BlobRow(
                    photoID: id,
                    publicID: publicID,
                    owner: owner,
                    key: key,
                    rendition: name.flatMap(RenditionName.init(rawValue:)),
                    sha256: sha.map { Array($0.readableBytesView) }
                )
            )
        }
        return rows
    }

    /// Records a blob's SHA-256 where none is recorded yet (blobs stored before checksums were).
    func recordChecksum(of key: BlobKey, _ sha256: [UInt8]) async throws {
        let hash = ByteBuffer(bytes: sha256)
        try await client.query("UPDATE photos SET sha256 = \(hash) WHERE blob_key = \(key.value) AND sha256 IS NULL", logger: logger)
        try await client.query("UPDATE photo_renditions SET sha256 = \(hash) WHERE blob_key = \(key.value) AND sha256 IS NULL", logger: logger)
    }

    func save(_ report: IntegrityReport, kind: IntegrityReport.Kind) async throws {
        let encoder = JSONEncoder()
        let findings = String(decoding: try encoder.encode(Array(report.findings.prefix(500))), as: UTF8.self)
        try await client.query(
            """
            INSERT INTO integrity_checks (kind, started_at, finished_at, photos, blobs, checksums_verified, findings, finding_count)
            VALUES (\(kind.rawValue), \(report.startedAt), \(report.finishedAt), \(report.photos), \(report.blobs),
                    \(report.checksumsVerified), \(findings)::jsonb, \(report.findingCount))
            ON CONFLICT (kind) DO UPDATE SET started_at = excluded.started_at, finished_at = excluded.finished_at,
                photos = excluded.photos, blobs = excluded.blobs, checksums_verified = excluded.checksums_verified,
                findings = excluded.findings, finding_count = excluded.finding_count
            """,
            logger: logger
        )
    }

    /// The last check of each kind, the full one first.
    func last() async throws -> [StoredIntegrityCheck] {
        var checks: [StoredIntegrityCheck] = []
        let decoder = JSONDecoder()
        for try await (kind, started, finished, photos, blobs, verified, findings, count) in try await client.query(
            """
            SELECT kind, started_at, finished_at, photos, blobs, checksums_verified, findings::text, finding_count
            FROM integrity_checks ORDER BY kind
            """,
            logger: logger
        ).decode((String, Date, Date, Int, Int, Int, String, Int).self) {
            guard let kind = IntegrityReport.Kind(rawValue: kind) else { continue }
            checks.append(
                StoredIntegrityCheck(
                    kind: kind,
                    startedAt: started,
                    finishedAt: finished,
                    photos: photos,
                    blobs: blobs,
                    checksumsVerified: verified,
                    findings: (try? decoder.decode([IntegrityFinding].self, from: Data(findings.utf8))) ?? [],
                    findingCount: count
                )
            )
        }
        return checks
    }
}
