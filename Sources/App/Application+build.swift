import AsyncHTTPClient
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
    public var openAPIDocument: String

    public init(root: String = ".") {
        self.templates = "\(root)/Templates"
        self.publicFiles = "\(root)/Public"
        self.migrations = "\(root)/migrations"
        self.openAPIDocument = "\(root)/openapi.yaml"
    }
}

/// What `serve` does about migrations that have not been applied yet.
public enum PendingMigrationPolicy: Sendable {
    /// Refuse to start (the default: schema changes are a deliberate step).
    case refuse
    /// Apply them before serving (`selfie serve --migrate`).
    case apply
}

/// The parts the server is made of, built from the configuration.
struct AppServices {
    let postgres: PostgresClient
    let sessions: any WebSessionRepository
    let tokens: any APITokenRepository
    let accounts: AccountService
    let social: SocialSignInService
    let signInFlows: any SignInFlowRepository
    let appKeys: AppKeyDirectory
    let audit: any AuditLog
    let admin: AdminService
    let protection: BruteForceProtection
    let photos: PhotoService
    let sweeper: BlobSweeper
    let pages: PageRenderer
    let health: HealthController
    let http: HTTPClientService

    init(_ config: AppConfiguration, paths: ResourcePaths, logger: Logger) async throws {
        AppMetrics.bootstrap()  // before any metric exists, or it would go to the no-op backend
        postgres = PostgresClient(configuration: config.database.clientConfiguration, backgroundLogger: logger.countingPoolEvents())
        http = HTTPClientService()
        sessions = PostgresWebSessionRepository(client: postgres, logger: logger)
        tokens = PostgresAPITokenRepository(client: postgres, logger: logger)
        audit = PostgresAuditLog(client: postgres, logger: logger)
        protection = BruteForceProtection(configuration: config.protection, client: postgres, logger: logger)
        let users = PostgresUserRepository(client: postgres, logger: logger)
        accounts = AccountService(
            users: users,
            sessions: sessions,
            tokens: tokens,
            hasher: PasswordHasher(cost: config.bcryptCost),
            audit: audit,
            protection: protection,
            sessionLifetime: config.sessionLifetime,
            tokenLifetime: config.tokenLifetime
        )
        signInFlows = PostgresSignInFlowRepository(client: postgres, logger: logger)
        social = SocialSignInService(
            providers: SocialProviders(config.social, http: http.client, logger: logger),
            identities: PostgresIdentityRepository(client: postgres, logger: logger),
            flows: signInFlows,
            users: users,
            audit: audit,
            publicURL: config.publicURL,
            logger: logger
        )
        appKeys = AppKeyDirectory(
            environmentKey: AppKey(name: config.apiAuthName, password: config.apiAuthPassword),
            keys: PostgresAppKeyRepository(client: postgres, logger: logger)
        )
        let blobs = try makeBlobStore(config, http: http.client, logger: logger)
        let photoRows = PostgresPhotoRepository(client: postgres, logger: logger)
        photos = PhotoService(
            photos: photoRows,
            blobs: blobs,
            maxUploadBytes: config.maxUploadBytes,
            urlLifetime: config.signedURLLifetime,
            audit: audit,
            logger: logger
        )
        sweeper = BlobSweeper(photos: photoRows, blobs: blobs, logger: logger)
        admin = AdminService(
            admin: PostgresAdminRepository(client: postgres, logger: logger),
            accounts: accounts,
            appKeys: appKeys,
            blobs: blobs,
            audit: audit,
            logger: logger
        )
        pages = try await PageRenderer(templatesDirectory: paths.templates)
        health = HealthController(database: postgres)
    }
}

/// Builds the whole server: the PostgreSQL pool, repositories, services, router and background jobs.
public func buildApplication(
    _ config: AppConfiguration,
    paths: ResourcePaths = ResourcePaths(),
    migrations policy: PendingMigrationPolicy = .refuse,
    logger: Logger
) async throws -> some ApplicationProtocol {
    let services = try await AppServices(config, paths: paths, logger: logger)
    let router = try buildRouter(config: config, paths: paths, services: services, logger: logger)
    let migrator = Migrator(
        client: services.postgres,
        migrations: try Migrator.loadMigrations(from: paths.migrations),
        logger: logger
    )
    let (sessions, tokens, sweeper, protection) = (services.sessions, services.tokens, services.sweeper, services.protection)
    let signInFlows = services.signInFlows
    var app = Application(
        router: router,
        // Idle (and slow) connections are closed after a minute.
        server: .http1(configuration: .init(idleTimeout: .seconds(60))),
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: nil),
        services: [
            services.postgres,
            services.http,
            PeriodicTask(name: "expired session and token cleanup", interval: .seconds(600), logger: logger) {
                try await protection.deleteExpired()
                try await signInFlows.deleteExpired()
                let count = try await sessions.deleteExpired() + tokens.deleteExpired()
                if count > 0 { logger.info("deleted \(count) expired session(s) and token(s)") }
            },
            PeriodicTask(name: "blob sweep", interval: .seconds(3600), logger: logger) {
                _ = try await sweeper.sweep()
            },
        ],
        logger: logger
    )
    if let port = config.metricsPort {
        app.addServices(AppMetrics.server(port: port, logger: logger))
    }
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

/// The configured blob store: the filesystem (default) or S3-compatible.
public func makeBlobStore(_ config: AppConfiguration, http: HTTPClient = .shared, logger: Logger) throws -> any BlobStore {
    switch config.blobStore {
    case .filesystem(let directory):
        return try FileBlobStore(root: directory, signer: MediaURLSigner(secretKey: config.secretKey, publicURL: config.publicURL))
    case .s3(let s3):
        return S3BlobStore(configuration: s3, http: http, logger: logger)
    }
}

/// The routes and middleware. Dependencies come in as values so tests can build exactly this.
func buildRouter(
    config: AppConfiguration,
    paths: ResourcePaths,
    services: AppServices,
    logger: Logger
) throws -> Router<AppRequestContext> {
    let (accounts, photos, pages) = (services.accounts, services.photos, services.pages)
    let cookies = BrowserCookies(secure: config.usesHTTPS, sessionLifetime: config.sessionLifetime)
    let errors = ErrorResponder(pages: pages)
    let router = Router(context: AppRequestContext.self)
    // Order matters: middleware must be added before the routes it wraps.
    router.add(middleware: SecurityHeadersMiddleware(config: config))
    router.add(middleware: LogRequestsMiddleware(.info))
    router.add(middleware: MetricsMiddleware())
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

    services.health.addRoutes(to: router)
    let signedIn = router.group(context: SignedInContext.self)
    let auth = AuthPagesController(
        accounts: accounts,
        pages: pages,
        cookies: cookies,
        protection: services.protection,
        providers: services.social.providers.oidcConfigurations.map(ProviderButton.init)
    )
    auth.addRoutes(to: router)
    SocialPagesController(social: services.social, auth: auth, cookies: cookies, protection: services.protection).addRoutes(to: router, signedIn: signedIn)
    AccountPagesController(accounts: accounts, social: services.social, pages: pages).addRoutes(to: signedIn)
    PhotoPagesController(photos: photos, pages: pages, protection: services.protection).addRoutes(to: signedIn)
    MediaController(blobs: photos.blobs, signer: MediaURLSigner(secretKey: config.secretKey, publicURL: config.publicURL))
        .addRoutes(to: router)
    HomeController().addRoutes(to: router)
    try APIController(services: services, paths: paths).addRoutes(to: router)
    AdminPagesController(service: services.admin, accounts: accounts, social: services.social, photos: photos, pages: pages).addRoutes(to: router)
    return router
}
