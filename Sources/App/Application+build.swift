import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import SelfieCore
import ServiceLifecycle

/// Where the files the server reads at run time live (relative to the working directory by default).
public struct ResourcePaths: Sendable {
    public var templates: String
    public var mailTemplates: String
    public var publicFiles: String
    /// `Locales/<language>/*.ftl`: every word the pages and the mail say.
    public var locales: String
    public var migrations: String
    public var openAPIDocument: String

    public init(root: String = ".") {
        self.templates = "\(root)/Templates"
        self.mailTemplates = "\(root)/Templates/mail"
        self.publicFiles = "\(root)/Public"
        self.locales = "\(root)/Locales"
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

/// The core's services and what the surfaces add to them: page and mail templates, static files.
struct AppServices: Sendable {
    let core: CoreServices
    let pages: PageRenderer
    let mail: MailTemplates
    let assets: StaticAssets
    let everyAnswer: EveryAnswer
    /// The manifest, the service worker and its offline page.
    let installable: InstallableApp

    init(_ config: AppConfiguration, paths: ResourcePaths, logger: Logger) async throws {
        core = try CoreServices(forWeb: config, serving: true, logger: logger)
        everyAnswer = EveryAnswer(config: config)
        assets = try StaticAssets(directory: paths.publicFiles, securityHeaders: everyAnswer.securityHeaders)
        let translations = try Translations(directory: paths.locales)
        pages = try await PageRenderer(templatesDirectory: paths.templates, translations: translations, assets: AssetURLs(assets))
        installable = try InstallableApp(assets: assets, pages: pages)
        mail = try MailTemplates(directory: paths.mailTemplates, translations: translations, publicURL: config.publicURL)
    }

    /// What runs beside the server: the core's background work and the mail sender.
    func backgroundServices(logger: Logger) throws -> [any Service] {
        let sender = try MailSender(
            outbox: core.outbox,
            configuration: core.config.mail,
            publicSite: core.config.isPublicSite,
            composer: mail,
            logger: logger
        )
        return core.backgroundServices(logger: logger) + [sender]
    }
}

/// Builds the whole server: the core's services, the router with its surfaces, and the
/// background work.
public func buildApplication(
    _ config: AppConfiguration,
    paths: ResourcePaths = ResourcePaths(),
    migrations policy: PendingMigrationPolicy = .refuse,
    draining: Draining = Draining(),
    logger: Logger
) async throws -> some ApplicationProtocol {
    // The schema first, on a client of its own, before any service runs: were the refusal thrown
    // while the background services start, they would be cancelled mid-query, and a query on a
    // client that has stopped waits for ever (the process would hang instead of exiting).
    let migrations = try Migrator.loadMigrations(from: paths.migrations)
    try await PostgresClient.withClient(config.database, logger: logger) { client in
        let migrator = Migrator(client: client, migrations: migrations, logger: logger)
        if case .apply = policy {
            let applied = try await migrator.migrate()
            logger.info("database schema up to date (\(applied.count) migration(s) applied now)")
        }
        // One look serves both: what is still pending (refused here), and what is newer.
        let status = try await migrator.status()
        guard status.pending.isEmpty else { throw MigrationError.pending(status.pending.map(\.label)) }
        let newer = status.newerAdditive
        if !newer.isEmpty {
            logger.warning(
                "the database has additive migrations this build does not know (\(newer.map(String.init).joined(separator: ", "))): a newer Selfie migrated it; this one runs on it, upgrade it soon"
            )
        }
    }
    let services = try await AppServices(config, paths: paths, logger: logger)
    let migrator = Migrator(client: services.core.postgres, migrations: migrations, logger: logger)
    let router = try buildRouter(config: config, paths: paths, services: services, health: (migrator, draining), logger: logger)
    var app = Application(
        router: router,
        // Idle (and slow) connections are closed after a minute; the rest of a refused upload may
        // keep arriving for a few seconds at most.
        server: .http1OnEventLoops(
            idleTimeout: .seconds(60),
            stalledReaderTimeout: TimeAmount(config.stalledReaderTimeout),
            staticAssets: .init(services.assets, everyAnswer: services.everyAnswer, logger: logger)
        ),
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: nil),
        services: try services.backgroundServices(logger: logger),
        logger: logger
    )
    if let port = config.metricsPort {
        app.addServices(MetricsServer.make(host: config.metricsHost, port: port, logger: logger))
    }
    return app
}

/// The router: what every request gets (request log, metrics, security headers, the last-resort
/// error page), then each surface as its own group with its own context, middleware and error
/// path. Nothing below decides by looking at a path prefix: a route belongs to its group.
func buildRouter(
    config: AppConfiguration,
    paths: ResourcePaths,
    services: AppServices,
    health: (migrator: Migrator, draining: Draining),
    logger: Logger
) throws -> Router<AppRequestContext> {
    let core = services.core
    let pages = services.pages
    // HEAD is answered wherever GET is (RFC 9110 §9.3.2: same status and headers, no body):
    // uptime monitors, load balancers' health checks and `curl -I` ask with it.
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: ClientAddressMiddleware(trusted: config.trustedProxies, header: config.clientIPHeader))
    router.add(middleware: ExpectContinueMiddleware())
    router.add(middleware: RequestLogMiddleware(line: services.everyAnswer.log))
    router.add(middleware: RequestMetricsMiddleware(metrics: services.everyAnswer.metrics))
    router.add(middleware: SecurityHeadersMiddleware(headers: services.everyAnswer.securityHeaders))
    router.add(middleware: BodyArrivalDeadlineMiddleware(small: config.smallBodyDeadline, upload: config.uploads.deadline + .seconds(60)))
    // Requests no route takes (an unknown path, a method a page does not accept), and errors of
    // the surfaces without pages of their own (media).
    router.add(middleware: WebErrorMiddleware<AppRequestContext>(pages: pages))

    // Health, static files and signed media: no session, no key.
    HealthController(probe: core.probe, migrator: health.migrator, draining: health.draining).addRoutes(to: router)
    services.assets.addRoutes(to: router)
    // The installed app's manifest, service worker and offline page: the same for everyone.
    services.installable.addRoutes(to: router)
    MediaController(blobs: core.photos.blobs, signer: MediaURLSigner(secretKey: config.secretKey, publicURL: config.publicURL))
        .addRoutes(to: router)

    // The JSON API: app key or token, JSON errors.
    let api = router.group(context: APIRequestContext.self).add(middleware: APIErrorMiddleware(translations: pages.translations))
    try APIController(services: core, paths: paths, translations: pages.translations).addRoutes(to: api)

    // The browser: session cookie, HTML error pages, and CSRF tokens on every form.
    let cookies = BrowserCookies(secure: config.usesHTTPS, sessionLifetime: config.sessionLifetime)
    let csrf = CSRFTokens(secretKey: config.secretKey)
    let web = router.group(context: WebRequestContext.self)
        .add(middleware: WebSessionMiddleware(accounts: core.accounts, users: core.users, cookies: cookies, csrf: csrf))
        .add(middleware: WebErrorMiddleware<WebRequestContext>(pages: pages))
    let forms = web.group().add(middleware: CSRFMiddleware(tokens: csrf))
    let signedIn = forms.group(context: SignedInContext.self)
    // Sensitive changes that ask for no password of their own: only with a recent proof.
    let sensitive = signedIn.group().add(middleware: RecentConfirmationMiddleware<SignedInContext>())
    // Every way in ends in the same cookies; no controller holds another.
    let webSignIn = WebSignIn(signIn: core.signIn, cookies: cookies)
    let accountPage = AccountPageRenderer(
        accounts: core.accounts,
        social: core.social,
        secondFactor: core.secondFactor,
        passkeys: core.passkeys,
        photos: core.photos,
        pages: pages
    )
    PreferencesPagesController(users: core.users, cookies: cookies).addRoutes(to: forms)
    AuthPagesController(
        accounts: core.accounts,
        webSignIn: webSignIn,
        pages: pages,
        cookies: cookies,
        protection: core.protection,
        providers: core.social.providers.oidcConfigurations.map(ProviderButton.init)
    ).addRoutes(to: forms)
    SocialPagesController(social: core.social, webSignIn: webSignIn, cookies: cookies, protection: core.protection)
        .addRoutes(forms: forms, providerReturns: web, signedIn: signedIn, sensitive: sensitive)
    AccountPagesController(
        accounts: core.accounts,
        emails: core.emails,
        deletion: core.deletion,
        export: core.export,
        accountPage: accountPage,
        cookies: cookies,
        protection: core.protection
    ).addRoutes(to: signedIn, sensitive: sensitive)
    StepUpPagesController(
        stepUp: core.stepUp,
        accounts: core.accounts,
        social: core.social,
        pages: pages,
        protection: core.protection
    ).addRoutes(to: signedIn)
    SecondFactorPagesController(
        secondFactor: core.secondFactor,
        webSignIn: webSignIn,
        accountPage: accountPage,
        pages: pages,
        cookies: cookies,
        protection: core.protection
    ).addRoutes(forms: forms, signedIn: signedIn, sensitive: sensitive)
    PasskeyPagesController(passkeys: core.passkeys, webSignIn: webSignIn, protection: core.protection)
        .addRoutes(forms: forms, signedIn: signedIn, sensitive: sensitive)
    MailLinkPagesController(emails: core.emails, signIn: core.signIn, pages: pages, cookies: cookies, protection: core.protection)
        .addRoutes(forms: forms, signedIn: signedIn)
    PhotoPagesController(photos: core.photos, albums: core.albums, pages: pages, protection: core.protection).addRoutes(to: signedIn)
    AlbumPagesController(albums: core.albums, photos: core.photos, sharing: core.sharing, pages: pages).addRoutes(to: signedIn)
    TrashPagesController(photos: core.photos, pages: pages).addRoutes(to: signedIn)
    ShareLinkPagesController(sharing: core.sharing, pages: pages, protection: core.protection).addRoutes(to: signedIn)
    SharedPagesController(sharing: core.sharing, pages: pages, cookies: cookies, csrf: csrf, publicURL: config.publicURL.absoluteString)
        .addRoutes(to: web)
    AdminPagesController(
        service: core.admin,
        accounts: core.accounts,
        social: core.social,
        photos: core.photos,
        albums: core.albums,
        sharing: core.sharing,
        pages: pages,
        mailIsNotSent: config.mail.isNotSending(publicSite: config.isPublicSite)
    )
        .addRoutes(to: forms)
    AdminIntegrityController(integrity: core.integrity, pages: pages).addRoutes(to: forms)
    HomeController().addRoutes(to: forms)
    return router
}

/// Builds the server and runs it until SIGTERM or SIGINT, then shuts down in order: `/readyz`
/// turns 503 for `DRAIN_SECONDS`, the listener closes, in-flight requests finish, background
/// work stops. Whatever has not finished `SHUTDOWN_TIMEOUT_SECONDS` after the drain is cancelled,
/// and whatever ignores that for `cancellationLimit` ends the process: it always exits.
public func serve(_ config: AppConfiguration, migrations policy: PendingMigrationPolicy, logger: Logger) async throws {
    let draining = Draining()
    let app = try await buildApplication(config, migrations: policy, draining: draining, logger: logger)
    var configuration = ServiceGroupConfiguration(
        services: [app, DrainService(draining: draining, grace: config.drainGrace, logger: logger)],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
    configuration.maximumGracefulShutdownDuration = config.drainGrace + config.shutdownTimeout
    configuration.maximumCancellationDuration = cancellationLimit
    try await ServiceGroup(configuration: configuration).run()
}

/// How long cancelled work may take to stop before the process ends regardless.
let cancellationLimit: Duration = .seconds(10)
