import Foundation
import Hummingbird
import SelfieCore

/// Signing in with other providers from apps: `/api/social/signin`, and the register/login API's
/// `/api/register` and `/api/login` (`access_type` 0 password, 1 Facebook, 2 Twitter; `passkey`;
/// `passcode`; see "Compatibility" in docs/ARCHITECTURE.md).
extension APIController {
    /// `{"provider": "apple|google|oidc|facebook|twitter", "id_token" | "access_token" | "passcode"}`
    /// → the same user-and-token JSON as `/api/signin`. A first sign-in makes the account.
    func socialSignIn(_ request: Request, context: AppKeyContext) async throws -> Response {
        let fields = try await APIRequestFields.read(request)
        let provider = try fields.require("provider")
        let credential: ProviderCredential
        switch provider {
        case "facebook": credential = .facebookAccessToken(try fields.require("access_token"), userID: try fields.optional("user_id"))
        case "twitter": credential = .twitterPasscode(try fields.require("passcode"), userID: try fields.optional("user_id"))
        default: credential = .idToken(try fields.require("id_token"), nonce: try fields.optional("nonce"))
        }
        let identity = try await social.verify(provider: provider, credential, origin: context.origin)
        let (outcome, _) = try await signIn.provider(identity, proof: .init(code: try fields.optional("otp")), origin: context.origin)
        let credentials = try Self.signedIn(outcome)
        let token = try await signIn.issueToken(after: credentials, appKey: context.appKey.name, origin: context.origin)
        return try JSONResponse(body: UserJSON(credentials.user, token: token)).response(from: request, context: context)
    }

    /// The register/login API's answers: `{"error": false, "message": …}` plus the user and token fields.
    struct RegisterLoginJSON: Encodable, Sendable {
        let error: Bool
        let message: String
        let user: UserJSON?

        enum CodingKeys: String, CodingKey { case error, message }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(error, forKey: .error)
            try container.encode(message, forKey: .message)
            try user?.encode(to: encoder)
        }
    }

    func register(_ request: Request, context: AppKeyContext) async throws -> Response {
        try await registerLoginShaped(request, context: context) {
            let (accessType, passkey, passcode, fields) = try await registerLoginFields(request)
            let outcome: SignInService.Outcome
            switch accessType {
            case 0:
                let isEmail = passkey.contains("@")
                var signUp = SignUpRequest(
                    fullName: try fields.optional("name") ?? passkey.split(separator: "@").first.map(String.init) ?? passkey,
                    email: isEmail ? passkey : try fields.optional("email") ?? "",
                    username: isEmail ? nil : passkey,
                    password: passcode,
                    passwordConfirmation: nil
                )
                signUp.requiresEmail = false
                outcome = try await signIn.register(signUp, origin: context.origin)
            default:
                outcome = try await providerAccount(accessType, passkey, passcode, mode: .signUpOnly, code: nil, context: context)
            }
            let credentials = try Self.signedIn(outcome)
            let token = try await signIn.issueToken(after: credentials, appKey: context.appKey.name, origin: context.origin)
            return (.created, RegisterLoginJSON(error: false, message: "You are successfully registered", user: UserJSON(credentials.user, token: token)))
        }
    }

    func login(_ request: Request, context: AppKeyContext) async throws -> Response {
        try await registerLoginShaped(request, context: context) {
            let (accessType, passkey, passcode, fields) = try await registerLoginFields(request)
            let code = try fields.optional("otp")
            let outcome: SignInService.Outcome
            switch accessType {
            case 0:
                do {
                    outcome = try await signIn.password(login: passkey, password: passcode, proof: .init(code: code), origin: context.origin)
                } catch AccountError.invalidCredentials {
                    throw AppError(.unauthorized, "Login failed. Incorrect credentials")
                }
            default:
                outcome = try await providerAccount(accessType, passkey, passcode, mode: .signInOnly, code: code, context: context)
            }
            let credentials = try Self.signedIn(outcome)
            let token = try await signIn.issueToken(after: credentials, appKey: context.appKey.name, origin: context.origin)
            return (.ok, RegisterLoginJSON(error: false, message: "You are signed in", user: UserJSON(credentials.user, token: token)))
        }
    }

    /// access_type 1 (Facebook) or 2 (Twitter): the token checked with the provider, whose user
    /// must be `passkey`, then the account.
    private func providerAccount(
        _ accessType: Int,
        _ passkey: String,
        _ passcode: String,
        mode: SocialSignInService.Mode,
        code: String?,
        context: AppKeyContext
    ) async throws -> SignInService.Outcome {
        let (provider, credential): (String, ProviderCredential) = accessType == 1
            ? ("facebook", .facebookAccessToken(passcode, userID: passkey))
            : ("twitter", .twitterPasscode(passcode, userID: passkey))
        let identity = try await social.verify(provider: provider, credential, origin: context.origin)
        return try await signIn.provider(identity, mode: mode, proof: .init(code: code), origin: context.origin).outcome
    }

    /// `access_type`, `passkey` and `passcode` from a form or JSON body; missing ones are named
    /// all at once, as the original backend did.
    private func registerLoginFields(_ request: Request) async throws -> (Int, String, String, APIRequestFields) {
        let fields = try await APIRequestFields.read(request, acceptingForms: true)
        let names = ["access_type", "passkey", "passcode"]
        let values = try names.map { try fields.optional($0) }
        let missing = zip(names, values).filter { $0.1 == nil }.map(\.0)
        guard missing.isEmpty, let type = values[0], let passkey = values[1], let passcode = values[2] else {
            throw AppError(.badRequest, "Required field(s) \(missing.joined(separator: ", ")) missing or empty")
        }
        guard let accessType = Int(type), (0...2).contains(accessType) else {
            throw AppError(.badRequest, "access_type must be 0 (username or email and password), 1 (Facebook) or 2 (Twitter)")
        }
        return (accessType, passkey, passcode, fields)
    }

    /// Runs a register/login API handler, answering its refusals as `{"error": true, "message": …}`.
    private func registerLoginShaped(
        _ request: Request,
        context: AppKeyContext,
        _ body: () async throws -> (HTTPResponse.Status, RegisterLoginJSON)
    ) async throws -> Response {
        do {
            let (status, json) = try await body()
            return try JSONResponse(status: status, body: json).response(from: request, context: context)
        } catch {
            let refusal = APIError.appError(for: error, copy: errors)
            // Server-side failures keep the API's usual error path (logged, generic message).
            guard refusal.status.code < 500 else { throw error }
            var response = try JSONResponse(status: refusal.status, body: RegisterLoginJSON(error: true, message: refusal.message, user: nil))
                .response(from: request, context: context)
            response.headers.append(contentsOf: refusal.headers)
            return response
        }
    }
}
