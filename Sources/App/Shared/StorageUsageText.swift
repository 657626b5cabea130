import SelfieCore

/// A user's storage in words, as the account page shows it to them and the admin user page to
/// an admin: "12.4 MB of 1 GB used (1 %)", a bar, and what is in the trash.
struct StorageUsageText: Sendable {
    let summary: String
    let hasLimit: Bool
    /// 0 to 100, for the bar.
    let percent: Int
    /// Past 90 %: the page says how to make room.
    let nearlyFull: Bool
    let photos: String
    let hasTrash: Bool
    let trash: String

    init(_ usage: StorageUsage, words: Words) {
        let language = words.language
        let used = ByteCountText.describe(usage.usedBytes, in: language)
        if let quota = usage.quotaBytes, let fraction = usage.fractionUsed {
            percent = Int((fraction * 100).rounded(.down))
            summary = words("storage-used-of", ["used": .text(used), "quota": .text(ByteCountText.describe(quota, in: language)), "percent": .number(percent)])
            hasLimit = true
            nearlyFull = fraction >= 0.9
        } else {
            percent = 0
            summary = words("storage-used-no-limit", ["used": .text(used)])
            hasLimit = false
            nearlyFull = false
        }
        photos = words("photo-count", ["count": .number(usage.photos)])
        hasTrash = usage.trashedPhotos > 0
        trash = words("storage-in-trash", ["count": .number(usage.trashedPhotos), "size": .text(ByteCountText.describe(usage.trashedBytes, in: language))])
    }
}
