import Foundation

/// The ways into an account: a password (with an email or username to type next to it), linked
/// providers, passkeys. One value for every rule that must keep at least one: unlinking a
/// provider, removing a passkey, the account page's offers, and how deleting the account is
/// confirmed.
public struct WaysIn: Sendable, Equatable {
    /// A password that can sign in: a hash, and an email or username to type next to it.
    public let password: Bool
    public let identities: Int
    public let passkeys: Int

    public init(password: Bool, identities: Int, passkeys: Int) {
        self.password = password
        self.identities = identities
        self.passkeys = passkeys
    }

    public var count: Int { (password ? 1 : 0) + identities + passkeys }

    /// Whether one provider or passkey can go and still leave a way in.
    public var canLoseOne: Bool { count > 1 }
}
