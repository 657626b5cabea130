/// What the server announced in its EHLO reply, as far as this client cares.
struct ServerCapabilities: Equatable {
    var startTLS = false
    /// Upper-cased SASL mechanism names from `AUTH …` (or the old `AUTH=…` form).
    var authMechanisms: Set<String> = []

    init() {}

    init(ehloReply reply: SMTPReply) {
        // The first line is the server's name and greeting; keywords follow, one per line.
        for line in reply.lines.dropFirst() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.uppercased() }
            guard let keyword = words.first else { continue }
            if keyword == "STARTTLS" {
                self.startTLS = true
            } else if keyword == "AUTH" {
                self.authMechanisms.formUnion(words.dropFirst())
            } else if keyword.hasPrefix("AUTH=") {
                self.authMechanisms.formUnion([String(keyword.dropFirst(5))] + words.dropFirst())
            }
        }
    }
}
