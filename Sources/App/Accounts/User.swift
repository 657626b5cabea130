import Foundation

/// A person with an account. Deliberately holds no password hash: this is what pages and
/// JSON are built from, so nothing secret can leak through it.
public struct User: Sendable, Equatable {
    public enum Role: String, Sendable {
        case user
        case admin
    }

    public let id: Int64
    public var email: String
    public var fullName: String
    public var role: Role
    public var isDisabled: Bool
    public let createdAt: Date
}

/// A user together with their bcrypt hash, only ever handed to the code that checks passwords.
public struct UserCredentials: Sendable {
    public let user: User
    let passwordHash: String
}
