import Foundation

enum ByteCountText {
    /// "20 MB", "1.5 GB", "512 KB": sizes for people (binary multiples, as the limits are set).
    /// "1,5 GB" in German and Spanish; "bytes" is the same word in all three.
    static func describe(_ bytes: Int, in language: Language = .english) -> String {
        for (unit, size) in [("GB", 1 << 30), ("MB", 1 << 20)] where bytes >= size {
            return bytes % size == 0
                ? "\(language.formatNumber(bytes / size)) \(unit)" : "\(language.formatDecimal(Double(bytes) / Double(size))) \(unit)"
        }
        if bytes >= 1024 { return "\(language.formatNumber(bytes / 1024)) KB" }
        return "\(language.formatNumber(bytes)) bytes"
    }

    static func describe(_ bytes: Int64, in language: Language = .english) -> String { describe(Int(bytes), in: language) }
}
