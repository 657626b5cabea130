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
    /// An email address: not a way in of its own, but a reset link mailed to it sets a password.
    public let address: Bool

    public init(password: Bool, identities: Int, passkeys: Int, address: Bool) {
        self.password = password
        self.identities = identities
        self.passkeys = passkeys
        self.address = address
    }

    public var count: Int { (password ? 1 : 0) + identities + passkeys }

    /// Whether one provider or passkey can go and still leave a way in.
    public var canLoseOne: Bool { count > 1 }

    /// Whether removing every passkey would shut the owner out for good: they are the only way in,
    /// and no address could bring a reset link.
    var passkeysAreLastResort: Bool { passkeys > 0 && count == passkeys && !address }
}
