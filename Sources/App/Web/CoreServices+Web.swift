import Logging
import SelfieCore

extension CoreServices {
    /// The core, told the web's routes it needs (a provider's return).
    public init(forWeb config: AppConfiguration, keepingConnections: Bool = false, logger: Logger) throws {
        try self.init(config, providerCallbackPath: WebPath.providerCallback, keepingConnections: keepingConnections, logger: logger)
    }
}
