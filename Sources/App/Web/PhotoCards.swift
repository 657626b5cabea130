import Foundation
import SelfieCore

/// A photo as pages show it — the owner's pages and shared ones alike: never its original, only
/// renditions (upright, without metadata), at the URLs the page gives. A photo stored before
/// renditions existed shows a placeholder until they are made.
///
/// A class: a grid puts each card on the renderer's stack and looks a dozen names up in it, and
/// a struct of a dozen strings was copied (each string retained) every time it was boxed.
final class PhotoCard: Sendable {
    final class Image: Sendable {
        let url: String
        let width: Int
        let height: Int

        init(url: String, width: Int, height: Int) {
            self.url = url
            self.width = width
            self.height = height
        }
    }

    let id: String
    /// Its page (`/photos/<id>`, or the shared page's).
    let href: String
    /// The caption, "" without one. (Never nil: a missing value would make Mustache show the
    /// page's title in its place.)
    let title: String
    /// An empty string still opens a Mustache section: pages ask this instead.
    let hasTitle: Bool
    /// When it was taken, else when it was uploaded: what the grid shows.
    let date: String
    let takenDate: String?
    let uploadedDate: String
    let altText: String
    /// The grid's image (400 px) and the larger one for dense screens (800 px).
    let thumbnail: Image?
    let srcset: String?
    /// The photo page's image (≤ 2048 px), with the 800 px copy for small screens.
    let display: Image?
    let displaySrcset: String?
    let isPreparing: Bool

    /// - Parameter imageURL: the URL of one of the photo's renditions (signed media, or a share
    ///   link's image route); nil when it cannot be shown.
    init(_ photo: Photo, href: String, words: Words, imageURL: (PhotoRendition) -> String?) {
        self.id = photo.publicID
        self.href = href
        self.title = photo.title
        self.hasTitle = !photo.title.isEmpty
        // The date shown is one of the other two: each is formatted once.
        let uploaded = words.time(photo.createdAt)
        let taken = words.viewer.takenTime(of: photo)
        let shown = taken ?? uploaded
        self.date = shown
        self.takenDate = taken
        self.uploadedDate = uploaded
        self.altText = photo.title.isEmpty ? words("photo-from", ["date": .text(shown)]) : photo.title
        func image(_ name: RenditionName) -> Image? {
            guard let rendition = photo.rendition(name), let url = imageURL(rendition) else { return nil }
            return Image(url: url, width: rendition.width, height: rendition.height)
        }
        self.thumbnail = image(.thumbnail400)
        let dense = image(.thumbnail800)
        let display = image(.display)
        self.display = display
        let sizes = [thumbnail, dense].compactMap { $0 }
        self.srcset = sizes.isEmpty ? nil : sizes.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
        let large = [dense, display].compactMap { $0 }
        self.displaySrcset = large.count < 2 ? nil : large.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
        self.isPreparing = photo.renditions.isEmpty
    }

    /// The owner's card: their photo's page, signed media URLs.
    convenience init(_ photo: Photo, photos: PhotoService, words: Words) {
        self.init(photo, href: WebPath.photo(photo.publicID), words: words) { photos.url(of: $0.name, for: photo) }
    }
}

/// The photos of one month, as the gallery and albums group them ("May 2019").
struct MonthGroup: Sendable {
    /// `2019-05`: the heading's id.
    let id: String
    let label: String
    let photos: [PhotoCard]

    /// Consecutive photos of the same month (in the viewer's zone, or as the camera wrote it: see
    /// `Viewer.shownParts`) together, in the order given.
    static func grouping(_ photos: [Photo], words: Words, card: (Photo) -> PhotoCard) -> [MonthGroup] {
        var groups: [(key: (Int, Int), cards: [PhotoCard])] = []
        for photo in photos {
            let parts = words.viewer.shownParts(of: photo)
            let key = (parts.year, parts.month)
            if let last = groups.last, last.key == key {
                groups[groups.count - 1].cards.append(card(photo))
            } else {
                groups.append((key, [card(photo)]))
            }
        }
        return groups.map { group in
            let (year, month) = group.key
            return MonthGroup(
                id: "month-\(year)-\(month < 10 ? "0" : "")\(month)",
                label: "\(words.language.monthNames[month - 1].capitalizedFirst) \(year)",
                photos: group.cards
            )
        }
    }
}

extension Viewer {
    /// A photo's capture time: as its camera wrote it when it wrote no zone (no zone to move it from
    /// or to name: `Photo.takenAtIsLocalTime`), else in the viewer's zone like any other time.
    func takenTime(of photo: Photo) -> String? {
        guard let takenAt = photo.takenAt else { return nil }
        return photo.takenAtIsLocalTime ? format(CivilTime(takenAt), zone: "") : time(takenAt)
    }

    /// The date and wall-clock time under which a photo is shown (its month's heading): the capture
    /// time as `takenTime` reads it, else the upload's in the viewer's zone.
    func shownParts(of photo: Photo) -> CivilTime {
        photo.takenAt != nil && photo.takenAtIsLocalTime ? CivilTime(photo.shownAt) : CivilTime(photo.shownAt, in: timeZone)
    }
}

extension String {
    /// "noviembre" → "Noviembre": a month name opening a heading.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// The selection bar above a grid (the gallery's, an album's): the albums photos can be put in,
/// and the album the grid shows (on an album's page).
struct SelectionBar: Sendable {
    struct Choice: Sendable {
        let id: String
        let title: String
    }

    let albums: [Choice]
    let albumID: String?

    static func load(for user: User, album: String?, albums: AlbumService) async throws -> SelectionBar {
        SelectionBar(albums: try await albums.names(for: user).map { Choice(id: $0.publicID, title: $0.title) }, albumID: album)
    }
}

// Looked up by name rather than by reflection (see `PageRenderer.Page`): a grid renders 24 cards.

extension PhotoCard: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "id": id.templateValue
        case "href": href.templateValue
        case "title": title.templateValue
        case "hasTitle": hasTitle.templateValue
        case "date": date.templateValue
        case "takenDate": takenDate.templateValue
        case "uploadedDate": uploadedDate.templateValue
        case "altText": altText.templateValue
        case "thumbnail": thumbnail.templateValue
        case "srcset": srcset.templateValue
        case "display": display.templateValue
        case "displaySrcset": displaySrcset.templateValue
        case "isPreparing": isPreparing.templateValue
        default: nil
        }
    }
}

extension PhotoCard.Image: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "url": url.templateValue
        case "width": width.templateValue
        case "height": height.templateValue
        default: nil
        }
    }
}

extension MonthGroup: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "id": id.templateValue
        case "label": label.templateValue
        case "photos": photos.templateValue
        default: nil
        }
    }
}

extension SelectionBar: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "albums": albums.templateValue
        case "albumID": albumID.templateValue
        default: nil
        }
    }
}

extension SelectionBar.Choice: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "id": id.templateValue
        case "title": title.templateValue
        default: nil
        }
    }
}
