import Foundation

/// Splits a SQL script into single statements.
///
/// PostgreSQL's extended query protocol (all PostgresNIO offers) runs one statement per call,
/// so a migration file is cut at top-level semicolons. Semicolons inside quotes, identifiers,
/// comments and dollar-quoted bodies (`$$ … $$`, `$fn$ … $fn$`) do not split.
enum SQLScript {
    static func statements(in script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        let chars = Array(script.unicodeScalars)
        var i = 0

        func flush() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty, !isOnlyComments(trimmed) { statements.append(trimmed) }
            current = ""
        }

        while i < chars.count {
            let c = chars[i]
            let next: Unicode.Scalar? = i + 1 < chars.count ? chars[i + 1] : nil
            switch c {
            case "-" where next == "-":
                while i < chars.count, chars[i] != "\n" {
                    current.unicodeScalars.append(chars[i])
                    i += 1
                }
                continue
            case "/" where next == "*":
                var depth = 0
                repeat {
                    if chars[i] == "/", i + 1 < chars.count, chars[i + 1] == "*" {
                        depth += 1
                        current += "/*"
                        i += 2
                    } else if chars[i] == "*", i + 1 < chars.count, chars[i + 1] == "/" {
                        depth -= 1
                        current += "*/"
                        i += 2
                    } else {
                        current.unicodeScalars.append(chars[i])
                        i += 1
                    }
                } while depth > 0 && i < chars.count
                continue
            case "'", "\"":
                current.unicodeScalars.append(c)
                i += 1
                while i < chars.count {
                    current.unicodeScalars.append(chars[i])
                    if chars[i] == c {
                        // a doubled quote is an escaped quote, not the end
                        if i + 1 < chars.count, chars[i + 1] == c {
                            current.unicodeScalars.append(chars[i + 1])
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    i += 1
                }
                continue
            case "$":
                if let tag = dollarTag(chars, at: i) {
                    current += tag
                    i += tag.unicodeScalars.count
                    let tagScalars = Array(tag.unicodeScalars)
                    while i < chars.count {
                        if chars[i] == "$", i + tagScalars.count <= chars.count,
                            Array(chars[i..<(i + tagScalars.count)]) == tagScalars
                        {
                            current += tag
                            i += tagScalars.count
                            break
                        }
                        current.unicodeScalars.append(chars[i])
                        i += 1
                    }
                    continue
                }
            case ";":
                flush()
                i += 1
                continue
            default:
                break
            }
            current.unicodeScalars.append(c)
            i += 1
        }
        flush()
        return statements
    }

    /// `$tag$` starting at `index`, if there is one (`$1` parameters are not tags).
    private static func dollarTag(_ chars: [Unicode.Scalar], at index: Int) -> String? {
        var j = index + 1
        var tag = "$"
        while j < chars.count {
            let c = chars[j]
            if c == "$" { return tag + "$" }
            guard c == "_" || c.properties.isAlphabetic || (tag.count > 1 && ("0"..."9").contains(c)) else {
                return nil
            }
            tag.unicodeScalars.append(c)
            j += 1
        }
        return nil
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return line.isEmpty || line.hasPrefix("--")
        }
    }
}
