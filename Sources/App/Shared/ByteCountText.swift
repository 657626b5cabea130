import Foundation

enum ByteCountText {
    /// "20 MB", "1.5 GB", "512 KB": sizes for people (binary multiples, as the limits are set).
    static func describe(_ bytes: Int) -> String {
        for (unit, size) in [("GB", 1 << 30), ("MB", 1 << 20)] where bytes >= size {
            return bytes % size == 0 ? "\(bytes / size) \(unit)" : String(format: "%.1f \(unit)", Double(bytes) / Double(size))
        }
        if bytes >= 1024 { return "\(bytes / 1024) KB" }
        return "\(bytes) bytes"
    }

    static func describe(_ bytes: Int64) -> String { describe(Int(bytes)) }
}
