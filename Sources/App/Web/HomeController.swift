import Hummingbird

/// `/`: the gallery for a signed-in user, the sign-in page for everyone else.
struct HomeController {
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/") { _, context in
            Response.seeOther(context.session == nil ? "/signin" : "/gallery")
        }
    }
}
