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
        subcommands: [Serve.self, Migrate.self, Admin.self, Blobs.self, Photos.self],
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
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations, then exit.")

    func run() async throws {
        let config = try loadConfiguration()
        let logger = makeLogger(config)
        let paths = ResourcePaths()
        do {
            let migrations = try Migrator.loadMigrations(from: paths.migrations)
            let applied = try await PostgresClient.withClient(config.database, logger: logger) { client in
                try await Migrator(client: client, migrations: migrations, logger: logger).migrate()
            }
            print(applied.isEmpty ? "Database is up to date." : "Applied \(applied.count) migration(s).")
        } catch let error as MigrationError {
            exitWithMessage("selfie: \(error)")
        } catch let error as PSQLError {
            exitWithMessage("selfie: cannot migrate the database: \(String(reflecting: error))")
        }
    }
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
            abstract: "Delete blobs that have no photo row (older than an hour) and report rows whose blob is missing."
        )

        @Option(help: "Only blobs at least this many minutes old are deleted (uploads in flight are younger).")
        var minimumAgeMinutes = 60

        func run() async throws {
            let config = try loadConfiguration()
            let logger = makeLogger(config)
            let blobs = try makeBlobStore(config, logger: logger)
            let minimumAge = Duration.seconds(max(minimumAgeMinutes, 0) * 60)
            let report = try await PostgresClient.withClient(config.database, logger: logger) { client in
                try await BlobSweeper(photos: PhotoRepository(client: client, logger: logger), blobs: blobs, logger: logger)
                    .sweep(minimumAge: minimumAge)
            }
            print("Deleted \(report.orphansDeleted.count) orphan blob(s).")
            if report.rowsMissingBlobs.isEmpty {
                print("Every photo has its blob.")
            } else {
                print("\(report.rowsMissingBlobs.count) photo(s) whose blob is missing:")
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

func exitWithMessage(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    Foundation.exit(1)
}
