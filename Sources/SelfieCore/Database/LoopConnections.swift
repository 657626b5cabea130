import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The hot statements' own connections: a few on each event loop of the server, each used only by
/// requests that run on its loop (`EventLoopTaskExecutor.current`), so that a statement is written,
/// answered and decoded on the request's own thread with no lease from the pool.
///
/// Why not the pool for these: PostgresNIO 1.33's `PostgresClient` starts an idle-timeout timer
/// every time a query gives a connection back — a task group of two tasks around a `Task.sleep`,
/// run by the pool's own task on Swift's shared threads — and cancels it at the next lease. At
/// fewer requests in flight than connections (a site's usual load) that doubled the server's CPU
/// per `/healthz` (BENCHMARKS.md). A connection here is opened the first time its loop has more
/// statements in flight than open connections, and kept; one that closes (PostgreSQL restarted, a
/// deadline cut it) is dropped and opened again when needed, after a pause that doubles while
/// opening fails. Whenever none can be had (none open yet, PostgreSQL unreachable, each busy with
/// `queueLimit` statements), the statement goes through the pool as before.
///
/// A deadline needs no task of its own here: a timer on the loop closes the connection, which
/// fails its statements at once (see `HotStatements`). PostgreSQL's backend of a connection cut
/// that way would go on with its statement (a lock it waits for) until it ends: each connection
/// asks its backend to look for its client every second while a statement runs
/// (`client_connection_check_interval`, PostgreSQL 14 and later), so the backend ends within a
/// second of the close (over TLS the close first waits up to 5 s for the server's goodbye). A
/// cut also pauses the loop's opening of connections, doubling like a failed open: a table
/// locked for a minute does not open a connection every few seconds.
public final class LoopConnections: Service, Sendable {
    /// At most this many statements wait on one connection before the next goes to the pool.
    static let queueLimit = 4
    static let firstPause: TimeAmount = .milliseconds(250)
    static let longestPause: TimeAmount = .seconds(30)
    /// The loops' connections on their shelves, all loops together (`selfie_db_loop_open_connections`;
    /// the pool's `selfie_db_pool_open_connections` also counts those still opening or closing).
    private let tally: OpenCount
    private let toldSetUnsupported = Atomic(false)

    private let shelves: [ObjectIdentifier: Shelf]
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger

    /// - Parameter count: connections in all, spread over `loops` (the first loops get one more).
    public init(database: DatabaseURL, loops: [any EventLoop], count: Int, logger: Logger) throws {
        var configuration = try database.connectionConfiguration()
        configuration.options.additionalStartupParameters = [("application_name", DatabaseURL.loopApplicationName)]
        self.configuration = configuration
        self.logger = logger
        let tally = OpenCount()
        self.tally = tally
        let idleLimit = database.keepAlive.map { TimeAmount($0) }
        var shelves: [ObjectIdentifier: Shelf] = [:]
        for (index, loop) in loops.enumerated() {
            let capacity = count / loops.count + (index < count % loops.count ? 1 : 0)
            if capacity > 0 { shelves[ObjectIdentifier(loop)] = Shelf(loop: loop, capacity: capacity, idleLimit: idleLimit, tally: tally) }
        }
        self.shelves = shelves
    }

    /// How many connections the loops have on their shelves now.
    var openConnections: Int { tally.value.load(ordering: .relaxed) }

    /// A connection of `loop` for one statement, to be given back (`Lent.giveBack`); nil when none
    /// can be had now (the statement goes to the pool).
    func lend(on loop: any EventLoop) -> Lent? {
        guard let shelf = shelves[ObjectIdentifier(loop)] else { return nil }
        let (lent, shouldOpen) = shelf.lend()
        if shouldOpen { open(on: shelf) }
        return lent
    }

    private func open(on shelf: Shelf) {
        PostgresConnection.connect(on: shelf.loop, configuration: configuration, id: 0, logger: logger).whenComplete { result in
            switch result {
            case .success(let connection):
                self.watchForItsClient(connection).whenComplete { _ in
                    if connection.isClosed {
                        // Closed while setting up (the server going, a pooler's wait given up).
                        _ = shelf.failedToOpen()
                    } else if shelf.opened(connection) {
                        connection.closeFuture.whenComplete { _ in shelf.drop(connection, pausing: false) }
                    } else {
                        connection.closeNow()  // shut down meanwhile
                    }
                }
            case .failure(let error):
                let pause = shelf.failedToOpen()
                self.logger.warning("a database connection for hot statements could not be opened (next try in \(pause.nanoseconds / 1_000_000) ms): \(String(reflecting: error))")
            }
        }
    }

    /// Asks the connection's backend to check every second, while a statement runs, that its
    /// client is still there: a connection cut by a deadline then takes its backend with it.
    /// Best effort: through PgBouncer in transaction mode the setting stays with whichever server
    /// connection ran it, and before PostgreSQL 14 there is no such setting (the connection is
    /// kept either way; its cut backend then ends with its statement).
    private func watchForItsClient(_ connection: PostgresConnection) -> EventLoopFuture<Void> {
        // As long as opening may take: a server gone silent (or a pooler with no server
        // connection to give) closes it rather than keep the loop one short.
        let giveUp = connection.eventLoop.scheduleTask(in: configuration.options.connectTimeout) { connection.closeNow() }
        let set: EventLoopFuture<PostgresQueryResult> = connection.query("SET client_connection_check_interval = '1s'", logger: logger)
        return set.map { _ in giveUp.cancel() }.flatMapErrorWithEventLoop { error, loop in
            giveUp.cancel()
            // Said once: it would be the same at every open (PostgreSQL 13, a platform without it).
            if let failure = error as? PSQLError, failure.code == .server,
                self.toldSetUnsupported.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
            {
                self.logger.notice("the hot statements' connections will not notice their client going: \(String(reflecting: error))")
            }
            return loop.makeSucceededVoidFuture()
        }
    }

    /// Waits for the server's graceful shutdown, then closes every connection.
    public func run() async throws {
        try? await gracefulShutdown()
        await closeAll()
    }

    /// Closes every connection and opens none from now on.
    func closeAll() async {
        // All at once: over TLS a close waits for the server's reply (up to 5 s).
        let connections = shelves.values.flatMap { $0.closeAll() }
        for connection in connections { connection.closeNow() }
        for connection in connections { try? await connection.closeFuture.get() }
    }

    /// One statement's use of a connection.
    final class Lent: Sendable {
        let connection: PostgresConnection
        private let shelf: Shelf
        private let cut = NIOLockedValueBox(false)

        fileprivate init(_ connection: PostgresConnection, shelf: Shelf) {
            self.connection = connection
            self.shelf = shelf
        }

        /// Whether `cutOff` ran: the statement's failure is then its deadline's.
        var wasCutOff: Bool { cut.withLockedValue { $0 } }

        /// Closes the connection: its statements fail at once, this one and any queued behind it.
        /// It is lent no more from now on (over TLS it stays active while it says goodbye).
        func cutOff() {
            cut.withLockedValue { $0 = true }
            shelf.drop(connection, pausing: true)
        }

        /// Closes the connection after a statement failed on it (a prepare that failed stays
        /// failed with its connection): a later statement gets a fresh one, after a pause (one
        /// that fails every time must not open a backend per request).
        func retire() {
            shelf.drop(connection, pausing: true)
        }

        func giveBack(succeeded: Bool) {
            shelf.giveBack(connection, succeeded: succeeded)
        }
    }

    /// One loop's connections.
    fileprivate final class Shelf: Sendable {
        let loop: any EventLoop
        /// Over a network, a connection idle this long is closed rather than used: a NAT or
        /// firewall may have dropped it without a word (the pool pings its own instead; nil over
        /// loopback). A quiet site opens one anew after such a pause.
        private let idleLimit: TimeAmount?
        private let state: NIOLockedValueBox<State>
        private let tally: OpenCount

        struct Slot {
            let connection: PostgresConnection
            var inFlight = 0
            var lastUsed = NIODeadline.now()
        }

        struct State {
            let capacity: Int
            /// Changed only by `shelve` and `unshelve`, which keep the count.
            private(set) var slots: [Slot] = []
            var opening = 0
            var pause = LoopConnections.firstPause
            var pausedUntil: NIODeadline?
            var isShutDown = false

            mutating func shelve(_ connection: PostgresConnection, counting tally: OpenCount) {
                slots.append(Slot(connection: connection))
                tally.changed(by: 1)
            }

            /// Takes the connections `which` picks off the shelf; returns them.
            mutating func unshelve(counting tally: OpenCount, where which: (Slot) -> Bool) -> [PostgresConnection] {
                let taken = slots.filter(which).map(\.connection)
                guard !taken.isEmpty else { return [] }
                slots.removeAll(where: which)
                tally.changed(by: -taken.count)
                return taken
            }

            mutating func lendOne(at index: Int) {
                slots[index].inFlight += 1
            }

            mutating func returnOne(at index: Int) {
                slots[index].inFlight -= 1
                slots[index].lastUsed = .now()
            }

            /// Whether one more connection should be opened now.
            mutating func shouldOpen(now: NIODeadline) -> Bool {
                guard !isShutDown, slots.count + opening < capacity else { return false }
                if let pausedUntil, pausedUntil > now { return false }
                opening += 1
                return true
            }

            /// No connection is opened for a pause that doubles each time; returns the pause.
            mutating func backOff() -> TimeAmount {
                pausedUntil = .now() + pause
                defer { pause = min(pause * 2, LoopConnections.longestPause) }
                return pause
            }
        }

        init(loop: any EventLoop, capacity: Int, idleLimit: TimeAmount?, tally: OpenCount) {
            self.loop = loop
            self.idleLimit = idleLimit
            self.tally = tally
            state = NIOLockedValueBox(State(capacity: capacity))
        }

        /// The least busy connection, if one has room; and whether to open another (every open
        /// one is busy).
        func lend() -> (Lent?, open: Bool) {
            let now = NIODeadline.now()
            var stale: [PostgresConnection] = []
            let (connection, open) = state.withLockedValue { state -> (PostgresConnection?, Bool) in
                if let idleLimit {
                    stale = state.unshelve(counting: tally) { $0.inFlight == 0 && now - $0.lastUsed > idleLimit }
                }
                guard let index = state.slots.indices.min(by: { state.slots[$0].inFlight < state.slots[$1].inFlight }),
                    state.slots[index].inFlight < LoopConnections.queueLimit, !state.slots[index].connection.isClosed
                else {
                    return (nil, state.shouldOpen(now: now))
                }
                state.lendOne(at: index)
                let open = state.slots[index].inFlight > 1 && state.shouldOpen(now: now)
                return (state.slots[index].connection, open)
            }
            for connection in stale { connection.closeNow() }
            return (connection.map { Lent($0, shelf: self) }, open)
        }

        func giveBack(_ connection: PostgresConnection, succeeded: Bool) {
            state.withLockedValue { state in
                if succeeded { state.pause = LoopConnections.firstPause }
                guard let index = state.slots.firstIndex(where: { $0.connection === connection }) else { return }
                state.returnOne(at: index)
            }
        }

        /// Lends `connection` no more and closes it (if it is not closed already); `pausing`: and
        /// opens none on this loop for a while (`State.backOff`).
        func drop(_ connection: PostgresConnection, pausing: Bool) {
            state.withLockedValue { state in
                _ = state.unshelve(counting: tally) { $0.connection === connection }
                if pausing { _ = state.backOff() }
            }
            if !connection.isClosed { connection.closeNow() }
        }

        /// A connection is open: kept unless the server is shutting down (false).
        func opened(_ connection: PostgresConnection) -> Bool {
            state.withLockedValue { state in
                state.opening -= 1
                guard !state.isShutDown else { return false }
                state.shelve(connection, counting: tally)
                return true
            }
        }

        /// Opening failed: no other try for a pause that doubles each time, which it returns.
        func failedToOpen() -> TimeAmount {
            state.withLockedValue { state in
                state.opening -= 1
                return state.backOff()
            }
        }

        func closeAll() -> [PostgresConnection] {
            state.withLockedValue { state in
                state.isShutDown = true
                return state.unshelve(counting: tally) { _ in true }
            }
        }
    }
}

/// The connections on the loops' shelves, kept by the shelves as they change (under each shelf's
/// lock) and shown as `selfie_db_loop_open_connections`.
final class OpenCount: Sendable {
    let value = Atomic(0)
    /// Made with the count, after `AppMetrics.bootstrap` (a metric made before it stays no-op).
    private let meter = Meter(label: "selfie_db_loop_open_connections")

    func changed(by delta: Int) {
        let now = value.add(delta, ordering: .relaxed).newValue
        meter.set(now)
    }
}

extension PostgresConnection {
    /// Closes without waiting for it (the async `close()` waits).
    func closeNow() {
        let closing: EventLoopFuture<Void> = close()
        closing.whenComplete { _ in }
    }
}
