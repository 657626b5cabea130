import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Hears the database announce changes to sessions, tokens and users, and keeps `AccessCache`
/// in step: each announcement drops that user's entries.
///
/// It holds one connection of its own (outside the pool). The cache answers from memory only
/// after a probe — announced through the pool, like any change — has come back on that
/// connection, and only while probes keep coming back (one every `probeInterval`, each within
/// `probeTimeout`). A lost connection, a database restart, or a pooler that does not pass
/// notifications on (PgBouncer in transaction mode) turns the cache off until the next probe
/// returns; meanwhile every lookup asks PostgreSQL, as without a cache.
public struct AccessChangeListener: Service {
    let database: DatabaseURL
    let cache: AccessCache
    let announcements: AccessAnnouncementRepository
    let logger: Logger
    var probeInterval: Duration = .seconds(15)
    var probeTimeout: Duration = .seconds(3)
    var retryDelay: Duration = .seconds(1)

    public init(database: DatabaseURL, cache: AccessCache, announcements: AccessAnnouncementRepository, logger: Logger) {
        self.database = database
        self.cache = cache
        self.announcements = announcements
        self.logger = logger
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            var failures = 0
            while !Task.isCancelled {
                do {
                    try await listen()
                } catch where Task.isCancelled {
                    break
                } catch {
                    // The first failure is worth a warning; the same one every second is not.
                    failures += 1
                    let level: Logger.Level = failures == 1 ? .warning : .debug
                    logger.log(level: level, "not hearing access changes; sessions and tokens are looked up on every request", metadata: ["error": "\(String(reflecting: error))"])
                }
                cache.stopServing()
                try? await Task.sleep(for: retryDelay)
            }
            cache.stopServing()
        }
    }

    private func listen() async throws {
        try await announcements.listen(on: database) { payloads in
            try await withThrowingTaskGroup(of: Void.self) { group in
                let probes = ArrivedProbes()
                group.addTask {
                    for try await payload in payloads {
                        if payload.hasPrefix(AccessAnnouncementRepository.probePrefix) {
                            probes.arrived(String(payload.dropFirst(AccessAnnouncementRepository.probePrefix.count)))
                        } else if let userID = Int64(payload) {
                            cache.forget(userID: userID)
                        }
                    }
                    throw ListenerConnectionEnded()
                }
                group.addTask {
                    var serving = false
                    while true {
                        try await probe(waitingIn: probes)
                        if !serving {
                            cache.startServing()
                            serving = true
                            logger.info("hearing access changes; sessions and tokens are kept in memory")
                        }
                        try await Task.sleep(for: probeInterval)
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    /// Announces a probe and waits for it to come back on the listening connection.
    private func probe(waitingIn probes: ArrivedProbes) async throws {
        let nonce = UUID().uuidString
        probes.expect(nonce)
        defer { probes.forget(nonce) }
        try await announcements.announceProbe(nonce)
        let deadline = ContinuousClock.now + probeTimeout
        while !probes.take(nonce) {
            guard ContinuousClock.now < deadline else { throw ProbeNotHeard() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// The probes this instance is waiting for, and whether each has come back. Every instance hears
/// every other's probes (one each `probeInterval`) and its own that come back late: those are not
/// kept, or the set would grow for as long as the listening connection lasts.
final class ArrivedProbes: Sendable {
    /// Awaited nonces: true once heard.
    private let awaited = Mutex<[String: Bool]>([:])

    func expect(_ nonce: String) { awaited.withLock { $0[nonce] = false } }
    func arrived(_ nonce: String) { awaited.withLock { if $0[nonce] != nil { $0[nonce] = true } } }
    /// Whether `nonce` has been heard (it is no longer awaited then).
    func take(_ nonce: String) -> Bool { awaited.withLock { $0[nonce] == true ? $0.removeValue(forKey: nonce) != nil : false } }
    func forget(_ nonce: String) { _ = awaited.withLock { $0.removeValue(forKey: nonce) } }
    /// How many nonces are held.
    var held: Int { awaited.withLock { $0.count } }
}

struct ListenerConnectionEnded: Error, CustomStringConvertible {
    var description: String { "the listening connection ended" }
}

struct ProbeNotHeard: Error, CustomStringConvertible {
    var description: String { "a probe announced through the pool did not come back on the listening connection" }
}
