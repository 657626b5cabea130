import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import SMTP
import PostgresNIO
import ServiceLifecycle

/// Every part of Selfie that does not speak HTTP, built from the configuration: the PostgreSQL
/// pool, repositories and services. The web pages, the API and the command line sit on top.
public struct CoreServices: Sendable {
    public let config: AppConfiguration
    public let postgres: PostgresClient
    public let http: HTTPClientService
    public let users: UserRepository
    public let sessions: WebSessionRepository
    public let tokens: APITokenRepository
    public let accounts: AccountService
    public let social: SocialSignInService
    public let signInFlows: SignInFlowRepository
    public let appKeys: AppKeyService
    public let audit: AuditRepository
    public let admin: AdminService
    public let protection: BruteForceProtection
    public let photos: PhotoService
    public let sweeper: BlobSweeper
    public let blobDeletions: BlobDeletions
    public let backfill: RenditionBackfill
    public let integrity: IntegrityChecker
    public let resumable: ResumableUploadService
    public let integrityChecks: IntegrityRepository
    public let outbox: MailOutboxRepository
    public let emails: AccountEmails
    public let deletion: AccountDeletion
    public let export: DataExport
    public let secondFactor: SecondFactorService
    public let passkeys: PasskeyService
    public let stepUp: StepUp
    /// Every way in (password, provider, passkey, the register/login API, a reset).
    public let signIn: SignInService
    public let albums: AlbumService
    public let sharing: ShareLinkService
    /// Sessions and tokens looked up recently (`ACCESS_CACHE_SECONDS`), kept in step by `AccessChangeListener`.
    public let access: AccessCache
    /// `SELECT 1` for the health route.
    public let probe: DatabaseProbe
    /// The hot statements' connections on each event loop, for a server (nil for a command, or
    /// when the pool size leaves a loop without one).
    let loopConnections: LoopConnections?

    /// - Parameter providerCallbackPath: the path of the browser's return from a provider (the
    ///   web's route; `PUBLIC_URL` is put in front).
    /// - Parameter serving: whether this process serves requests on the shared event loops (the
    ///   server), which then get half the connections (`LoopConnections`); a command keeps them all
    ///   in the pool.
    public init(
        _ config: AppConfiguration,
        providerCallbackPath: @escaping @Sendable (_ provider: String) -> String,
        serving: Bool = false,
        logger: Logger
    ) throws {
        AppMetrics.bootstrap()  // before any metric exists, or it would go to the no-op backend
        self.config = config
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let onLoops = serving ? config.database.loopConnectionCount(loops: loops.count) : 0
        postgres = PostgresClient(configuration: config.database.poolConfiguration(leaving: onLoops), backgroundLogger: logger.countingPoolEvents())
        let loopConnections = onLoops > 0 ? try LoopConnections(database: config.database, loops: loops, count: onLoops, logger: logger) : nil
        self.loopConnections = loopConnections
        http = HTTPClientService()
        let prepared = config.database.preparedStatements
        access = AccessCache(lifetime: config.accessCacheLifetime)
        probe = DatabaseProbe(client: postgres, preparedStatements: prepared, loopConnections: loopConnections)
        sessions = WebSessionRepository(client: postgres, preparedStatements: prepared, loopConnections: loopConnections, access: access, logger: logger)
        tokens = APITokenRepository(client: postgres, preparedStatements: prepared, loopConnections: loopConnections, access: access, logger: logger)
        audit = AuditRepository(client: postgres, logger: logger)
        protection = BruteForceProtection(configuration: config.protection, counters: ProtectionCounterRepository(client: postgres, logger: logger))
        users = UserRepository(client: postgres, access: access, logger: logger)
        outbox = MailOutboxRepository(client: postgres, messageIDDomain: String(config.mail.from.domain), logger: logger)
        let hasher = PasswordHasher(cost: config.bcryptCost)
        emails = AccountEmails(
            tokens: EmailTokenRepository(client: postgres, scopedLogger: ScopedLogger(logger)),
            users: users,
            outbox: outbox,
            hasher: hasher,
            protection: protection,
            audit: audit,
            requireVerifiedEmail: config.mail.requireVerifiedEmail,
            logger: logger
        )
        accounts = AccountService(
            users: users,
            sessions: sessions,
            tokens: tokens,
            hasher: hasher,
            audit: audit,
            protection: protection,
            sessionLifetime: config.sessionLifetime,
            tokenLifetime: config.tokenLifetime,
            emails: emails,
            access: access
        )
        signInFlows = SignInFlowRepository(client: postgres, logger: logger)
        let identities = IdentityRepository(client: postgres, logger: logger)
        social = SocialSignInService(
            providers: SocialProviders(config.social, http: http.client, logger: logger),
            identities: identities,
            flows: signInFlows,
            users: users,
            audit: audit,
            callbackURL: { [publicURL = config.publicURL.absoluteString] provider in publicURL + providerCallbackPath(provider) },
            emails: emails,
            scopedLogger: ScopedLogger(logger)
        )
        appKeys = AppKeyService(
            environmentKey: AppKey(name: config.apiAuthName, password: config.apiAuthPassword),
            keys: AppKeyRepository(client: postgres, logger: logger)
        )
        let blobs = try makeBlobStore(config, http: http.client, logger: logger)
        let photoRows = PhotoRepository(client: postgres, preparedStatements: prepared, loopConnections: loopConnections, logger: logger)
        let renditions = RenditionMaker(blobs: blobs, maxPixels: config.uploads.maxPixels, workers: config.imageWorkers, logger: logger)
        blobDeletions = BlobDeletions(queue: BlobDeletionRepository(client: postgres, logger: logger), blobs: blobs, logger: logger)
        photos = PhotoService(
            photos: photoRows,
            blobs: blobs,
            limits: config.uploads,
            urlLifetime: config.signedURLLifetime,
            trashDays: config.trashDays,
            audit: audit,
            renditions: renditions,
            blobDeletions: blobDeletions,
            logger: logger
        )
        let albumRows = AlbumRepository(client: postgres, preparedStatements: prepared, loopConnections: loopConnections, logger: logger)
        albums = AlbumService(albums: albumRows, photos: photoRows, audit: audit)
        sharing = ShareLinkService(
            links: ShareLinkRepository(client: postgres, preparedStatements: prepared, loopConnections: loopConnections, logger: logger),
            photos: photoRows,
            blobs: blobs,
            hasher: hasher,
            audit: audit,
            protection: protection,
            publicURL: config.publicURL,
            secretKey: config.secretKey,
            logger: logger
        )
        let resumableRows = ResumableUploadRepository(client: postgres, logger: logger)
        sweeper = BlobSweeper(photos: photoRows, resumable: resumableRows, blobs: blobs, logger: logger)
        backfill = RenditionBackfill(
            photos: photoRows,
            renditions: renditions,
            blobDeletions: blobDeletions,
            lock: AdvisoryLock(database: config.listenDatabase ?? config.database, key: RenditionBackfill.lockKey, logger: logger),
            logger: logger
        )
        resumable = ResumableUploadService(
            uploads: resumableRows,
            parts: try makePartStorage(blobs),
            photos: photos,
            albums: albums,
            logger: logger
        )
        integrityChecks = IntegrityRepository(client: postgres, logger: logger)
        integrity = IntegrityChecker(repository: integrityChecks, photos: photoRows, blobs: blobs, backfill: backfill, logger: logger)
        let adminRows = AdminRepository(client: postgres, access: access, logger: logger)
        deletion = AccountDeletion(users: users, admin: adminRows, blobDeletions: blobDeletions, emails: emails, logger: logger)
        export = DataExport(
            photos: photoRows,
            albums: albumRows,
            blobs: blobs,
            identities: identities,
            audit: audit,
            protection: protection,
            logger: logger
        )
        secondFactor = SecondFactorService(
            store: SecondFactorRepository(client: postgres, scopedLogger: ScopedLogger(logger)),
            box: TOTPSecretBox(secretKey: config.secretKey),
            users: users,
            protection: protection,
            audit: audit,
            emails: emails,
            issuer: "Selfie"
        )
        passkeys = PasskeyService(
            store: PasskeyRepository(client: postgres, scopedLogger: ScopedLogger(logger)),
            users: users,
            audit: audit,
            emails: emails,
            publicURL: config.publicURL,
            relyingPartyName: "Selfie"
        )
        stepUp = StepUp(users: users, sessions: sessions, passwordCheck: accounts.passwordCheck, secondFactor: secondFactor)
        signIn = SignInService(accounts: accounts, secondFactor: secondFactor, passkeys: passkeys, social: social, emails: emails)
        admin = AdminService(
            admin: adminRows,
            accounts: accounts,
            emails: emails,
            outbox: outbox,
            appKeys: appKeys,
            blobDeletions: blobDeletions,
            audit: audit,
            secondFactor: secondFactor,
            sharing: sharing,
            logger: logger
        )
    }

    /// What runs beside the server: the connection pool, the HTTP client, the periodic clean-ups
    /// (expired sessions, tokens, counters, sign-in flows, mail links, delivered mail; orphan blobs; the trash), a light
    /// integrity check and renditions for photos
    /// stored before renditions existed.
    public func backgroundServices(logger: Logger) -> [any Service] {
        let (sessions, tokens, sweeper, protection, signInFlows, backfill, emails, outbox, secondFactor, photos, integrity, resumable) = (
            sessions, tokens, sweeper, protection, signInFlows, backfill, emails, outbox, secondFactor, photos, integrity, resumable
        )
        // After the pool: services stop in reverse order, so the views' last write still has it.
        var services: [any Service] = [postgres] + [loopConnections].compactMap { $0 } + [http, sharing.views]
        if access.isEnabled {
            let announcements = AccessAnnouncementRepository(client: postgres, logger: logger)
            services.append(AccessChangeListener(database: config.listenDatabase ?? config.database, cache: access, announcements: announcements, logger: logger))
        }
        return services + [
            PeriodicTask(name: "expired session and token cleanup", interval: .seconds(600), logger: logger, sharedThrough: postgres) {
                try await protection.deleteExpired()
                try await signInFlows.deleteExpired()
                try await emails.deleteExpiredTokens()
                try await outbox.deleteDelivered(olderThanDays: 30)
                try await secondFactor.deleteExpired()
                let count = try await sessions.deleteExpired() + tokens.deleteExpired()
                if count > 0 { logger.info("deleted \(count) expired session(s) and token(s)") }
            },
            // Blobs whose rows went while the store refused them (or a shutdown came first).
            PeriodicTask(name: "blob deletions", interval: .seconds(600), logger: logger, sharedThrough: postgres) {
                // Batch after batch while keys go (an account of 50,000 photos queues 200,000), for
                // five minutes at most; a batch that deletes nothing (the store refuses, or only
                // refused keys are left) ends the round.
                let started = ContinuousClock.now
                var deleted = 0
                while ContinuousClock.now - started < .seconds(300), !Task.isCancelled {
                    let batch = try await blobDeletions.retry(queuedBefore: .now.addingTimeInterval(-300), limit: 1000)
                    deleted += batch
                    guard batch > 0 else { break }
                }
                if deleted > 0 { logger.info("deleted \(deleted) blob(s) of photos deleted earlier") }
            },
            PeriodicTask(name: "blob sweep", interval: .seconds(3600), logger: logger, sharedThrough: postgres) {
                _ = try await sweeper.sweep()
            },
            PeriodicTask(name: "trash purge", interval: .seconds(3600), logger: logger, sharedThrough: postgres) {
                let purged = try await photos.purgeExpiredTrash()
                if purged > 0 { logger.info("deleted \(purged) photo(s) whose time in the trash was up") }
            },
            // Light: the rows against the store's listing, and 20 random checksums (`selfie check`
            // reads every blob). Its result is on the admin's integrity page.
            PeriodicTask(name: "integrity check", interval: .seconds(6 * 3600), logger: logger, sharedThrough: postgres) {
                let report = try await integrity.run(.light(sample: 20))
                if !report.findings.isEmpty {
                    logger.warning("the integrity check found \(report.findingCount) problem(s); see /admin/integrity or run `selfie check`")
                }
            },
            PeriodicTask(name: "expired resumable uploads", interval: .seconds(900), logger: logger, sharedThrough: postgres) {
                let purged = try await resumable.purgeExpired()
                if purged > 0 { logger.info("removed \(purged) expired resumable upload(s): incomplete ones with their parts, finished ones' records") }
            },
            PeriodicTask(name: "rendition backfill", interval: .seconds(300), logger: logger) {
                let report = try await backfill.run(missingOnly: true, retryingRecentFailures: false)
                if report.processed + report.failed.count > 0 {
                    logger.info("made renditions for \(report.processed) photo(s); \(report.failed.count) could not be processed")
                }
            },
        ]
    }

    /// Runs `body` while the pool and HTTP client run (for command-line tools), then stops them.
    public func whileRunning<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await postgres.run() }
            defer { group.cancelAll() }
            do {
                let result = try await body()
                try await http.client.shutdown()
                return result
            } catch {
                try? await http.client.shutdown()
                throw error
            }
        }
    }
}

/// Where the configured store keeps resumable uploads' bytes until they are complete.
func makePartStorage(_ blobs: any BlobStore) throws -> any PartStorage {
    switch blobs {
    case let files as FileBlobStore: return FilePartStorage(store: files)
    case let s3 as S3BlobStore: return S3PartStorage(store: s3)
    default: throw ConfigurationError(problems: ["this blob store keeps no resumable uploads"])
    }
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
