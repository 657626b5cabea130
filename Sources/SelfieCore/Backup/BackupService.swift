import Foundation
import Logging
import NIOCore

/// Why a backup or a restore stopped. Each says what to do about it.
public enum BackupError: Error, Equatable, CustomStringConvertible {
    case toolMissing(String)
    case toolFailed(String, status: Int32, message: String)
    case snapshotUnavailable
    case invalidKey(String)
    case cannotWrite(String)
    case noBackup(String)
    case unknownFormat(Int)
    case newerSchema(backup: Int, binary: Int)
    case databaseNotEmpty(tables: Int)
    case tablesNotInBackup([String])
    case storeNotEmpty(blobs: Int)
    case damaged([String])

    public var description: String {
        switch self {
        case .toolMissing(let tool): "\(tool) was not found: install Debian's postgresql-client (the same major version as the server or newer)."
        case .toolFailed(let tool, let status, let message): "\(tool) failed (exit \(status)): \(message)"
        case .snapshotUnavailable: "PostgreSQL did not export a snapshot for pg_dump."
        case .invalidKey(let key): "a row references a blob key Selfie never makes: \(key)"
        case .cannotWrite(let path): "cannot write \(path): check the folder's permissions and free space."
        case .noBackup(let path): "no finished backup in \(path) (no `latest` file, or no such snapshot)."
        case .unknownFormat(let format): "the backup's format \(format) is newer than this Selfie: restore it with the Selfie that made it."
        case .newerSchema(let backup, let binary):
            "the backup's database is at migration \(backup), newer than this Selfie's \(binary): restore it with the Selfie that made it (or newer)."
        case .databaseNotEmpty(let tables):
            "the target database is not empty (\(tables) table(s)): restore into an empty database, or pass --force to replace what the backup holds."
        case .tablesNotInBackup(let tables):
            "the target database has tables the backup does not (\(tables.joined(separator: ", "))): it is newer than the backup, and --force would leave them beside the restored ones (the next `selfie migrate` would then fail). Restore into a new, empty database instead."
        case .storeNotEmpty(let blobs):
            "the target blob store is not empty (\(blobs) blob(s)): restore into an empty store, or pass --force to add to it."
        case .damaged(let problems):
            "the backup is damaged; nothing was restored:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
        }
    }
}

/// What a backup did.
public struct BackupReport: Sendable {
    public let name: String
    public let databaseBytes: Int64
    /// Blobs the snapshot references, and how many of them were copied now (the others were in
    /// the folder from an earlier backup).
    public let blobs: Int
    public let copied: Int
    public let copiedBytes: Int64
    public let totalBytes: Int64
    public let vanished: [String]
    /// Blobs the database references that the store does not have: the backup is incomplete
    /// (`selfie check` says which photos).
    public let missing: [String]
    /// Blobs whose bytes in the store do not match the size or SHA-256 their rows record (bit
    /// rot, a cut write): copied as they are, and named, so that nobody trusts them unawares.
    public let damaged: [String]
}

/// What a restore did.
public struct RestoreReport: Sendable {
    public let name: String
    public let blobs: Int
    public let bytes: Int64
    public let schemaVersion: Int
    /// Blobs the database referenced that its store did not have when the backup ran: their
    /// photos come back without those bytes (`selfie check` names them).
    public let missing: [String]
}

/// `selfie backup DIR` and `selfie restore DIR`: the database with `pg_dump`'s custom format, read
/// from the same snapshot as the list of blobs the backup copies, and the blobs themselves from
/// either store, each with its SHA-256 in the snapshot's manifest.
public struct BackupService: Sendable {
    let repository: BackupRepository
    let photos: PhotoRepository
    let database: DatabaseURL
    let blobs: any BlobStore
    let logger: Logger
    /// Blobs copied at once (S3 answers each in a round trip).
    static let parallelCopies = 4

    public init(repository: BackupRepository, photos: PhotoRepository, database: DatabaseURL, blobs: any BlobStore, logger: Logger) {
        self.repository = repository
        self.photos = photos
        self.database = database
        self.blobs = blobs
        self.logger = logger
    }

    // MARK: Backup

    public func backup(into directory: String, now: Date = .now) async throws -> BackupReport {
        let folder = BackupFolder(root: URL(fileURLWithPath: directory))
        let name = Self.snapshotName(now, taken: { FileManager.default.fileExists(atPath: folder.snapshot($0).path) })
        let dump = folder.snapshot(name).appendingPathComponent(Self.databaseFile)
        try FileManager.default.createDirectory(at: folder.snapshot(name), withIntermediateDirectories: true, attributes: BackupFolder.privateFolder)

        // One snapshot for the dump and the list of blobs: whatever is in the dump, its blobs are listed.
        let database = self.database
        let (referenced, schemaVersion) = try await repository.withSnapshot { snapshot in
            let partial = dump.appendingPathExtension("partial")
            try await PostgresTools.run(
                "pg_dump",
                ["--format=custom", "--no-owner", "--no-privileges", "--snapshot=\(snapshot.id)", "--file=\(partial.path)"],
                database: database
            )
            try Self.makeDurable(partial, as: dump)
            return (snapshot.blobs, snapshot.schemaVersion)
        }
        let dumped = try DurableFile.sha256(of: dump)

        // Hashes of blobs copied by earlier backups, so that they are not read again.
        let known = Dictionary(
            (folder.latest().flatMap { try? folder.readManifest($0) }?.blobs ?? []).map { ($0.key, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let outcomes = try await forEach(referenced, parallel: Self.parallelCopies) { blob in
            try await self.copy(blob, into: folder, known: known[blob.key.value])
        }
        var entries: [BackupManifest.Blob] = []
        var copied = 0
        var copiedBytes: Int64 = 0
        var absent: [BlobKey] = []
        var damaged: [String] = []
        for (blob, outcome) in zip(referenced, outcomes) {
            let entry: BackupManifest.Blob
            switch outcome {
            case .copied(let copy):
                entry = copy
                copied += 1
                copiedBytes += copy.bytes
            case .present(let present): entry = present
            case .absent:
                absent.append(blob.key)
                continue
            }
            entries.append(entry)
            if entry.bytes != blob.bytes || (blob.sha256.map { $0 != entry.sha256 } ?? false) { damaged.append(entry.key) }
        }
        // Absent now and no longer referenced: deleted (row and blob) while the backup ran.
        let stillReferenced = try await photos.existingBlobKeys(among: absent)
        let vanished = absent.filter { !stillReferenced.contains($0) }.map(\.value)
        let missing = absent.filter { stillReferenced.contains($0) }.map(\.value)
        let manifest = BackupManifest(
            name: name,
            createdAt: now,
            schemaVersion: schemaVersion,
            databaseFile: Self.databaseFile,
            databaseBytes: dumped.bytes,
            databaseSHA256: dumped.sha256,
            blobs: entries,
            vanished: vanished,
            missing: missing
        )
        try folder.write(manifest)
        for key in missing {
            logger.error("a photo's blob is missing from the store; the backup has its row but not its bytes", metadata: ["blob": "\(key)"])
        }
        for key in damaged {
            logger.error("a photo's blob does not match the size or SHA-256 its row records; the backup holds it as the store has it", metadata: ["blob": "\(key)"])
        }
        return BackupReport(
            name: name,
            databaseBytes: dumped.bytes,
            blobs: entries.count,
            copied: copied,
            copiedBytes: copiedBytes,
            totalBytes: entries.reduce(0) { $0 + $1.bytes },
            vanished: vanished,
            missing: missing,
            damaged: damaged
        )
    }

    private enum CopyOutcome: Sendable {
        case copied(BackupManifest.Blob)
        case present(BackupManifest.Blob)
        case absent
    }

    /// Copies one blob into the folder, unless an earlier backup did (same size on disk, and the
    /// SHA-256 its row records when it records one): a good copy is never replaced by the store's
    /// bytes, which may have gone bad since.
    private func copy(_ blob: DatabaseSnapshot.Blob, into folder: BackupFolder, known: BackupManifest.Blob?) async throws -> CopyOutcome {
        let key = blob.key
        let path = folder.blob(key.value)
        if let size = (try? FileManager.default.attributesOfItem(atPath: path.path))?[.size] as? Int64, size == blob.bytes {
            if let known, known.bytes == size, blob.sha256 == nil || blob.sha256 == known.sha256 { return .present(known) }
            let hashed = try DurableFile.sha256(of: path)
            if blob.sha256 == nil || blob.sha256 == hashed.sha256 {
                return .present(BackupManifest.Blob(key: key.value, bytes: hashed.bytes, sha256: hashed.sha256))
            }
        }
        guard let content = try await blobs.read(key, range: nil) else { return .absent }
        let writer = try HashingFileWriter(destination: path)
        do {
            try await content.body.write { chunk in try writer.write(chunk) }
            let written = try writer.finish()
            return .copied(BackupManifest.Blob(key: key.value, bytes: written.bytes, sha256: written.sha256))
        } catch {
            writer.abandon()
            throw error
        }
    }

    // MARK: Restore

    /// Restores the snapshot `name` (else the latest) into the configured database and store, after
    /// checking every file of it against its manifest. Refuses a target that is not empty unless
    /// `force`; `binarySchemaVersion` is the newest migration this Selfie knows.
    public func restore(from directory: String, snapshot name: String?, force: Bool, binarySchemaVersion: Int) async throws -> RestoreReport {
        let folder = BackupFolder(root: URL(fileURLWithPath: directory))
        guard let name = name ?? folder.latest() else { throw BackupError.noBackup(directory) }
        // Names from the folder and the manifest become paths: only the ones a backup writes.
        guard Self.isSnapshotName(name) else { throw BackupError.damaged(["\(name): not a snapshot's name"]) }
        guard let manifest = try? folder.readManifest(name) else { throw BackupError.noBackup(directory) }
        guard manifest.format <= BackupManifest.currentFormat else { throw BackupError.unknownFormat(manifest.format) }
        guard manifest.schemaVersion <= binarySchemaVersion else {
            throw BackupError.newerSchema(backup: manifest.schemaVersion, binary: binarySchemaVersion)
        }

        // Everything is checked before anything is touched.
        var problems: [String] = []
        let dump = folder.snapshot(name).appendingPathComponent(Self.databaseFile)
        if manifest.databaseFile != Self.databaseFile {
            problems.append("\(manifest.databaseFile): not the database file a backup writes")
        } else if (try? DurableFile.sha256(of: dump))?.sha256 != manifest.databaseSHA256 {
            problems.append("\(manifest.databaseFile): missing or its SHA-256 does not match the manifest")
        }
        let invalid = manifest.blobs.filter { BlobKey($0.key) == nil }
        problems += invalid.map { "blob \($0.key): not a key Selfie makes" }
        guard invalid.isEmpty else { throw BackupError.damaged(problems) }
        let checks = try await forEach(manifest.blobs, parallel: Self.parallelCopies) { blob in
            let found = try? DurableFile.sha256(of: folder.blob(blob.key))
            return found == nil ? "blob \(blob.key): missing" : found!.sha256 != blob.sha256 ? "blob \(blob.key): SHA-256 does not match the manifest" : nil
        }
        problems += checks.compactMap { $0 }
        guard problems.isEmpty else { throw BackupError.damaged(problems) }

        let tables = try await repository.tableNames()
        if !tables.isEmpty, !force { throw BackupError.databaseNotEmpty(tables: tables.count) }
        if force {
            // `pg_restore --clean` replaces only what the dump holds.
            let extra = tables.subtracting(try await Self.tables(in: dump, database: database))
            guard extra.isEmpty else { throw BackupError.tablesNotInBackup(extra.sorted()) }
        }
        let present = try await blobs.list().count
        if present > 0, !force { throw BackupError.storeNotEmpty(blobs: present) }

        // The blobs first: a copy that fails (a full disk, the store out of reach) leaves the
        // database as it was, and blobs without rows harm nothing (a run with --force copies
        // them again). The database last, in one transaction.
        _ = try await forEach(manifest.blobs, parallel: Self.parallelCopies) { blob in
            guard let key = BlobKey(blob.key) else { throw BackupError.invalidKey(blob.key) }
            try await self.upload(folder.blob(blob.key), as: key)
        }
        var arguments = ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--dbname=\(database.database)"]
        if force { arguments += ["--clean", "--if-exists"] }
        try await PostgresTools.run("pg_restore", arguments + [dump.path], database: database)
        try await repository.removeRows(referencing: manifest.vanished)
        try await repository.removeUnfinishedUploads()
        return RestoreReport(name: name, blobs: manifest.blobs.count, bytes: manifest.blobs.reduce(0) { $0 + $1.bytes }, schemaVersion: manifest.schemaVersion, missing: manifest.missing)
    }

    /// The tables of schema `public` that a dump holds (its table of contents: `… TABLE public name owner`).
    static func tables(in dump: URL, database: DatabaseURL) async throws -> Set<String> {
        let listing = try await PostgresTools.output("pg_restore", ["--list", dump.path], database: database)
        return Set(
            listing.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard let kind = fields.firstIndex(of: "TABLE"), kind + 2 < fields.count, fields[kind + 1] == "public" else { return nil }
                return String(fields[kind + 2])
            }
        )
    }

    /// Streams a file from the backup into the store under its key.
    private func upload(_ file: URL, as key: BlobKey) async throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let writer = try await blobs.makeWriter(for: key)
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.commit()
        } catch {
            await writer.abort()
            throw error
        }
    }

    // MARK: Helpers

    /// The dump's file in its snapshot's folder.
    static let databaseFile = "database.dump"

    /// Whether `name` is one `snapshotName` makes (`20261125T231500Z`, `…Z-2`): nothing that could
    /// lead out of the backup folder.
    static func isSnapshotName(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= 2, let stamp = parts.first, stamp.count == 16 else { return false }
        let digits = stamp.enumerated().allSatisfy { index, c in
            switch index {
            case 8: c == "T"
            case 15: c == "Z"
            default: c.isASCII && c.isNumber
            }
        }
        guard digits else { return false }
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty && parts[1].count <= 6 && parts[1].allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `20261125T231500Z`, or with `-2`, `-3`… when a snapshot of that second exists.
    static func snapshotName(_ date: Date, taken: (String) -> Bool) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let base = "\(c.year ?? 0)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
        var name = base
        var n = 2
        while taken(name) {
            name = "\(base)-\(n)"
            n += 1
        }
        return name
    }

    /// pg_dump wrote `partial`: fsync it and give it its name.
    private static func makeDurable(_ partial: URL, as final: URL) throws {
        let fd = open(partial.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BackupError.cannotWrite(partial.path) }
        fchmod(fd, 0o600)  // pg_dump makes it readable by everyone
        fsync(fd)
        close(fd)
        guard rename(partial.path, final.path) == 0 else { throw BackupError.cannotWrite(final.path) }
    }
}
