import Foundation
import Hummingbird
import Logging
import Metrics
import NIOConcurrencyHelpers
import Prometheus

/// Prometheus metrics: request counts and latency by route (Hummingbird's MetricsMiddleware),
/// plus Selfie's own counters. Served on `METRICS_PORT` (bound to 127.0.0.1 only), never on the
/// public port.
public enum AppMetrics {
    static let registry = PrometheusCollectorRegistry()
    private static let bootstrapped = NIOLockedValueBox(false)

    /// Installs the Prometheus backend for swift-metrics, once per process.
    static func bootstrap() {
        bootstrapped.withLockedValue { done in
            guard !done else { return }
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            done = true
        }
    }

    static func uploadStored() { Counter(label: "selfie_photo_uploads_total", dimensions: [("result", "stored")]).increment() }
    static func uploadRefused(status: Int) {
        Counter(label: "selfie_photo_uploads_total", dimensions: [("result", "refused_\(status)")]).increment()
    }
    static func signInFailed() { Counter(label: "selfie_sign_in_failures_total").increment() }
    static func databaseUnavailable() { Counter(label: "selfie_database_unavailable_total").increment() }

    /// The text exposition of every metric.
    static func exposition() -> String { registry.emitToString() }

    /// A small server for `/metrics` on 127.0.0.1:`port`.
    static func server(port: Int, logger: Logger) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: exposition()))
            )
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
    }
}
