import Foundation
import Hummingbird
import Logging
import SelfieCore

/// Health for orchestrators and load balancers:
/// - `/livez`: the process answers (200 always; restart it when this fails);
/// - `/readyz`: send it traffic — PostgreSQL answers within two seconds, the schema has no pending
///   migration and none this build does not know unless additive (a newer instance migrated in a
///   rolling upgrade), and the instance is not draining (after SIGTERM); 503 with the reason otherwise;
/// - `/healthz`: PostgreSQL answers (kept for existing monitors).
struct HealthController {
    let probe: DatabaseProbe
    let migrator: Migrator
    let draining: Draining
    static let timeout: Duration = .seconds(2)

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/healthz", use: check)
        router.get("/livez") { _, _ in Self.answer(.ok, .ok) }
        router.get("/readyz", use: ready)
    }

    func ready(_ request: Request, context: AppRequestContext) async throws -> Response {
        if draining.isDraining { return Self.answer(.serviceUnavailable, .draining) }
        let (migrator, logger) = (self.migrator, context.logger)
        do {
            let pending = try await withDeadline(Self.timeout) { try await migrator.pending() }
            if !pending.isEmpty { return Self.answer(.serviceUnavailable, .schemaNotCurrent) }
        } catch is MigrationError {
            // Applied migrations this binary does not know, not additive: the code cannot run on them.
            return Self.answer(.serviceUnavailable, .schemaNotCurrent)
        } catch {
            logger.warning("readiness check failed: \(String(reflecting: error))")
            return Self.answer(.serviceUnavailable, .databaseUnavailable)
        }
        return Self.answer(.ok, .ok)
    }

    func check(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (probe, logger) = (self.probe, context.logger)
        do {
            try await probe.check(within: Self.timeout, logger: logger)
            return Self.answer(.ok, .ok)
        } catch {
            logger.warning("health check failed: \(String(reflecting: error))")
            return Self.answer(.serviceUnavailable, .unavailable)
        }
    }

    /// What a health route answers: `{"status":"…"}`, never cached.
    enum Answer: String, CaseIterable {
        case ok
        case draining
        case schemaNotCurrent = "schema not current"
        case databaseUnavailable = "database unavailable"
        case unavailable
    }

    /// The bodies are encoded once: monitors and load balancers ask often, and an encoder per
    /// answer showed in the profile of `/healthz`.
    static func answer(_ status: HTTPResponse.Status, _ answer: Answer) -> Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: bodies[answer]!))
    }

    private static let headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
    private static let bodies: [Answer: ByteBuffer] = Dictionary(
        uniqueKeysWithValues: Answer.allCases.map { ($0, ByteBuffer(string: #"{"status":"\#($0.rawValue)"}"#)) }
    )
}
