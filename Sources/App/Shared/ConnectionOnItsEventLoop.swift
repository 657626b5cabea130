import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1
import NIOPosix
import SelfieCore

/// Each connection's requests run on the event loop that reads and writes its socket, not on
/// Swift's global pool. Without this, every request crossed threads four times or more (the
/// socket's bytes to the pool, the database query to its connection's loop and back, the answer
/// back to the socket's loop), and a profile of `/healthz` showed the kernel's wake-ups and task
/// switches as the largest cost. Work that must not block a loop already leaves it (bcrypt and
/// the image worker on their own threads, files through NIOFileSystem's pool). A deadline's task
/// stays on the loop too (`EventLoopTaskExecutor.current`).
struct ConnectionOnItsEventLoop<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    /// Static files answered where the connection's bytes are read (`StaticAssetsOnTheLoop`).
    let staticAssets: StaticAssetsOnTheLoop.Settings
    /// How long a client may read none of its answer (`StalledReaderHandler`).
    let stalledReaderTimeout: TimeAmount

    /// Selfie's own handlers go after Hummingbird's connection-state handler, so that it still
    /// counts every request and answer (idle timeout, graceful shutdown): first the static files'
    /// (`StaticAssetsOnTheLoop`), then `LingeringCloseHandler` and `ExpectContinueHandler`, which
    /// only the requests the router answers need (a static file is answered once its request has
    /// been read whole), so that the files' answers go through two handlers fewer. The one
    /// exception, `ExpectationIgnoredOverHTTP10`, goes before the HTTP types codec (its comment
    /// says why).
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
            try operations.addHandler(ExpectationIgnoredOverHTTP10(), position: .before(codec))
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            let staticAssets = StaticAssetsOnTheLoop(staticAssets)
            try operations.addHandler(staticAssets, position: .after(state))
            let lingering = LingeringCloseHandler()
            try operations.addHandler(lingering, position: .after(staticAssets))
            try operations.addHandler(ExpectContinueHandler(), position: .after(lingering))
            try operations.addHandler(StalledReaderHandler(timeout: stalledReaderTimeout), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        let executor = EventLoopTaskExecutor.of(value.channel.eventLoop)
        await withTaskExecutorPreference(executor) {
            await EventLoopTaskExecutor.$current.withValue(executor) {
                await inner.handle(value: value, logger: logger)
            }
        }
    }
}

extension ConnectionOnItsEventLoop where Inner == HTTP1Channel {
    /// An HTTP/1.1 connection: what `http1OnEventLoops` makes for each.
    init(
        responder: @escaping HTTPChannelHandler.Responder,
        idleTimeout: TimeAmount,
        stalledReaderTimeout: TimeAmount,
        staticAssets: StaticAssetsOnTheLoop.Settings
    ) {
        self.init(
            inner: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)),
            staticAssets: staticAssets,
            stalledReaderTimeout: stalledReaderTimeout
        )
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 whose connections run their requests on their own event loops, and answer static
    /// files there without a task.
    static func http1OnEventLoops(
        idleTimeout: TimeAmount,
        stalledReaderTimeout: TimeAmount,
        staticAssets: StaticAssetsOnTheLoop.Settings
    ) -> HTTPServerBuilder {
        .init { responder in
            ConnectionOnItsEventLoop(
                responder: responder, idleTimeout: idleTimeout, stalledReaderTimeout: stalledReaderTimeout, staticAssets: staticAssets
            )
        }
    }
}
