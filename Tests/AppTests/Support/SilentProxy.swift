import SelfieCore
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on loopback in front of PostgreSQL (or an S3 peer) that can go silent: from
/// `goSilent()` on, what either side sends is dropped and no connection is closed — a network path
/// that loses packets, not a server that is down (which would reset the connections).
final class SilentProxy: Sendable {
    private let channel: any Channel
    private let state = Mutex(State())
    let port: Int

    private struct State {
        var target: (host: String, port: Int)?
        var silent = false
        var connections: [any Channel] = []
        var closing: RepeatedTask?
        var cut: Cut?
        /// What a client may send through, per second (nil: as fast as it comes).
        var throttle: Int?
        /// After the planned cut, new connections are closed at once until then (a database that
        /// cannot be asked for a while).
        var refuseAfterCut: Duration?
        var refusingUntil: ContinuousClock.Instant?
        /// How many more bytes of answers each connection passes on before it is cut (nil: all).
        var replyBudget: Int?
        var replied: [ObjectIdentifier: Int] = [:]
    }

    /// The connection to cut at a statement: the first that sends the bytes `after`, when it next
    /// sends the bytes `at`.
    private struct Cut {
        let after: [UInt8]
        let at: [UInt8]
        let delivered: Bool
        var primed: Set<ObjectIdentifier> = []
    }

    private init(channel: any Channel) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    static func start() async throws -> SilentProxy {
        let box = ProxyBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { inbound in
                inbound.setOption(.autoRead, value: false).flatMap {
                    guard let proxy = box.proxy, let target = proxy.target, !proxy.isRefusing else { return inbound.close() }
                    return ClientBootstrap(group: inbound.eventLoop)
                        .connect(host: target.host, port: target.port)
                        .flatMap { outbound in
                            proxy.keep(inbound, outbound)
                            let pair = Pair(client: inbound, server: outbound)
                            let toServer = Forward(to: outbound, proxy: proxy, pair: pair, fromClient: true)
                            let toClient = Forward(to: inbound, proxy: proxy, pair: pair, fromClient: false)
                            return outbound.pipeline.addHandler(toClient).flatMap {
                                inbound.pipeline.addHandler(toServer)
                            }.flatMap { inbound.setOption(.autoRead, value: true) }
                        }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = SilentProxy(channel: channel)
        box.proxy = proxy
        return proxy
    }

    /// Runs `body` with a proxy that is stopped (its listener and connections closed) when the
    /// body ends, whether it returns or throws.
    static func with<T: Sendable>(_ body: (SilentProxy) async throws -> T) async throws -> T {
        let proxy = try await start()
        let result: T
        do {
            result = try await body(proxy)
        } catch {
            try? await proxy.stop()
            throw error
        }
        try await proxy.stop()
        return result
    }

    /// Where connections go (set before the first one arrives).
    func forward(to host: String, port: Int) { state.withLock { $0.target = (host, port) } }
    var target: (host: String, port: Int)? { state.withLock { $0.target } }
    var isSilent: Bool { state.withLock { $0.silent } }
    func goSilent() { state.withLock { $0.silent = true } }
    func speakAgain() { state.withLock { $0.silent = false } }

    /// Closes every connection through the proxy (both sides see it closed, as when a server
    /// restarts): a query stuck on a silent one then fails and its connection goes back.
    func closeConnections() {
        for connection in state.withLock({ $0.connections }) { connection.close(promise: nil) }
    }

    /// Cuts the first connection that sends the statement text `after`, when it next sends the
    /// text `at` (a later statement of the same transaction): with `delivered`, that statement
    /// reaches PostgreSQL and runs, its answer is lost, and the connection closes a moment later
    /// (a `COMMIT` that happened, reported to the app as a lost connection); without, the
    /// statement is dropped and the connection closes at once (PostgreSQL rolls back).
    /// With `thenRefusingFor` (and `delivered` false), every connection closes with the cut one and
    /// new ones are closed at once for that long (a database that restarts).
    func cut(after: String, at: String, delivered: Bool, thenRefusingFor refusal: Duration? = nil) {
        state.withLock {
            $0.cut = Cut(after: Array(after.utf8), at: Array(at.utf8), delivered: delivered)
            $0.refuseAfterCut = refusal
        }
    }

    /// Whether new connections are being refused (see `cut`).
    var isRefusing: Bool { state.withLock { $0.refusingUntil.map { ContinuousClock.now < $0 } ?? false } }

    /// From now on, what clients send goes on at `bytesPerSecond` at most (a slow uplink): the
    /// proxy reads no faster, and TCP makes the client wait.
    func throttle(bytesPerSecond: Int) { state.withLock { $0.throttle = bytesPerSecond } }
    var throttled: Int? { state.withLock { $0.throttle } }

    /// From now on, each connection passes on `bytes` more bytes of what the server answers, then
    /// is closed mid-answer (a reset or a read timeout halfway through a body); nil: no limit.
    func breakReplies(after bytes: Int?) {
        state.withLock {
            $0.replyBudget = bytes
            $0.replied = [:]
        }
    }

    /// How much of `bytes` the server of `pair` may still pass on (all of it, unless answers are broken off).
    private func share(of bytes: ByteBuffer, for pair: Pair) -> Int {
        state.withLock { state in
            guard let budget = state.replyBudget else { return bytes.readableBytes }
            let id = ObjectIdentifier(pair)
            let before = state.replied[id, default: 0]
            state.replied[id] = before + bytes.readableBytes
            return max(0, min(bytes.readableBytes, budget - before))
        }
    }

    /// Whether the planned cut has happened.
    var hasCut: Bool { state.withLock { $0.cut == nil } }

    /// What to do with bytes the client of `pair` sends: forward them or not, then cut or not.
    private func plan(for bytes: ByteBuffer, of pair: Pair) -> (forward: Bool, cut: Bool) {
        state.withLock { state in
            guard var cut = state.cut else { return (true, false) }
            let id = ObjectIdentifier(pair)
            let text = bytes.readableBytesView
            if !cut.primed.contains(id) {
                if text.firstRange(of: cut.after) != nil { cut.primed.insert(id) }
                state.cut = cut
                return (true, false)
            }
            guard text.firstRange(of: cut.at) != nil else { return (true, false) }
            state.cut = nil
            state.refusingUntil = state.refuseAfterCut.map { ContinuousClock.now + $0 }
            return (cut.delivered, true)
        }
    }

    /// From now until `stop()`, closes every connection through the proxy four times a second, so
    /// the app's shutdown cannot wait on one the test left stuck (a run on a loaded machine once
    /// sat in that shutdown for minutes, holding database slots other tests waited for).
    func keepClosingConnections() {
        closeConnections()
        let task = channel.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { [self] _ in
            closeConnections()
        }
        state.withLock { $0.closing = task }
    }

    func stop() async throws {
        state.withLock { $0.closing }?.cancel()
        closeConnections()
        try await channel.close()
    }

    private func keep(_ connections: any Channel...) { state.withLock { $0.connections += connections } }

    /// One client's connection and the proxy's to PostgreSQL for it.
    private final class Pair: Sendable {
        let client: any Channel
        let server: any Channel
        /// What the server sends is dropped (a cut statement's answer).
        let deaf = Mutex(false)

        init(client: any Channel, server: any Channel) {
            self.client = client
            self.server = server
        }

        func close() {
            client.close(promise: nil)
            server.close(promise: nil)
        }
    }

    /// Bytes read on one side written to the other, unless the proxy is silent or the pair cut.
    private final class Forward: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let partner: any Channel
        let proxy: SilentProxy
        let pair: Pair
        let fromClient: Bool

        init(to partner: any Channel, proxy: SilentProxy, pair: Pair, fromClient: Bool) {
            self.partner = partner
            self.proxy = proxy
            self.pair = pair
            self.fromClient = fromClient
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !proxy.isSilent else { return }
            let bytes = unwrapInboundIn(data)
            guard fromClient else {
                guard !pair.deaf.withLock({ $0 }) else { return }
                let passed = proxy.share(of: bytes, for: pair)
                guard passed < bytes.readableBytes else {
                    partner.writeAndFlush(bytes, promise: nil)
                    return
                }
                pair.deaf.withLock { $0 = true }
                let pair = self.pair
                partner.writeAndFlush(bytes.getSlice(at: bytes.readerIndex, length: passed)!).whenComplete { _ in pair.close() }
                return
            }
            if proxy.throttled != nil { readSinceLastPause.withLock { $0 += bytes.readableBytes } }
            let plan = proxy.plan(for: bytes, of: pair)
            guard plan.cut else {
                partner.writeAndFlush(bytes, promise: nil)
                return
            }
            guard plan.forward else {
                pair.close()
                // A database that went away: every connection ends with this one.
                if proxy.isRefusing { proxy.closeConnections() }
                return
            }
            pair.deaf.withLock { $0 = true }
            let pair = self.pair
            partner.writeAndFlush(bytes).whenComplete { _ in
                // Time for PostgreSQL to run it before the connection ends.
                pair.server.eventLoop.scheduleTask(in: .milliseconds(300)) { pair.close() }
            }
        }

        /// Throttled: reads again only once what this read brought has had its share of a second.
        func channelReadComplete(context: ChannelHandlerContext) {
            guard fromClient, let rate = proxy.throttled else { return context.fireChannelReadComplete() }
            let bytes = readSinceLastPause.withLock { bytes in
                defer { bytes = 0 }
                return bytes
            }
            let channel = context.channel
            channel.setOption(.autoRead, value: false).whenSuccess {
                channel.eventLoop.scheduleTask(in: .microseconds(Int64(bytes) * 1_000_000 / Int64(rate))) { channel.read() }
            }
        }

        private let readSinceLastPause = Mutex(0)

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
        }
    }

    /// Lets the accept handler reach the proxy made after the bind.
    private final class ProxyBox: Sendable {
        private let kept = Mutex<SilentProxy?>(nil)
        var proxy: SilentProxy? {
            get { kept.withLock { $0 } }
            set { kept.withLock { $0 = newValue } }
        }
    }
}

extension SilentProxy {
    /// Puts the proxy between the app and its database: forwards to the configured one, and
    /// points the configuration at the proxy.
    func carry(_ config: inout AppConfiguration) {
        forward(to: config.database.host, port: config.database.port)
        config.database.host = "127.0.0.1"
        config.database.port = port
    }
}
