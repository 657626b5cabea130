import Foundation
import Hummingbird
import Logging
import PostgresNIO
import SelfieCore

/// `/healthz`: 200 `{"status":"ok"}` when PostgreSQL answers within two seconds, 503 otherwise.
struct HealthController {
    let database: PostgresClient
    static let timeout: Duration = .seconds(2)

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/healthz", use: check)
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
