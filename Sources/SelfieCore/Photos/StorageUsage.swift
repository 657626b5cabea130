/// What a user keeps in the store and what they may keep: originals and renditions, the trash
/// included (it is still on disk until it is purged).
public struct StorageUsage: Sendable, Equatable {
    /// Bytes of originals and renditions, trash included.
    public let usedBytes: Int64
    /// The most they may keep; nil when there is no limit.
    public let quotaBytes: Int64?
    /// Photos in the gallery (not in the trash).
    public let photos: Int
    public let trashedPhotos: Int
    public let trashedBytes: Int64

    public init(usedBytes: Int64, quotaBytes: Int64?, photos: Int, trashedPhotos: Int, trashedBytes: Int64) {
        self.usedBytes = usedBytes
        self.quotaBytes = quotaBytes
        self.photos = photos
        self.trashedPhotos = trashedPhotos
        self.trashedBytes = trashedBytes
    }

    /// What is left under the quota (never negative: an admin may lower a quota below what is
    /// kept already); nil when there is no limit.
    public var availableBytes: Int64? { quotaBytes.map { max(0, $0 - usedBytes) } }

    /// The quota and what is left under it, for an upload to check against; nil when there is no limit.
    var quotaRoom: QuotaRoom? {
        guard let quotaBytes, let availableBytes else { return nil }
        return QuotaRoom(quotaBytes: quotaBytes, availableBytes: availableBytes)
    }

    /// How much of the quota is used, 0 to 1; nil when there is no limit.
    public var fractionUsed: Double? {
        quotaBytes.map { min(1, Double(usedBytes) / Double(max($0, 1))) }
    }
}

/// What an upload may still store.
struct QuotaRoom: Sendable {
    let quotaBytes: Int64
    let availableBytes: Int64
}

/// A user's quota as stored: NULL follows the default, 0 is no limit.
public enum QuotaSetting: Sendable, Equatable {
    case followsDefault
    case unlimited
    case bytes(Int64)

    /// The column's value.
    var column: Int64? {
        switch self {
        case .followsDefault: nil
        case .unlimited: 0
        case .bytes(let bytes): bytes
        }
    }

    init(column: Int64?) {
        switch column {
        case nil: self = .followsDefault
        case 0: self = .unlimited
        case let bytes?: self = .bytes(bytes)
        }
    }

    /// The limit this setting means under `defaultBytes` (0: none); nil when there is none.
    public func effectiveBytes(default defaultBytes: Int64) -> Int64? {
        let bytes = column ?? defaultBytes
        return bytes == 0 ? nil : bytes
    }
}
