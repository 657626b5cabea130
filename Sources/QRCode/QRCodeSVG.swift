extension QRCodeSymbol {
    /// Light modules kept around the symbol, as ISO/IEC 18004 requires for reliable scanning.
    public static let quietZoneModules = 4

    /// A standalone SVG document: white background, one black `<path>` made of horizontal runs of dark
    /// modules, one user unit per module, a 4-module quiet zone, `shape-rendering="crispEdges"`.
    /// `title` becomes the accessible name (`role="img"` + `<title>`) and is XML-escaped.
    /// `width`/`height` (CSS pixels) are written only when given; without them the image fills its box.
    public func svg(title: String, width: Int? = nil, height: Int? = nil) -> String {
        let side = size + 2 * Self.quietZoneModules
        var attributes = #"xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(side) \#(side)""#
        if let width { attributes += #" width="\#(max(0, width))""# }
        if let height { attributes += #" height="\#(max(0, height))""# }
        attributes += #" shape-rendering="crispEdges" role="img""#
        return """
            <svg \(attributes)><title>\(Self.escapeXML(title))</title>\
            <rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path fill="#000" d="\(pathData())"/></svg>
            """
    }

    /// `M x y h n v1 h -n z` per run: far fewer path commands than one square per module.
    private func pathData() -> String {
        var path = ""
        let offset = Self.quietZoneModules
        for row in 0..<size {
            var column = 0
            while column < size {
                guard self[row, column] else { column += 1; continue }
                let start = column
                while column < size && self[row, column] { column += 1 }
                let length = column - start
                path += "M\(start + offset) \(row + offset)h\(length)v1h-\(length)z"
            }
        }
        return path
    }

    /// Escapes markup characters and drops characters XML 1.0 forbids (so a hostile title cannot break the document).
    static func escapeXML(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
