import Foundation

/// What one backup holds: the database dump and every blob its rows reference, each with its
/// size and SHA-256, so that a restore can prove it puts back exactly what was taken.
///
/// A backup folder keeps every snapshot's dump and manifest under `snapshots/<name>/`, and the
/// blobs of all of them once, under `blobs/` (a blob's key never changes its bytes, so a later
/// backup copies only the blobs it does not find there). `latest` names the newest snapshot.
public struct BackupManifest: Codable, Sendable, Equatable {
    public struct Blob: Codable, Sendable, Equatable {
        public let key: String
        public let bytes: Int64
        public let sha256: String
    }

    public static let currentFormat = 1

    public var format = BackupManifest.currentFormat
    /// The snapshot's name: its UTC time, `20261125T231500Z`.
    public var name: String
    public var createdAt: Date
    /// The newest migration the database had: a restore needs a binary that knows it.
    public var schemaVersion: Int
    public var databaseFile: String
    public var databaseBytes: Int64
    public var databaseSHA256: String
    public var blobs: [Blob]
    /// Blobs the database referenced when it was dumped but that were deleted (with their rows)
    /// before they could be copied: a photo deleted for good while the backup ran. A restore
    /// removes the rows that point at them, as the live database did moments later.
    public var vanished: [String]
    /// Blobs the database referenced that the store did not have (and still references): their
    /// photos come back without those bytes, as they were. `selfie check` names them.
    public var missing: [String]

    enum CodingKeys: String, CodingKey {
        case format, name, vanished, missing, blobs
        case createdAt = "created_at"
        case schemaVersion = "schema_version"
        case databaseFile = "database_file"
        case databaseBytes = "database_bytes"
        case databaseSHA256 = "database_sha256"
    }
}

/// The layout of a backup folder.
struct BackupFolder {
    let root: URL

    /// A backup holds every photo and the whole database: only its owner reads it (0700
    /// folders, 0600 files), as the blob store keeps photos from other users of the machine.
    static var privateFolder: [FileAttributeKey: Any] { [.posixPermissions: 0o700] }
    static var privateFile: [FileAttributeKey: Any] { [.posixPermissions: 0o600] }

    var latestFile: URL { root.appendingPathComponent("latest") }
    var snapshots: URL { root.appendingPathComponent("snapshots") }
    var blobsFolder: URL { root.appendingPathComponent("blobs") }

    func snapshot(_ name: String) -> URL { snapshots.appendingPathComponent(name) }
    func manifest(_ name: String) -> URL { snapshot(name).appendingPathComponent("manifest.json") }
    /// `blobs/Xy/Xy…9Q.jpg`: two levels, so that no folder holds millions of files.
    func blob(_ key: String) -> URL { blobsFolder.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key) }

    /// The newest snapshot's name, if any backup finished here.
    func latest() -> String? {
        (try? String(contentsOf: latestFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
    }

    func readManifest(_ name: String) throws -> BackupManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(BackupManifest.self, from: Data(contentsOf: manifest(name)))
    }

    func write(_ manifest: BackupManifest) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try DurableFile.write(try encoder.encode(manifest), to: self.manifest(manifest.name))
        // Last: a snapshot is "the latest" only once everything it needs is on disk.
        try DurableFile.write(Data((manifest.name + "\n").utf8), to: latestFile)
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
