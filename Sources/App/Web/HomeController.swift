import Hummingbird

/// `/`: the gallery for a signed-in user, the sign-in page for everyone else; and the page every
/// other browser address that matches no route gets (a 404 inside the site's layout).
struct HomeController {
    func addRoutes(to pages: RouterGroup<WebRequestContext>) {
        pages.get(RouterPath(WebPath.home)) { _, context in
            Response.seeOther(context.session == nil ? WebPath.signIn : WebPath.gallery)
        }
        for method in HTTPRequest.Method.routable {
            pages.on("**", method: method) { _, _ -> Response in throw Refusal(.notFound, "error-status-404") }
        }
    }
}

extension HTTPRequest.Method {
    /// The methods a catch-all route answers for.
    static let routable: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .options]
}
