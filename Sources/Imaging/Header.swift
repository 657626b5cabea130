import CVips

/// An upload's header, read and checked against the limits before any pixel is decoded.
struct Header {
    let probe: ImageProbe
    /// Whether the header carries an ICC profile (then its colours must be converted to sRGB).
    let hasICCProfile: Bool
    /// CMYK images are converted with their own profile by libvips' colourspace step.
    let isCMYK: Bool

    init(_ input: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) {
        guard let base = input.baseAddress, input.count > 0 else { throw .empty }
        guard let loader = cvips_loader_name(base, input.count),
              let family = SourceFormat(loaderName: String(cString: loader))
        else { throw .unsupportedFormat }

        guard let header = cvips_open_header(base, input.count, CVIPS_FAIL_ON_ERROR).map(VipsImageRef.init(taking:))
        else {
            _ = Libvips.takeError()
            throw Truncation.looksCutShort(input) ? .truncated : .unreadable
        }
        let storedWidth = header.width
        let storedHeight = header.height
        guard storedWidth > 0, storedHeight > 0 else { throw .unreadable }
        // libvips sizes are 32-bit, so the product cannot overflow an Int.
        guard storedWidth * storedHeight <= limits.maxPixels else { throw .tooManyPixels(max: limits.maxPixels) }
        let (long, short) = (max(storedWidth, storedHeight), min(storedWidth, storedHeight))
        guard long <= short * ImageLimits.maxAspectRatio else { throw .absurdAspectRatio }

        // EXIF orientations 5…8 include a quarter turn.
        let quarterTurn = (5...8).contains(header.intField("orientation", default: 1))
        let format: SourceFormat = family == .heic && Self.hasAVIFBrand(input) ? .avif : family
        let offset = header.stringField("exif-ifd2-OffsetTimeOriginal")
        probe = ImageProbe(
            format: format,
            width: quarterTurn ? storedHeight : storedWidth,
            height: quarterTurn ? storedWidth : storedHeight,
            frameCount: max(1, header.intField("n-pages", default: 1)),
            takenAt: CaptureTime.parse(dateTimeOriginal: header.stringField("exif-ifd2-DateTimeOriginal"), offset: offset),
            takenAtIsLocalTime: offset.flatMap(CaptureTime.offsetSeconds) == nil
        )
        hasICCProfile = header.hasField("icc-profile-data")
        isCMYK = header.isCMYK
    }
}

extension Header {
    /// HEIF files name their codec in the `ftyp` box: "avif"/"avis" for AV1, "heic"/"heix"/"mif1"/… for HEVC.
    static func hasAVIFBrand(_ input: UnsafeRawBufferPointer) -> Bool {
        guard input.count >= 12, input[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let brand = input[8..<12]
        return brand.elementsEqual("avif".utf8) || brand.elementsEqual("avis".utf8)
    }
}

extension SourceFormat {
    /// The accepted formats, by libvips loader class; anything else (SVG, PDF, TIFF, FITS, …) is refused.
    init?(loaderName: String) {
        let families: [(prefix: String, format: SourceFormat)] = [
            ("VipsForeignLoadJpeg", .jpeg),
            ("VipsForeignLoadPng", .png),
            ("VipsForeignLoadWebp", .webp),
            ("VipsForeignLoadNsgif", .gif),
            ("VipsForeignLoadGif", .gif),
            ("VipsForeignLoadHeif", .heic),
        ]
        guard let match = families.first(where: { loaderName.hasPrefix($0.prefix) }) else { return nil }
        self = match.format
    }
}
