import Logging
import SelfieCore

extension CoreServices {
    /// The core, told the web's routes it needs (a provider's return).
    /// - Parameter serving: the server (its requests' hot statements on the event loops'
    ///   connections), not a command.
    public init(forWeb config: AppConfiguration, serving: Bool = false, logger: Logger) throws {
        try self.init(config, providerCallbackPath: WebPath.providerCallback, serving: serving, logger: logger)
    }
}
