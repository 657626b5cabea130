import Foundation
import Hummingbird
import Logging
import PostgresNIO
import SelfieCore

/// Health for orchestrators and load balancers:
/// - `/livez`: the process answers (200 always; restart it when this fails);
/// - `/readyz`: send it traffic — PostgreSQL answers within two seconds, the schema has no pending
///   migration, and the instance is not draining (after SIGTERM); 503 with the reason otherwise;
/// - `/healthz`: PostgreSQL answers (kept for existing monitors).
struct HealthController {
    let database: PostgresClient
    let migrator: Migrator
    let draining: Draining
    static let timeout: Duration = .seconds(2)

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/healthz", use: check)
        router.get("/livez") { _, _ in
            EditedResponse(status: .ok, headers: [.cacheControl: "no-store"], response: Status(status: "ok"))
        }
        router.get("/readyz", use: ready)
    }

    func ready(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Status> {
        func answer(_ status: HTTPResponse.Status, _ text: String) -> EditedResponse<Status> {
            EditedResponse(status: status, headers: [.cacheControl: "no-store"], response: Status(status: text))
        }
        if draining.isDraining { return answer(.serviceUnavailable, "draining") }
        let (migrator, logger) = (self.migrator, context.logger)
        do {
            let pending = try await withDeadline(Self.timeout) { try await migrator.pending() }
            if !pending.isEmpty { return answer(.serviceUnavailable, "schema not current") }
        } catch is MigrationError {
            // Applied migrations this binary does not know: the schema is newer than the code.
            return answer(.serviceUnavailable, "schema not current")
        } catch {
            logger.warning("readiness check failed: \(String(reflecting: error))")
            return answer(.serviceUnavailable, "database unavailable")
        }
        return answer(.ok, "ok")
    }

    struct Status: ResponseEncodable {
        let status: String
    }

    func check(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Status> {
        let database = self.database
        let logger = context.logger
        do {
            _ = try await withDeadline(Self.timeout) {
                try await database.query("SELECT 1", logger: logger)
            }
            return EditedResponse(status: .ok, headers: [.cacheControl: "no-store"], response: Status(status: "ok"))
        } catch {
            logger.warning("health check failed: \(String(reflecting: error))")
            return EditedResponse(
                status: .serviceUnavailable,
                headers: [.cacheControl: "no-store"],
                response: Status(status: "unavailable")
            )
        }
    }
}
