import Hummingbird
import Logging
import SelfieCore

/// `/metrics` for Prometheus on its own port, bound to 127.0.0.1 unless `METRICS_HOST` says otherwise
/// (a container's interface, for a Prometheus beside it): never on the public port.
enum MetricsServer {
    static func make(host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: AppMetrics.exposition()))
            )
        }
        return Application(router: router, configuration: .init(address: .hostname(host, port: port)), logger: logger)
    }
}
