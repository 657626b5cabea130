/// PostgreSQL refused a statement (a constraint, a value out of range): nothing was written.
/// Repositories throw this instead of the driver's error, so services need not know the driver;
/// a lost connection, by contrast, may or may not have committed and is rethrown as it is.
public struct RowRefused: Error, Sendable {
    /// The server's reason, for the log.
    public let reason: String
}
