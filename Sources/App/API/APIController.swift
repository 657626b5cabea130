import Foundation
import Hummingbird
import SelfieCore

/// The JSON API under `/api`, wire-compatible with the railsauth iOS app (see DESIGN.md):
/// app-key routes to sign up and in, token routes for everything else.
struct APIController {
    let accounts: AccountService
    let signIn: SignInService
    let emails: AccountEmails
    let deletion: AccountDeletion
    let export: DataExport
    let social: SocialSignInService
    let photos: PhotoService
    let albums: AlbumService
    let sharing: ShareLinkService
    let appKeys: AppKeyService
    let protection: BruteForceProtection
    let resumable: ResumableUploadService
    let resumablePublicURL: URL
    let csrf: CSRFTokens
    /// openapi.yaml, read once at start-up.
    let openAPIDocument: String
    /// What a photo whose renditions are still being made shows (a PNG: the app decodes JPEG and PNG).
    let placeholderURL: String
    /// How long the image URLs the API hands out work: as long as a token does (a week at most,
    /// the longest an S3 presigned URL can be). The seed's app lists the photos once per sign-in
    /// (or launch) and loads each image again whenever its cell is shown; the railsauth backend
    /// gave it public URLs that never expired.
    let imageURLLifetime: Duration
    static let longestImageURLLifetime: Duration = .seconds(7 * 24 * 3600)

    /// The API's words for refusals: English.
    let errors: ErrorCopy

    init(services: CoreServices, paths: ResourcePaths, translations: Translations) throws {
        self.errors = ErrorCopy(words: Words(translations: translations, viewer: .default))
        self.accounts = services.accounts
        self.signIn = services.signIn
        self.emails = services.emails
        self.deletion = services.deletion
        self.export = services.export
        self.social = services.social
        self.photos = services.photos
        self.albums = services.albums
        self.sharing = services.sharing
        self.appKeys = services.appKeys
        self.protection = services.protection
        self.resumable = services.resumable
        self.resumablePublicURL = services.config.publicURL
        self.csrf = CSRFTokens(secretKey: services.config.secretKey)
        self.openAPIDocument = try String(contentsOfFile: paths.openAPIDocument, encoding: .utf8)
        self.placeholderURL = services.config.publicURL.absoluteString + StaticAssets.preparingImage
        self.imageURLLifetime = min(services.config.tokenLifetime, Self.longestImageURLLifetime)
    }

    /// One API route: method, path and handler (which says what authentication it needs).
    struct Route {
        enum Handler {
            case appKey(@Sendable (Request, AppKeyContext) async throws -> Response)
            case token(@Sendable (Request, APITokenContext) async throws -> Response)
            /// A token, or the browser's session with its CSRF token.
            case uploader(@Sendable (Request, UploaderContext) async throws -> Response)
            case open(@Sendable (Request, APIRequestContext) async throws -> Response)
        }

        let method: HTTPRequest.Method
        let path: String
        let handler: Handler
        /// The per-address limit the route counts against, if any.
        var rateLimit: BruteForceProtection.Action?
    }

    /// Every API route: what `addRoutes` registers and what `openapi.yaml` must describe.
    var routes: [Route] {
        [
            Route(method: .post, path: "/api/signup", handler: .appKey(signUp), rateLimit: .signUp),
            Route(method: .post, path: "/api/signin", handler: .appKey(signIn), rateLimit: .signIn),
            Route(method: .get, path: "/api/get_token", handler: .appKey(getToken), rateLimit: .signIn),
            Route(method: .post, path: "/api/social/signin", handler: .appKey(socialSignIn), rateLimit: .signIn),
            Route(method: .post, path: "/api/register", handler: .appKey(register), rateLimit: .signUp),
            Route(method: .post, path: "/api/login", handler: .appKey(login), rateLimit: .signIn),
            Route(method: .post, path: "/api/forgot_password", handler: .appKey(forgotPassword), rateLimit: .passwordResetRequest),
            Route(method: .get, path: "/api/clear_token", handler: .token(clearToken)),
            // A current-password check is a guess like a sign-in: the same per-address limit.
            Route(method: .post, path: "/api/reset_password", handler: .token(resetPassword), rateLimit: .signIn),
            Route(method: .post, path: "/api/upload_photo", handler: .token(uploadPhoto), rateLimit: .upload),
            Route(method: .get, path: "/api/get_photos", handler: .token(getPhotos)),
            Route(method: .delete, path: "/api/delete_photo", handler: .token(deletePhoto)),
            Route(method: .post, path: "/api/delete_account", handler: .token(deleteAccount), rateLimit: .signIn),
            Route(method: .get, path: "/api/export", handler: .token(exportData)),
            Route(method: .get, path: "/api/openapi.yaml", handler: .open(serveOpenAPIDocument)),
        ] + albumRoutes + trashRoutes + usageRoutes + uploadRoutes
    }

    /// Registers every route on the API's group, each behind what its handler needs (an app key
    /// or a token, and its rate limit); every other method or path under `/api` answers the
    /// railsauth backend's 404.
    func addRoutes(to api: RouterGroup<APIRequestContext>) {
        let keyed = api.group().add(middleware: AppKeyMiddleware(keys: appKeys)).group(context: AppKeyContext.self)
        let tokened = api.group().add(middleware: APITokenMiddleware(accounts: accounts)).group(context: APITokenContext.self)
        let uploaders = api.group().add(middleware: UploaderMiddleware(accounts: accounts, csrf: csrf)).group(context: UploaderContext.self)
        for route in routes {
            let path = RouterPath(route.path)
            switch route.handler {
            case .appKey(let handler): limited(keyed, route.rateLimit).on(path, method: route.method, use: handler)
            case .token(let handler): limited(tokened, route.rateLimit).on(path, method: route.method, use: handler)
            case .uploader(let handler): limited(uploaders, route.rateLimit).on(path, method: route.method, use: handler)
            case .open(let handler): api.on(path, method: route.method, use: handler)
            }
        }
        let wrongURL: @Sendable (Request, APIRequestContext) async throws -> Response = { _, _ in throw APIError.wrongURL }
        for path in Set(routes.map(\.path)) {
            let served = routes.filter { $0.path == path }.map(\.method)
            for method in HTTPRequest.Method.routable where !served.contains(method) {
                api.on(RouterPath(path), method: method, use: wrongURL)
            }
        }
        for method in HTTPRequest.Method.routable {
            api.on(RouterPath(Self.prefix), method: method, use: wrongURL)
            api.on(RouterPath(Self.prefix + "/**"), method: method, use: wrongURL)
        }
    }

    /// Where the API lives; its routes' paths start with it.
    static let prefix = "/api"

    private func limited<Context: ClientAddressProviding>(_ group: RouterGroup<Context>, _ action: BruteForceProtection.Action?)
        -> RouterGroup<Context>
    {
        guard let action else { return group }
        return group.limited(action, by: protection)
    }

    // MARK: Responses

    /// The user as the app reads it: `full_name` split at the first space, every value a string.
    struct UserJSON: Encodable, Sendable {
        let firstName: String
        let lastName: String
        /// Empty for an account made through a provider that shared no email.
        let email: String
        let username: String?
        var apiAuthtoken: String?
        var authtokenExpiry: String?

        init(_ user: User, token: IssuedToken? = nil) {
            let parts = user.fullName.split(separator: " ", maxSplits: 1)
            self.firstName = parts.first.map(String.init) ?? ""
            self.lastName = parts.count > 1 ? String(parts[1]) : ""
            self.email = user.email ?? ""
            self.username = user.username
            self.apiAuthtoken = token?.token
            self.authtokenExpiry = token.map { APIDate.format($0.expiresAt) }
        }

        enum CodingKeys: String, CodingKey {
            case firstName = "first_name"
            case lastName = "last_name"
            case email, username
            case apiAuthtoken = "api_authtoken"
            case authtokenExpiry = "authtoken_expiry"
        }
    }

    struct TokenJSON: Encodable, Sendable {
        let apiAuthtoken: String
        let authtokenExpiry: String

        enum CodingKeys: String, CodingKey {
            case apiAuthtoken = "api_authtoken"
            case authtokenExpiry = "authtoken_expiry"
        }
    }

    struct PhotoJSON: Encodable, Sendable {
        let name: String
        let title: String
        let randomID: String
        let imageURL: String
        /// When it was taken (`yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`), null when its file did not say.
        let takenAt: String?

        enum CodingKeys: String, CodingKey {
            case name, title
            case randomID = "random_id"
            case imageURL = "image_url"
            case takenAt = "taken_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(title, forKey: .title)
            try container.encode(randomID, forKey: .randomID)
            try container.encode(imageURL, forKey: .imageURL)
            try container.encode(takenAt, forKey: .takenAt)
        }
    }

    struct StatusJSON: Encodable, Sendable {
        let status: Int
        let message: String
    }

    // MARK: App-key routes

    func signUp(_ request: Request, context: AppKeyContext) async throws -> Response {
        let fields = try await APIRequestFields.read(request)
        let signUp = SignUpRequest(
            fullName: try fields.require("full_name"),
            email: try fields.require("email"),
            username: try fields.optional("username"),
            password: try decryptPassword(fields.require("password"), key: context.appKey),
            passwordConfirmation: nil
        )
        let credentials = try await accounts.signUp(signUp, origin: context.origin)
        context.logger.info("user signed up through the API", metadata: ["user": "\(credentials.user.id)"])
        return try JSONResponse(body: UserJSON(credentials.user)).response(from: request, context: context)
    }

    func signIn(_ request: Request, context: AppKeyContext) async throws -> Response {
        let (user, token) = try await authenticate(request, context: context, includingQuery: false)
        return try JSONResponse(body: UserJSON(user, token: token)).response(from: request, context: context)
    }

    /// The railsauth backend handed out a token for an email alone; here the password is required as well.
    func getToken(_ request: Request, context: AppKeyContext) async throws -> Response {
        let (_, token) = try await authenticate(request, context: context, includingQuery: true)
        return try JSONResponse(body: TokenJSON(apiAuthtoken: token.token, authtokenExpiry: APIDate.format(token.expiresAt)))
            .response(from: request, context: context)
    }

    private func authenticate(_ request: Request, context: AppKeyContext, includingQuery: Bool) async throws
        -> (User, IssuedToken)
    {
        let fields = try await APIRequestFields.read(request, includingQuery: includingQuery)
        // `email` may hold a username too; `username` is accepted on its own.
        let login = try fields.contains("username") && !fields.contains("email") ? fields.require("username") : fields.require("email")
        let password = try decryptPassword(fields.require("password"), key: context.appKey)
        // Accounts with two-step verification send their code in `otp` (a 401 with
        // `otp_required` asks for it); others never need the field.
        let code = try fields.optional("otp")
        do {
            let outcome = try await signIn.password(login: login, password: password, proof: .init(code: code), origin: context.origin)
            let credentials = try Self.signedIn(outcome)
            let token = try await signIn.issueToken(after: credentials, appKey: context.appKey.name, origin: context.origin)
            return (credentials.user, token)
        } catch AccountError.invalidCredentials {
            context.logger.notice("API sign-in failed")
            throw AccountError.invalidCredentials
        }
    }

    /// The same answer, status and timing for every plausible address: the work runs after the
    /// answer (see the web form).
    func forgotPassword(_ request: Request, context: AppKeyContext) async throws -> Response {
        let fields = try await APIRequestFields.read(request)
        let email = try fields.require("email").trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else { throw InvalidFields([.email: .notAnEmailAddress]) }
        let (emails, origin) = (self.emails, context.origin)
        Task { await emails.requestPasswordReset(email: email, origin: origin) }
        let message = "If this address belongs to an account, a link to choose a new password is on its way. It works for one hour."
        return try JSONResponse(body: StatusJSON(status: 200, message: message)).response(from: request, context: context)
    }

    // MARK: Token routes

    func clearToken(_ request: Request, context: APITokenContext) async throws -> Response {
        try await accounts.revokeToken(context.token, origin: context.origin)
        return try JSONResponse(body: StatusJSON(status: 200, message: "Token cleared")).response(from: request, context: context)
    }

    /// Changes the password; every other token and every web session of the user ends, and the
    /// app gets a new token.
    func resetPassword(_ request: Request, context: APITokenContext) async throws -> Response {
        let fields = try await APIRequestFields.read(request)
        guard let key = try await appKeys.key(named: context.token.appKeyName) else { throw APIError.appKeyRequired }
        let old = try decryptPassword(fields.require("old_password"), key: key)
        let new = try decryptPassword(fields.require("new_password"), key: key)
        let credentials = try await accounts.changePassword(
            of: context.user,
            current: old,
            new: new,
            confirmation: nil,
            keepingSession: nil,
            askedWithToken: context.token.tokenID,
            confirmedAt: context.token.issuedAt,
            origin: context.origin
        )
        let token = try await signIn.issueToken(after: credentials, appKey: key.name, origin: context.origin)
        return try JSONResponse(body: UserJSON(credentials.user, token: token)).response(from: request, context: context)
    }

    /// An app sends the code with the password (`otp`): a sign-in still owing it is refused with
    /// `otp_required` (there is no code step to park it for).
    static func signedIn(_ outcome: SignInService.Outcome) throws -> UserCredentials {
        guard case .signedIn(let credentials) = outcome else { throw SecondFactorError.codeRequired }
        return credentials
    }

    func uploadPhoto(_ request: Request, context: APITokenContext) async throws -> Response {
        let photo = try await photos.upload(for: context.user, request: request, origin: context.origin)
        return try JSONResponse(body: json(for: photo)).response(from: request, context: context)
    }

    /// Oldest first: the app reverses the list itself. Without parameters, every photo (the
    /// railsauth answer); with `limit` and/or `before` (a `random_id`), the `limit` most recent
    /// photos before that one, still oldest first, so that a client can load a long library page
    /// by page from the newest end.
    func getPhotos(_ request: Request, context: APITokenContext) async throws -> Response {
        let fields = try await APIRequestFields.read(request, includingQuery: true)
        let before = try fields.optional("before")
        let limit = try fields.optional("limit").map { text in
            guard let limit = Int(text), Self.pageLimits.contains(limit) else {
                throw AppError(.badRequest, "limit must be a whole number from \(Self.pageLimits.lowerBound) to \(Self.pageLimits.upperBound).")
            }
            return limit
        }
        let listed: [Photo]
        if before == nil, limit == nil {
            listed = try await photos.all(for: context.user)
        } else {
            listed = try await photos.page(for: context.user, before: before, limit: limit ?? Self.pageLimits.upperBound)
        }
        return .json(listed.map(json(for:)))
    }

    static let pageLimits = 1...200

    func deletePhoto(_ request: Request, context: APITokenContext) async throws -> Response {
        let fields = try await APIRequestFields.read(request, includingQuery: true)
        try await photos.delete(try fields.require("photo_id"), of: context.user, origin: context.origin)
        return try JSONResponse(body: StatusJSON(status: 200, message: "Image deleted")).response(from: request, context: context)
    }

    /// Deletes the account (App Store guideline 5.1.1(v)): photos, blobs, sessions and tokens.
    /// `password` is AESCrypt-encrypted like every password here; an account without one (made
    /// through a provider) confirms with a token issued in the last ten minutes instead.
    func deleteAccount(_ request: Request, context: APITokenContext) async throws -> Response {
        let fields = try await APIRequestFields.read(request)
        var password = ""
        if let encrypted = try fields.optional("password") {
            guard let key = try await appKeys.key(named: context.token.appKeyName) else { throw APIError.appKeyRequired }
            password = try decryptPassword(encrypted, key: key)
        }
        do {
            try await deletion.delete(context.user, password: password, confirmedAt: context.token.issuedAt, origin: context.origin)
        } catch let problems as InvalidFields where problems[.currentPassword] == .incorrect {
            throw AppError(.unauthorized, "The password is not correct.")
        }
        context.logger.info("account deleted by its owner through the API", metadata: ["user": "\(context.user.id)"])
        return try JSONResponse(body: StatusJSON(status: 200, message: "Account deleted")).response(from: request, context: context)
    }

    /// Every original photo and `account.json`, as a ZIP streamed while it is written.
    func exportData(_ request: Request, context: APITokenContext) async throws -> Response {
        // A copy of everything is a sensitive change's kin: a token issued in the last ten minutes.
        try StepUp.require(confirmedAt: context.token.issuedAt)
        return try await .download(for: request, filename: DataExport.filename(for: context.user), contentType: "application/zip") {
            try await export.archive(of: context.user, origin: context.origin)
        }
    }

    // MARK: Document

    func serveOpenAPIDocument(_ request: Request, context: APIRequestContext) async throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/yaml; charset=utf-8", .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: ByteBuffer(string: openAPIDocument))
        )
    }

    // MARK: Helpers

    /// The photo as the app reads it. Its image is the display copy (≤ 2048 px, JPEG, upright, no
    /// metadata), never the original; a photo whose copies are still being made shows a placeholder.
    func json(for photo: Photo) -> PhotoJSON {
        let takenAt = photo.takenAt.map(APIDate.format)
        guard let display = photo.rendition(.display), let url = photos.url(of: .display, for: photo, lifetime: imageURLLifetime) else {
            return PhotoJSON(name: "", title: photo.title, randomID: photo.publicID, imageURL: placeholderURL, takenAt: takenAt)
        }
        return PhotoJSON(name: display.blobKey.value, title: photo.title, randomID: photo.publicID, imageURL: url, takenAt: takenAt)
    }

    func decryptPassword(_ ciphertext: String, key: AppKey) throws -> String {
        do {
            return try AESCrypt.decrypt(ciphertext, key: key.encryptionKey)
        } catch {
            throw APIError.undecryptablePassword
        }
    }
}

extension APIController.PhotoJSON: JSONBytesWritable {
    /// The keys in the order `.sortedKeys` puts them.
    func write(to json: inout JSONBytes) {
        json.raw(#"{"image_url":"#)
        json.string(imageURL)
        json.raw(#","name":"#)
        json.string(name)
        json.raw(#","random_id":"#)
        json.string(randomID)
        if let takenAt {
            json.raw(#","taken_at":"#)
            json.string(takenAt)
        } else {
            json.raw(#","taken_at":null"#)
        }
        json.raw(#","title":"#)
        json.string(title)
        json.raw("}")
    }

    var estimatedJSONBytes: Int { 80 + imageURL.utf8.count + name.utf8.count + randomID.utf8.count + title.utf8.count }
}

/// `authtoken_expiry`'s format: `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC.
enum APIDate {
    static func format(_ date: Date) -> String {
        let time = CivilTime(date)
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return text.count < count ? String(repeating: "0", count: count - text.count) + text : text
        }
        return digits(time.year, 4) + "-" + digits(time.month, 2) + "-" + digits(time.day, 2) + "T" + digits(time.hour, 2) + ":"
            + digits(time.minute, 2) + ":" + digits(time.second, 2) + "." + digits(time.millisecond, 3) + "Z"
    }
}
