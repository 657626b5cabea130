import Logging
import SelfieCore

extension CoreServices {
    /// The core, told the web's routes it needs (a provider's return).
    public init(forWeb config: AppConfiguration, logger: Logger) throws {
        try self.init(config, providerCallbackPath: WebPath.providerCallback, logger: logger)
    }
}
