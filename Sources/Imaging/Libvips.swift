import CVips
import Foundation

/// Process-wide libvips set-up, done once on first use.
enum Libvips {
    /// Threads libvips may use inside one pipeline: two, so that resizing the decoded photo to its largest
    /// rendition (2560×1440 to 2048×1152 for a 14.7 MP photo: ~58 ms on one thread, ~35 on two), which
    /// nothing else runs beside, takes both cores of this machine.
    static let threadsPerPipeline: Int32 = 2

    /// libwebp effort 0…6: 2 encodes an 800 px thumbnail in ~11 ms instead of ~27 ms at the default 4,
    /// for files 7–9% larger (measured here on photo-like 800×600 images).
    static let webpEffort: Int32 = 2

    /// Swift runs a global's initialiser exactly once, thread-safely, on first access.
    private static let started: Bool = cvips_start("selfie-imaging", threadsPerPipeline) == 0

    static func start() throws(ImageError) {
        guard started else { throw .processingFailed(reason: "libvips did not start: \(takeError())") }
    }

    /// libvips objects alive now, and bytes of pixel memory it holds: both return to their resting values
    /// after every call when nothing leaks.
    static var liveObjects: Int { Int(cvips_live_object_count()) }
    static var pixelMemoryBytes: Int { cvips_tracked_bytes() }

    /// The libvips error text so far, cleared. Its buffer is shared by all threads, so text may mix
    /// between concurrent calls: use it for logs, never to decide what went wrong.
    static func takeError() -> String {
        guard let text = cvips_take_error() else { return "" }
        defer { cvips_free(text) }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
