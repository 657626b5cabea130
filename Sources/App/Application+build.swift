import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// Where the files the server reads at run time live (relative to the working directory by default).
public struct ResourcePaths: Sendable {
    public var templates: String
    public var publicFiles: String
    public var migrations: String

    public init(root: String = ".") {
        self.templates = "\(root)/Templates"
        self.publicFiles = "\(root)/Public"
        self.migrations = "\(root)/migrations"
    }
}

/// What `serve` does about migrations that have not been applied yet.
public enum PendingMigrationPolicy: Sendable {
    /// Refuse to start (the default: schema changes are a deliberate step).
    case refuse
    /// Apply them before serving (`selfie serve --migrate`).
    case apply
}

/// Builds the whole server: the PostgreSQL pool, repositories, services, router and background jobs.
public func buildApplication(
    _ config: AppConfiguration,
    paths: ResourcePaths = ResourcePaths(),
    migrations policy: PendingMigrationPolicy = .refuse,
    logger: Logger
) async throws -> some ApplicationProtocol {
    let postgres = PostgresClient(configuration: config.database.clientConfiguration, backgroundLogger: logger)
    let users = PostgresUserRepository(client: postgres, logger: logger)
    let sessions = PostgresWebSessionRepository(client: postgres, logger: logger)
    let accounts = AccountService(
        users: users,
        sessions: sessions,
        hasher: PasswordHasher(cost: config.bcryptCost),
        sessionLifetime: config.sessionLifetime
    )
    let pages = try await PageRenderer(templatesDirectory: paths.templates)
    let router = buildRouter(
        config: config,
        paths: paths,
        accounts: accounts,
        pages: pages,
        health: HealthController(database: postgres),
        logger: logger
    )

    let migrator = Migrator(
        client: postgres,
        migrations: try Migrator.loadMigrations(from: paths.migrations),
        logger: logger
    )
    var app = Application(
        router: router,
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: nil),
        services: [
            postgres,
            ExpiredSessionSweeper(sessions: sessions, interval: .seconds(600), logger: logger),
        ],
        logger: logger
    )
    app.beforeServerStarts {
        switch policy {
        case .apply:
            let applied = try await migrator.migrate()
            logger.info("database schema up to date (\(applied.count) migration(s) applied now)")
        case .refuse:
            let pending = try await migrator.pending()
            guard pending.isEmpty else { throw MigrationError.pending(pending.map(\.label)) }
        }
    }
    return app
}

/// The routes and middleware. Dependencies come in as values so tests can build exactly this.
func buildRouter(
    config: AppConfiguration,
    paths: ResourcePaths,
    accounts: AccountService,
    pages: PageRenderer,
    health: HealthController,
    logger: Logger
) -> Router<AppRequestContext> {
    let cookies = BrowserCookies(secure: config.usesHTTPS, sessionLifetime: config.sessionLifetime)
    let errors = ErrorResponder(pages: pages)
    let router = Router(context: AppRequestContext.self)
    // Order matters: middleware must be added before the routes it wraps.
    router.add(middleware: ErrorMiddleware(errors: errors))
    router.add(
        middleware: FileMiddleware(
            paths.publicFiles,
            cacheControl: .init([(MediaType(type: .any), [.public, .maxAge(3600)])]),
            logger: logger
        )
    )
    router.add(
        middleware: WebSessionMiddleware(
            accounts: accounts,
            cookies: cookies,
            csrf: CSRFTokens(secretKey: config.secretKey),
            errors: errors
        )
    )
    router.add(middleware: CSRFMiddleware())

    health.addRoutes(to: router)
    let signedIn = router.group(context: SignedInContext.self)
    AuthPagesController(accounts: accounts, pages: pages, cookies: cookies).addRoutes(to: router)
    AccountPagesController(accounts: accounts, pages: pages).addRoutes(to: signedIn)
    HomeController(pages: pages).addRoutes(to: router, signedIn: signedIn)
    return router
}
