extension SMTPConfiguration {
    /// Parses `smtp://[user:pass@]host[:port][?starttls=off]` or `smtps://[user:pass@]host[:port]`.
    ///
    /// - `smtp://` uses port 587 when credentials are given (submission, STARTTLS required),
    ///   port 25 otherwise (STARTTLS when offered).
    /// - `smtps://` uses implicit TLS on port 465.
    /// - `?starttls=off` disables TLS for a local test sink; it is refused together with credentials,
    ///   because AUTH is never sent in clear text.
    /// - User and password are percent-decoded (`%40` for `@`, `%3A` for `:`, …).
    ///
    /// Trust roots, TLS server name, EHLO name and timeouts are set on the returned value.
    public init(url: String) throws(SMTPConfigurationError) {
        guard let schemeEnd = url.firstRange(of: "://") else {
            throw SMTPConfigurationError("The SMTP URL must start with smtp:// or smtps://.")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let implicitTLS: Bool
        switch scheme {
        case "smtp": implicitTLS = false
        case "smtps": implicitTLS = true
        default:
            // Quote the scheme only when it clearly is one, so a mangled URL can't leak its password here.
            let looksLikeScheme = scheme.count <= 10 && scheme.allSatisfy { $0.isASCII && $0.isLetter }
            throw SMTPConfigurationError(
                looksLikeScheme
                    ? "The SMTP URL scheme must be smtp or smtps, not '\(scheme)'."
                    : "The SMTP URL must start with smtp:// or smtps://."
            )
        }
        var rest = Substring(url[schemeEnd.upperBound...])
        if rest.contains("#") {
            throw SMTPConfigurationError("The SMTP URL must not have a #fragment.")
        }

        var query: Substring = ""
        if let questionMark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: questionMark)...]
            rest = rest[..<questionMark]
        }
        // User info runs to the last "@", so an unescaped "@" or "/" in a password still parses.
        let userInfoEnd = rest.lastIndex(of: "@")
        let hostPart = userInfoEnd.map { rest[rest.index(after: $0)...] } ?? rest
        var authority = hostPart
        if let slash = hostPart.firstIndex(of: "/") {
            let path = hostPart[slash...]
            guard path == "/" else {
                throw SMTPConfigurationError("The SMTP URL must not have a path after the host (found '\(Self.printable(path))').")
            }
            authority = hostPart[..<slash]
        }

        let credentials = try userInfoEnd.map { end throws(SMTPConfigurationError) in
            try Self.parseCredentials(rest[..<end])
        }
        let (host, explicitPort) = try Self.parseHostAndPort(authority)
        let options = try Self.parseQuery(query)

        let security: Security
        if implicitTLS {
            if let startTLS = options.startTLS {
                throw SMTPConfigurationError("starttls=\(startTLS.rawValue) makes no sense with smtps://, which is TLS from the start.")
            }
            security = .implicitTLS
        } else if options.startTLS == .required {
            security = .startTLSRequired
        } else if options.startTLS == .off {
            if credentials != nil {
                throw SMTPConfigurationError(
                    "The SMTP URL has credentials and starttls=off: a password is never sent without TLS."
                )
            }
            security = .none
        } else {
            security = credentials == nil ? .startTLSIfOffered : .startTLSRequired
        }
        let defaultPort = implicitTLS ? 465 : (credentials == nil ? 25 : 587)
        self.init(host: host, port: explicitPort ?? defaultPort, security: security, credentials: credentials)
    }

    private static func parseCredentials(_ userInfo: Substring) throws(SMTPConfigurationError) -> Credentials {
        let rawUser: Substring
        let rawPassword: Substring
        if let colon = userInfo.firstIndex(of: ":") {
            rawUser = userInfo[..<colon]
            rawPassword = userInfo[userInfo.index(after: colon)...]
        } else {
            rawUser = userInfo
            rawPassword = ""
        }
        guard let user = PercentDecoding.decode(rawUser) else {
            throw SMTPConfigurationError("The SMTP URL user name has an invalid %-escape or is not UTF-8.")
        }
        guard let password = PercentDecoding.decode(rawPassword) else {
            throw SMTPConfigurationError("The SMTP URL password has an invalid %-escape or is not UTF-8.")
        }
        guard !user.isEmpty else {
            throw SMTPConfigurationError("The SMTP URL has an '@' but no user name before it.")
        }
        guard !password.isEmpty else {
            throw SMTPConfigurationError("The SMTP URL has a user name but no password (write user:password@host).")
        }
        return Credentials(username: user, password: password)
    }

    private static func parseHostAndPort(_ authority: Substring) throws(SMTPConfigurationError) -> (String, Int?) {
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            // IPv6 literal: [::1]:2525
            guard let close = authority.firstIndex(of: "]") else {
                throw SMTPConfigurationError("The SMTP URL has an IPv6 host without its closing ']'.")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let afterClose = authority[authority.index(after: close)...]
            if !afterClose.isEmpty {
                guard afterClose.hasPrefix(":") else {
                    throw SMTPConfigurationError("The SMTP URL has unexpected text after the IPv6 host.")
                }
                portText = afterClose.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else {
            throw SMTPConfigurationError("The SMTP URL has no host name.")
        }
        let allowed = host.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_:".unicodeScalars.contains(scalar)
        }
        guard allowed, !host.contains("%") else {
            throw SMTPConfigurationError("The SMTP URL host '\(Self.printable(host))' contains characters a host name can't have.")
        }
        var port: Int?
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value), portText.allSatisfy(\.isASCII) else {
                throw SMTPConfigurationError("The SMTP URL port '\(Self.printable(portText))' is not a number from 1 to 65535.")
            }
            port = value
        }
        return (String(host), port)
    }

    private struct QueryOptions {
        /// `starttls=off` (a local sink without TLS) or `starttls=required` (a relay that takes
        /// this server without a password, never spoken to in clear); nil: required with a
        /// password, used when offered without one.
        var startTLS: StartTLSOption?
    }

    private enum StartTLSOption: String {
        case off, required
    }

    private static func parseQuery(_ query: Substring) throws(SMTPConfigurationError) -> QueryOptions {
        var options = QueryOptions()
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].lowercased()
            let value = parts.count > 1 ? parts[1].lowercased() : ""
            switch name {
            case "starttls":
                guard let option = StartTLSOption(rawValue: value) else {
                    throw SMTPConfigurationError(
                        "The SMTP URL option starttls only accepts 'off' or 'required' (STARTTLS is otherwise required with a password, used when offered without one)."
                    )
                }
                options.startTLS = option
            default:
                throw SMTPConfigurationError("The SMTP URL has an unknown option '\(Self.printable(name))' (known: starttls=off, starttls=required).")
            }
        }
        return options
    }

    /// Text from the URL made safe to quote in an error: control characters escaped, length capped.
    private static func printable(_ text: some StringProtocol) -> String {
        let escaped = text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }.joined()
        return escaped.count > 64 ? String(escaped.prefix(64)) + "…" : escaped
    }
}

/// RFC 3986 %XX decoding of URL user-info parts.
enum PercentDecoding {
    /// The decoded UTF-8 text, or nil when an escape is malformed or the bytes are not UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
