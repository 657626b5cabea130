import Hummingbird

/// `/` and the gallery page. The gallery is a placeholder until photos exist.
struct HomeController {
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>, signedIn: RouterGroup<SignedInContext>) {
        router.get("/") { _, context in
            Response.seeOther(context.session == nil ? "/signin" : "/gallery")
        }
        signedIn.get("/gallery", use: gallery)
    }

    struct GalleryPage: Sendable {
        let firstName: String
    }

    func gallery(_ request: Request, context: SignedInContext) async throws -> Response {
        let firstName = context.user.fullName.split(separator: " ").first.map(String.init) ?? context.user.fullName
        return try pages.render(
            "gallery",
            title: "Your gallery",
            page: GalleryPage(firstName: firstName),
            context: context,
            notice: Notice.message(from: request)
        ).response(from: request, context: context)
    }
}
