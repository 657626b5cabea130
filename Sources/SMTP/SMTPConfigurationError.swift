/// A configuration that can't be used, explained in one sentence that never contains the password.
public struct SMTPConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { self.message }
}
