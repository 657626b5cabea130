/// PostgreSQL refused a statement: nothing was written. Repositories throw this instead of the
/// driver's error, so services need not know the driver; a lost connection, by contrast, may or
/// may not have committed and is rethrown as it is.
public struct RowRefused: Error, Sendable {
    /// A value the validation let through but the database refused (a check, a range): the
    /// input's fault, a 400; anything else (a trigger, a bug) is the server's.
    public let isRejectedValue: Bool
    /// The server's reason, for the log.
    public let reason: String
}
