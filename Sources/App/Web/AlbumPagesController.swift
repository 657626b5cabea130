import Foundation
import Hummingbird
import SelfieCore

/// Albums in the browser: the list (and making one), an album's page with the gallery's grid and
/// selection bar, renaming and describing it, deleting it (its photos stay).
struct AlbumPagesController {
    let albums: AlbumService
    let photos: PhotoService
    let sharing: ShareLinkService
    let pages: PageRenderer

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(RouterPath(WebPath.albums), use: list)
        group.post(RouterPath(WebPath.albums), use: create)
        group.get(WebPath.albumPattern, use: show)
        group.post(WebPath.editAlbumPattern, use: edit)
        group.get(WebPath.deleteAlbumPattern, use: confirmDelete)
        group.post(WebPath.deleteAlbumPattern, use: delete)
    }

    struct AlbumsPage: Sendable {
        struct Card: Sendable {
            let href: String
            let title: String
            let count: String
            let cover: PhotoCard?
        }

        let albums: [Card]
        let isEmpty: Bool
        var error: String?
        var title = ""
    }

    func list(_ request: Request, context: SignedInContext) async throws -> Response {
        try await renderList(context: context, notice: Notice.message(from: request)).response(from: request, context: context)
    }

    private func renderList(context: SignedInContext, notice: LocalizedText?, error: String? = nil, title: String = "", status: HTTPResponse.Status = .ok)
        async throws -> HTML
    {
        let cards = try await albums.cards(for: context.user).map { card in
            AlbumsPage.Card(
                href: WebPath.album(card.album.publicID),
                title: card.album.title,
                count: pages.words(for: context)("photo-count", ["count": .number(card.album.photoCount)]),
                cover: card.cover.map { PhotoCard($0, photos: photos, words: pages.words(for: context)) }
            )
        }
        let page = AlbumsPage(albums: cards, isEmpty: cards.isEmpty, error: error, title: title)
        return try pages.render(.albums, title: "title-albums", page: page, context: context, notice: notice, status: status)
    }

    struct AlbumForm: Decodable {
        let title: String
        let description: String?
    }

    func create(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(AlbumForm.self, from: request, context: context)
        do {
            let album = try await albums.create(for: context.user, title: form.title, description: form.description ?? "")
            return .seeOther(WebPath.album(album.publicID, notice: .albumCreated))
        } catch let error as AlbumError {
            let refusal = ErrorCopy(words: pages.words(for: context)).albumError(error)
            return try await renderList(context: context, notice: nil, error: refusal.message, title: form.title, status: refusal.status)
                .response(from: request, context: context)
        }
    }

    struct AlbumPage: Sendable {
        let id: String
        let title: String
        let description: String
        let count: String
        let months: [MonthGroup]
        let isEmpty: Bool
        let olderPageURL: String?
        let isFirstPage: Bool
        let selection: SelectionBar
        let share: ShareForm
        let links: [LinkRow]
        let hasLinks: Bool
        /// Where "turn off" returns to.
        let backURL: String
        let editURL: String
        let deleteURL: String
        var error: String?
        var formTitle: String
        var formDescription: String
    }

    func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let album = try await albums.album(try context.parameters.require("id"), of: context.user)
        return try await render(album, request: request, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    private func render(
        _ album: Album,
        request: Request,
        context: SignedInContext,
        notice: LocalizedText?,
        error: String? = nil,
        form: AlbumForm? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> HTML {
        let after = try request.queryPosition("after")
        let (found, hasMore) = try await photos.page(for: context.user, album: album.id, after: after, size: PhotoPagesController.pageSize)
        let links = try await sharing.links(to: album)
        let page = AlbumPage(
            id: album.publicID,
            title: album.title,
            description: album.description,
            count: pages.words(for: context)("photo-count", ["count": .number(album.photoCount)]),
            months: MonthGroup.grouping(found, words: pages.words(for: context)) { photo in
                PhotoCard(photo, href: WebPath.photo(photo.publicID, inAlbum: album.publicID), words: pages.words(for: context)) { photos.url(of: $0.name, for: photo) }
            },
            isEmpty: found.isEmpty && after == nil,
            olderPageURL: hasMore ? found.last.map { WebPath.album(album.publicID, after: $0.position) } : nil,
            isFirstPage: after == nil,
            selection: try await SelectionBar.load(for: context.user, album: album.publicID, albums: albums),
            share: ShareForm(album: album.publicID, words: pages.words(for: context)),
            links: links.map { LinkRow($0, now: sharing.now(), words: pages.words(for: context)) },
            hasLinks: !links.isEmpty,
            backURL: WebPath.album(album.publicID),
            editURL: WebPath.editAlbum(album.publicID),
            deleteURL: WebPath.deleteAlbum(album.publicID),
            error: error,
            formTitle: form?.title ?? album.title,
            formDescription: form?.description ?? album.description
        )
        return try pages.render(.album, title: .verbatim(album.title), page: page, context: context, notice: notice, status: status)
    }

    func edit(_ request: Request, context: SignedInContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let form = try await URLEncodedFormDecoder().decode(AlbumForm.self, from: request, context: context)
        do {
            let album = try await albums.update(id, of: context.user, title: form.title, description: form.description ?? "")
            return .seeOther(WebPath.album(album.publicID, notice: .albumUpdated))
        } catch let error as AlbumError where error != .notFound {
            let refusal = ErrorCopy(words: pages.words(for: context)).albumError(error)
            let album = try await albums.album(id, of: context.user)
            return try await render(album, request: request, context: context, notice: nil, error: refusal.message, form: form, status: refusal.status)
                .response(from: request, context: context)
        }
    }

    struct DeletePage: Sendable {
        let id: String
        let title: String
        let count: String
        let deleteURL: String
        let cancelURL: String
    }

    func confirmDelete(_ request: Request, context: SignedInContext) async throws -> Response {
        let album = try await albums.album(try context.parameters.require("id"), of: context.user)
        let page = DeletePage(
            id: album.publicID,
            title: album.title,
            count: pages.words(for: context)("photo-count", ["count": .number(album.photoCount)]),
            deleteURL: WebPath.deleteAlbum(album.publicID),
            cancelURL: WebPath.album(album.publicID)
        )
        return try pages.render(.albumDelete, title: "title-delete-album", page: page, context: context).response(from: request, context: context)
    }

    func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        try await albums.delete(try context.parameters.require("id"), of: context.user, origin: context.origin(request))
        return .seeOther(WebPath.albums(notice: .albumDeleted))
    }
}

// Looked up by name rather than by reflection (see `PageRenderer.Page`): every name a card does not
// hold is looked for here too.
extension AlbumPagesController.AlbumPage: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "id": id.templateValue
        case "title": title.templateValue
        case "description": description.templateValue
        case "count": count.templateValue
        case "months": months.templateValue
        case "isEmpty": isEmpty.templateValue
        case "olderPageURL": olderPageURL.templateValue
        case "isFirstPage": isFirstPage.templateValue
        case "selection": selection.templateValue
        case "share": .reflected(share)
        case "links": .list(links)
        case "hasLinks": hasLinks.templateValue
        case "backURL": backURL.templateValue
        case "editURL": editURL.templateValue
        case "deleteURL": deleteURL.templateValue
        case "error": error.templateValue
        case "formTitle": formTitle.templateValue
        case "formDescription": formDescription.templateValue
        default: nil
        }
    }
}
