import App
import ArgumentParser
import Foundation
import Logging
import PostgresNIO

/// The `selfie` command: `serve` (default) and `migrate`.
@main
struct Selfie: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selfie",
        abstract: "Accounts and a private photo gallery.",
        subcommands: [Serve.self, Migrate.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the web pages and the API.")

    @Flag(help: "Apply pending database migrations before serving.")
    var migrate = false

    func run() async throws {
        let config = try loadConfiguration()
        let logger = makeLogger(config)
        let app = try await buildApplication(config, migrations: migrate ? .apply : .refuse, logger: logger)
        do {
            try await app.runService()
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

func loadConfiguration() throws -> AppConfiguration {
    do {
        return try AppConfiguration.load(from: DotEnvFile.environment())
    } catch {
        exitWithMessage(error.description)
    }
}

func makeLogger(_ config: AppConfiguration) -> Logger {
    var logger = Logger(label: "selfie")
    logger.logLevel = config.logLevel
    return logger
}

func exitWithMessage(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    Foundation.exit(1)
}
