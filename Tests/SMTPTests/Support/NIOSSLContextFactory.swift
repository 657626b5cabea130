import NIOSSL

/// A client TLS context for handler tests that never reach a handshake.
enum NIOSSLContextFactory {
    static func make() throws -> NIOSSLContext {
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }
}
