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

    init(_ usage: StorageUsage) {
        let used = ByteCountText.describe(usage.usedBytes)
        if let quota = usage.quotaBytes, let fraction = usage.fractionUsed {
            percent = Int((fraction * 100).rounded(.down))
            summary = "\(used) of \(ByteCountText.describe(quota)) used (\(percent) %)"
            hasLimit = true
            nearlyFull = fraction >= 0.9
        } else {
            percent = 0
            summary = "\(used) used, no limit"
            hasLimit = false
            nearlyFull = false
        }
        photos = usage.photos == 1 ? "1 photo" : "\(usage.photos) photos"
        hasTrash = usage.trashedPhotos > 0
        trash = "\(usage.trashedPhotos) in the trash (\(ByteCountText.describe(usage.trashedBytes)))"
    }
}
