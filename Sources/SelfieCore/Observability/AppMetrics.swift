import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import Prometheus

/// Selfie's own Prometheus metrics (uploads, sign-in failures, database outages) beside the
/// request counts and latencies the HTTP layer records; served by the HTTP layer on
/// `METRICS_PORT`, never on the public port.
public enum AppMetrics {
    static let registry = PrometheusCollectorRegistry()
    private static let bootstrapped = NIOLockedValueBox(false)

    /// Installs the Prometheus backend for swift-metrics, once per process.
    public static func bootstrap() {
        bootstrapped.withLockedValue { done in
            guard !done else { return }
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            done = true
        }
    }

    public static func uploadStored() { Counter(label: "selfie_photo_uploads_total", dimensions: [("result", "stored")]).increment() }
    public static func uploadRefused(status: Int) {
        Counter(label: "selfie_photo_uploads_total", dimensions: [("result", "refused_\(status)")]).increment()
    }
    public static func signInFailed() { Counter(label: "selfie_sign_in_failures_total").increment() }
    public static func databaseUnavailable() { Counter(label: "selfie_database_unavailable_total").increment() }

    /// The text exposition of every metric.
    public static func exposition() -> String { registry.emitToString() }
}
