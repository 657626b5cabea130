import Foundation
import Logging
import SelfieCore

/// The work behind `selfie admin …`, against the database in the configuration. Each returns the
/// lines to print; refusals throw `AdminCommandError` with a message for the operator.
public struct AdminCommands: Sendable {
    let config: AppConfiguration
    let logger: Logger

    public init(config: AppConfiguration, logger: Logger) {
        self.config = config
        self.logger = logger
    }

    /// Creates an admin. With no password given, one is generated and printed once.
    public func create(email: String, name: String?, password: String?) async throws -> [String] {
        let generated = password?.isEmpty ?? true
        let password = generated ? RandomToken.urlSafe(byteCount: 15) : password!
        let fullName = name?.trimmingCharacters(in: .whitespaces).isEmpty == false
            ? name! : String(email.split(separator: "@").first ?? "Admin")
        let user = try await withAdminService { service in
            do {
                return try await service.createAdmin(email: email, fullName: fullName, password: password, origin: .commandLine)
            } catch let problems as InvalidFields {
                // The operator's words: English, from the catalogue next to the binary's resources.
                let translations = try Translations(directory: ResourcePaths().locales)
                let copy = ErrorCopy(words: Words(translations: translations, viewer: .default))
                let lines = copy.messages(for: problems).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                throw AdminCommandError("Cannot create the admin:\n  " + lines.joined(separator: "\n  "))
            }
        }
        var lines = ["Created admin \(user.handle) (\(user.fullName))."]
        if generated { lines.append("Generated password (shown only now): \(password)") }
        return lines
    }

    public func setRole(_ role: User.Role, email: String) async throws -> [String] {
        let user = try await withAdminService { service in
            do {
                return try await service.setRole(role, email: email, origin: .commandLine)
            } catch AdminError.noSuchUser {
                throw AdminCommandError("There is no user with the email \(email).")
            } catch AdminError.lastAdmin {
                throw AdminCommandError("\(email) is the last administrator. Promote someone else first.")
            } catch AdminError.unconfirmedAddress {
                throw AdminCommandError("\(email) has not confirmed its address (anyone can sign up with an address): it must open the link mailed to it first.")
            }
        }
        return [role == .admin ? "\(user.handle) is now an admin." : "\(user.handle) is no longer an admin."]
    }

    /// A password reset link for the user, printed for the operator to hand over (not mailed).
    public func resetLink(email: String) async throws -> [String] {
        let token = try await withAdminService { service in
            do {
                return try await service.issuePasswordReset(email: email, origin: .commandLine)
            } catch AdminError.noSuchUser {
                throw AdminCommandError("There is no user with the email \(email).")
            } catch AccountError.linkNotValid {
                throw AdminCommandError("\(email) is disabled: enable the account first.")
            }
        }
        let link = config.publicURL.absoluteString + WebPath.resetPassword(token: token)
        return ["Password reset link for \(email) (works once, for one hour):", link]
    }

    private func withAdminService<T: Sendable>(_ body: @escaping @Sendable (AdminService) async throws -> T) async throws -> T {
        let services = try CoreServices(forWeb: config, logger: logger)
        return try await services.whileRunning { try await body(services.admin) }
    }
}

/// A refusal of a `selfie admin` command, worded for the operator.
public struct AdminCommandError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
