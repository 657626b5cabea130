import Logging
import PostgresNIO
@testable import SelfieCore
import Testing

@Suite("Transactions")
struct TransactionTests {
    @Test("a transaction whose connection is cut mid-statement ends with an error at once, every time; it never waits for an answer that cannot come")
    func cutMidStatement() async throws {
        try await SilentProxy.with { try await cutMidStatement(through: $0) }
    }

    private func cutMidStatement(through proxy: SilentProxy) async throws {
        try await withFreshDatabase { url in
            proxy.forward(to: url.host, port: url.port)
            var through = url
            through.host = "127.0.0.1"
            through.port = proxy.port
            let logger = Logger(label: "tests.transactions") { _ in SwiftLogNoOpLogHandler() }
            try await PostgresClient.withClient(through, logger: logger) { client in
                try await client.query("CREATE TABLE kept (n int)", logger: logger)
                // A cut races the connection's teardown; twenty tries made the old ROLLBACK hang
                // several times on this machine.
                for attempt in 1...20 {
                    let started = ContinuousClock.now
                    let outcome = try await withDeadline(.seconds(10)) {
                        do {
                            try await client.transaction(logger: logger) { connection in
                                try await connection.query("INSERT INTO kept VALUES (\(attempt))", logger: logger)
                                // Dropped on the way, then the connection is closed under it.
                                proxy.goSilent()
                                let cut = Task {
                                    try await Task.sleep(for: .milliseconds(50))
                                    proxy.closeConnections()
                                }
                                defer { cut.cancel() }
                                try await connection.query("SELECT pg_sleep(0)", logger: logger)
                            }
                            return "committed"
                        } catch {
                            // Cut mid-body, or (when the pool handed out a connection the last cut closed)
                            // refused before BEGIN was sent, or no connection to lease yet: either way
                            // unavailable, and at once. (A hang is withDeadline's DeadlineExceeded,
                            // thrown outside this catch.)
                            return DatabaseAvailability.isUnavailable(error) ? "unavailable" : "\(error)"
                        }
                    }
                    proxy.speakAgain()
                    let took = ContinuousClock.now - started
                    #expect(outcome == "unavailable", "attempt \(attempt): \(outcome) after \(took)")
                    #expect(took < .seconds(5), "attempt \(attempt) took \(took)")
                }
            }
            // The server rolled each one back when its connection ended (asked directly: the
            // pool through the proxy still holds connections the last cut closed).
            let kept = try await withDatabase(url) { try await $0.query("SELECT count(*) FROM kept").collect().first?.decode(Int.self) }
            #expect(kept == 0)
        }
    }
}
