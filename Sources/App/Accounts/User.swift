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

extension User {
    /// A user as read from `users` (id, email, full_name, role, disabled, created_at), the columns
    /// every query that reads a user selects, in this order.
    typealias Row = (Int64, String, String, String, Bool, Date)

    init(row: Row) {
        let (id, email, fullName, role, disabled, createdAt) = row
        self.init(id: id, email: email, fullName: fullName, role: Role(rawValue: role) ?? .user, isDisabled: disabled, createdAt: createdAt)
    }
}
