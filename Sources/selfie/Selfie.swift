import App
import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import SelfieCore

#if canImport(Glibc)
import CMalloc
#endif

/// The `selfie` command: `serve` (default) and `migrate`.
@main
struct Selfie: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selfie",
        abstract: "Accounts and a private photo gallery.",
        subcommands: [Serve.self, Migrate.self, Backup.self, Restore.self, Check.self, Admin.self, Blobs.self, Photos.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the web pages and the API.")

    @Flag(help: "Apply pending database migrations before serving.")
    var migrate = false

    func run() async throws {
        limitMallocArenas()
        let config = try loadConfiguration()
        let logger = makeLogger(config)
        do {
            try await serve(config, migrations: migrate ? .apply : .refuse, logger: logger)
        } catch let error as MigrationError {
            exitWithMessage("selfie: \(error)")
        }
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending database migrations, then exit. Refuses a database newer than this Selfie. Back up first: `selfie backup DIR`."
    )

    @Flag(help: "Only list the pending migrations; apply nothing.")
    var list = false

    func run() async throws {
        let config = try loadConfiguration()
        let logger = makeLogger(config)
        let paths = ResourcePaths()
        do {
            let migrations = try Migrator.loadMigrations(from: paths.migrations)
            try await PostgresClient.withClient(config.database, logger: logger) { client in
                let migrator = Migrator(client: client, migrations: migrations, logger: logger)
                let status = try await migrator.status()
                if !status.newerAdditive.isEmpty {
                    print("The database also has additive migrations this build does not know (a newer Selfie applied them): \(status.newerAdditive.map(String.init).joined(separator: ", ")).")
                }
                let pending = status.pending
                guard !pending.isEmpty else { return print("Database is up to date.") }
                print("\(pending.count) pending migration(s):")
                for migration in pending { print("  \(migration.label)") }
                guard !list else { return }
                let applied = try await migrator.migrate()
                print("Applied \(applied.count) migration(s).")
            }
        } catch let error as MigrationError {
            exitWithMessage("selfie: \(error)")
        } catch let error as PSQLError {
            exitWithMessage("selfie: cannot migrate the database: \(String(reflecting: error))")
        }
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back up the database (pg_dump, one snapshot) and every photo blob it references, with their SHA-256, into DIR.",
        discussion: "A second backup into the same DIR copies only the blobs it does not have yet. Exits 2 when a photo's blob is missing from the store (the backup is written without it) or does not match its row's SHA-256 (copied as it is); `selfie check` names the photo."
    )

    @Argument(help: "The backup folder (created if needed).")
    var directory: String

    func run() async throws {
        let started = ContinuousClock.now
        do {
            let report = try await withBackupService { try await $0.backup(into: directory) }
            let seconds = (ContinuousClock.now - started).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            print("Backup \(report.name) in \(directory) (\(seconds)):")
            print("  database: \(megabytes(report.databaseBytes))")
            print("  blobs: \(report.blobs) (\(megabytes(report.totalBytes))); copied now: \(report.copied) (\(megabytes(report.copiedBytes))), already there: \(report.blobs - report.copied)")
            if !report.vanished.isEmpty { print("  deleted while the backup ran (left out, and out of the restore): \(report.vanished.count)") }
            if !report.damaged.isEmpty {
                print("  damaged in the store (copied as they are; `selfie check --repair` remakes renditions): \(report.damaged.prefix(5).joined(separator: ", "))\(report.damaged.count > 5 ? ", …" : "")")
            }
            if !report.missing.isEmpty || !report.damaged.isEmpty {
                let problems = [
                    report.missing.isEmpty ? nil : "\(report.missing.count) blob(s) the database references are missing from the store",
                    report.damaged.isEmpty ? nil : "\(report.damaged.count) blob(s) do not match their rows' SHA-256",
                ].compactMap { $0 }
                exitWithMessage("selfie: \(problems.joined(separator: "; ")); run `selfie check`.", status: 2)
            }
        } catch let error as BackupError {
            exitWithMessage("selfie: \(error)")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup from DIR into the configured database and blob store, after checking every file against its manifest.",
        discussion: "The target must be empty (a new database, an empty folder or bucket) unless --force. The store may differ from the one backed up (filesystem or S3). Run `selfie migrate` afterwards if this Selfie is newer than the backup."
    )

    @Argument(help: "The backup folder.")
    var directory: String

    @Option(help: "The snapshot to restore (a name under DIR/snapshots); default: the latest.")
    var snapshot: String?

    @Flag(help: "Restore into a database and store that are not empty: the backup's tables are replaced, its blobs written over.")
    var force = false

    func run() async throws {
        let migrations = try Migrator.loadMigrations(from: ResourcePaths().migrations)
        let started = ContinuousClock.now
        do {
            let report = try await withBackupService {
                try await $0.restore(from: directory, snapshot: snapshot, force: force, binarySchemaVersion: migrations.map(\.version).max() ?? 0)
            }
            let seconds = (ContinuousClock.now - started).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            print("Restored \(report.name) (\(seconds)): the database at migration \(report.schemaVersion), \(report.blobs) blob(s) (\(megabytes(report.bytes))), each checked against its SHA-256.")
            if !report.missing.isEmpty {
                print("\(report.missing.count) blob(s) were already missing from the store when this backup ran; their photos come back without them (`selfie check` names them): \(report.missing.prefix(5).joined(separator: ", "))\(report.missing.count > 5 ? ", …" : "")")
            }
            if let newest = migrations.map(\.version).max(), newest > report.schemaVersion {
                print("This Selfie has newer migrations: run `selfie migrate` before serving.")
            }
        } catch let error as BackupError {
            exitWithMessage("selfie: \(error)")
        }
    }
}

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare the photo rows with the blob store, reading every blob: missing originals or renditions, blobs no row references, blobs whose bytes changed. Exits 1 when anything is wrong (with --repair: when anything is left).",
        discussion: "The first run records the SHA-256 of blobs stored before Selfie recorded them. The result is shown on /admin/integrity."
    )

    @Flag(help: "Remake missing or damaged renditions from their originals, and move unreferenced blobs into --aside (never deleted).")
    var repair = false

    @Option(help: "The folder --repair moves unreferenced blobs into.")
    var aside = "data/orphaned-blobs"

    @Option(help: "A blob without a row younger than this many minutes is an upload in progress, not an orphan.")
    var orphanGraceMinutes = 60

    func run() async throws {
        let config = try loadConfiguration()
        let services = try CoreServices(forWeb: config, logger: makeLogger(config))
        let grace = Duration.seconds(max(orphanGraceMinutes, 0) * 60)
        let folder = repair ? URL(fileURLWithPath: aside) : nil
        let report = try await services.whileRunning {
            try await services.integrity.run(.full, orphanGrace: grace, repairInto: folder)
        }
        for line in try IntegrityFindingText.english(report.findings) { print(line) }
        if report.findingCount > report.findings.count {
            print("… and \(report.findingCount - report.findings.count) more (the first \(report.findings.count) are listed).")
        }
        print(
            "\(report.photos) photo(s), \(report.blobs) blob(s) in the store; \(report.checksumsVerified) checksum(s) verified"
                + (report.checksumsRecorded > 0 ? ", \(report.checksumsRecorded) recorded for the first time" : "") + "."
        )
        let left = repair ? report.unresolved.count : report.findingCount
        if left == 0 {
            print(report.findings.isEmpty ? "Everything is in order." : "Repaired everything found.")
        } else {
            exitWithMessage("selfie: \(left) problem(s)\(repair ? " left" : "")" + (repair ? "." : "; `selfie check --repair` fixes renditions and orphans."))
        }
    }
}

/// Runs `body` with the backup service on the configured database and store.
func withBackupService<T: Sendable>(_ body: @Sendable (BackupService) async throws -> T) async throws -> T {
    let config = try loadConfiguration()
    let logger = makeLogger(config)
    let blobs = try makeBlobStore(config, logger: logger)
    return try await PostgresClient.withClient(config.database, logger: logger) { client in
        try await body(
            BackupService(
                repository: BackupRepository(client: client, logger: logger),
                photos: PhotoRepository(client: client, logger: logger),
                database: config.database,
                blobs: blobs,
                logger: logger
            )
        )
    }
}

/// "12.3 MB" (decimal, as `du --si` and file managers count).
func megabytes(_ bytes: Int64) -> String {
    let value = Double(bytes) / 1_000_000
    return value < 10 ? String(format: "%.2f MB", value) : String(format: "%.1f MB", value)
}

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage administrators, and help people back into their accounts.",
        subcommands: [Create.self, Promote.self, Demote.self, ResetLink.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an admin account. The password is read from standard input; if none is given, one is generated and printed once."
        )

        @Option(help: "The admin's email address.")
        var email: String

        @Option(help: "The admin's full name (default: the email's local part).")
        var name: String?

        @Flag(help: "Generate the password instead of reading it.")
        var generatePassword = false

        func run() async throws {
            let password = generatePassword ? nil : readPassword()
            try await runAdminCommand { try await $0.create(email: email, name: name, password: password) }
        }

        /// From a terminal: asked for, without echo. Piped in: the first line.
        private func readPassword() -> String? {
            if isatty(STDIN_FILENO) == 1 {
                guard let typed = getpass("Password (leave empty to generate one): ") else { return nil }
                return String(cString: typed)
            }
            return readLine(strippingNewline: true)
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an existing user the admin role.")
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            try await runAdminCommand { try await $0.setRole(.admin, email: email) }
        }
    }

    struct ResetLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a link that lets the user choose a new password (works once, for one hour; not mailed; audited)."
        )
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            try await runAdminCommand { try await $0.resetLink(email: email) }
        }
    }

    struct Demote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take the admin role away (never from the last admin).")
        @Argument(help: "The user's email address.") var email: String

        func run() async throws {
            try await runAdminCommand { try await $0.setRole(.user, email: email) }
        }
    }
}

func runAdminCommand(_ command: (AdminCommands) async throws -> [String]) async throws {
    let config = try loadConfiguration()
    do {
        for line in try await command(AdminCommands(config: config, logger: makeLogger(config))) { print(line) }
    } catch let error as AdminCommandError {
        exitWithMessage("selfie: \(error)")
    }
}

struct Blobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Look after the photo blob store.",
        subcommands: [Sweep.self]
    )

    struct Sweep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove unfinished uploads left by crashes; report blobs without a photo row (older than an hour; `selfie check --repair` moves them aside) and rows whose blob is missing."
        )

        @Option(help: "Only blobs and unfinished uploads at least this many minutes old count (uploads in flight are younger).")
        var minimumAgeMinutes = 60

        func run() async throws {
            let config = try loadConfiguration()
            let logger = makeLogger(config)
            let blobs = try makeBlobStore(config, logger: logger)
            let minimumAge = Duration.seconds(max(minimumAgeMinutes, 0) * 60)
            let report = try await PostgresClient.withClient(config.database, logger: logger) { client in
                try await BlobSweeper(
                    photos: PhotoRepository(client: client, logger: logger), resumable: ResumableUploadRepository(client: client, logger: logger),
                    blobs: blobs, logger: logger
                )
                    .sweep(minimumAge: minimumAge)
            }
            print("Removed \(report.incompleteUploadsRemoved) unfinished upload(s).")
            print("\(report.orphanCount) blob(s) without a photo row (left in place; `selfie check --repair` moves them aside).")
            if report.rowsMissingBlobCount == 0 {
                print("Every photo has its blob.")
            } else {
                let more = report.rowsMissingBlobCount - report.rowsMissingBlobs.count
                print("\(report.rowsMissingBlobCount) blob(s) missing, of these photos\(more > 0 ? " (the first \(report.rowsMissingBlobs.count))" : ""):")
                for id in report.rowsMissingBlobs { print("  \(id)") }
            }
        }
    }
}

struct Photos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Look after the photos' renditions.",
        subcommands: [Reprocess.self]
    )

    struct Reprocess: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the renditions (thumbnails, display copy) of photos from their originals, and read when they were taken."
        )

        enum Which: EnumerableFlag {
            case missing
            case all

            static func help(for value: Which) -> ArgumentHelp? {
                switch value {
                case .missing: "only photos without renditions or capture time (stored before Selfie made or read them)"
                case .all: "every photo (after the image pipeline changed)"
                }
            }
        }

        @Flag var which: Which = .missing

        func run() async throws {
            let config = try loadConfiguration()
            let services = try CoreServices(forWeb: config, logger: makeLogger(config))
            let (report, captureTimes) = try await services.whileRunning {
                let report = try await services.backfill.run(missingOnly: which == .missing)
                // `--all` read every capture time while remaking the renditions.
                guard which == .missing, !report.skipped else { return (report, report) }
                return (report, try await services.backfill.fillCaptureTimes())
            }
            if report.skipped || captureTimes.skipped {
                print("Another Selfie process is making renditions right now; try again when it is done.")
                return
            }
            print("Made renditions for \(report.processed) photo(s).")
            if !report.failed.isEmpty {
                print("\(report.failed.count) photo(s) could not be processed (original missing or unreadable):")
                for id in report.failed { print("  \(id)") }
            }
            print("Read when \(captureTimes.processed) more photo(s) were taken; the others' files do not say.")
        }
    }
}

/// glibc gives each thread that mallocs under contention an arena of its own and rarely returns
/// their memory: with image decoding on several threads, peak memory grew by a third. Two arenas
/// (as `MALLOC_ARENA_MAX=2` would set) keep it flat at no measurable cost here.
///
/// Blocks of 1 MiB and more (an original read back for its renditions, libvips' buffers) are
/// mmapped and go back to the system when freed: left to itself glibc raises that threshold to up
/// to 32 MiB after the first large free, and the heap then keeps every such block it ever held
/// (RSS after a bench run: BENCHMARKS.md).
func limitMallocArenas() {
    #if canImport(Glibc)
    mallopt(M_ARENA_MAX, 2)
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024)
    #endif
}

func loadConfiguration() throws -> AppConfiguration {
    do {
        return try AppConfiguration.load(from: DotEnvFile.environment())
    } catch {
        exitWithMessage(error.description)
    }
}

func makeLogger(_ config: AppConfiguration) -> Logger {
    Logger.selfie(format: config.logFormat, level: config.logLevel)
}

func exitWithMessage(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    Foundation.exit(status)
}
