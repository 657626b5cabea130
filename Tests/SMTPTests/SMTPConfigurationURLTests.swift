import Testing

@testable import SMTP

@Suite("SMTP URL parsing")
struct SMTPConfigurationURLTests {
    @Test("smtp:// without credentials: port 25, STARTTLS when offered")
    func plainDefaults() throws {
        let configuration = try SMTPConfiguration(url: "smtp://relay.example.com")
        #expect(configuration.host == "relay.example.com")
        #expect(configuration.port == 25)
        #expect(configuration.security == .startTLSIfOffered)
        #expect(configuration.credentials == nil)
    }

    @Test("smtp:// with credentials: port 587, STARTTLS required, user and password percent-decoded")
    func submissionDefaults() throws {
        let configuration = try SMTPConfiguration(url: "smtp://apikey%40example.com:p%3Ass%2Fw%40rd%25@smtp.example.com")
        #expect(configuration.port == 587)
        #expect(configuration.security == .startTLSRequired)
        #expect(configuration.credentials?.username == "apikey@example.com")
        #expect(configuration.credentials?.password == "p:ss/w@rd%")
    }

    @Test("an unescaped '@' in the password still parses: user info runs to the last '@'")
    func unescapedAtInPassword() throws {
        let configuration = try SMTPConfiguration(url: "smtp://user:se@cret@mail.example.com:2525")
        #expect(configuration.credentials?.password == "se@cret")
        #expect(configuration.host == "mail.example.com")
        #expect(configuration.port == 2525)
    }

    @Test("smtps:// is implicit TLS on 465; explicit ports and IPv6 literals are kept")
    func implicitTLS() throws {
        let defaultPort = try SMTPConfiguration(url: "smtps://u:p@mail.example.com")
        #expect(defaultPort.security == .implicitTLS)
        #expect(defaultPort.port == 465)
        let ipv6 = try SMTPConfiguration(url: "SMTPS://u:p@[::1]:10465/")
        #expect(ipv6.host == "::1")
        #expect(ipv6.port == 10465)
    }

    @Test("?starttls=off turns TLS off for a credential-less local sink")
    func startTLSOff() throws {
        let configuration = try SMTPConfiguration(url: "smtp://127.0.0.1:1025?starttls=off")
        #expect(configuration.security == .none)
        #expect(configuration.port == 1025)
    }

    @Test("?starttls=required: a relay that takes this server by its address (no password) is still never spoken to in clear")
    func startTLSRequired() throws {
        let configuration = try SMTPConfiguration(url: "smtp://relay.example.com?starttls=required")
        #expect(configuration.security == .startTLSRequired)
        #expect(configuration.port == 25)
        #expect(try SMTPConfiguration(url: "smtp://u:p@relay.example.com?STARTTLS=Required").security == .startTLSRequired)
    }

    @Test(
        "bad URLs are explained in a sentence naming the problem, never echoing the password",
        arguments: [
            ("http://u:hunter2@example.com", "scheme must be smtp or smtps, not 'http'"),
            ("relay.example.com", "must start with smtp://"),
            ("smtp://", "no host"),
            ("smtp://u:hunter2@", "no host"),
            ("smtp://u:hunter2@host:0", "port '0' is not a number from 1 to 65535"),
            ("smtp://u:hunter2@host:smtp", "port 'smtp' is not a number"),
            ("smtp://u:hunter2@host/inbox", "must not have a path"),
            ("smtp://u:hunter2@host?tls=yes", "unknown option 'tls'"),
            ("smtp://u:hunter2@host?starttls=off", "credentials and starttls=off"),
            ("smtps://host?starttls=off", "makes no sense with smtps"),
            ("smtps://host?starttls=required", "makes no sense with smtps"),
            ("smtp://host?starttls=yes", "starttls only accepts 'off' or 'required'"),
            ("smtp://:hunter2@host", "no user name"),
            ("smtp://user@host", "no password"),
            ("smtp://u:hunter2%zz@host", "password has an invalid %-escape"),
            ("smtp://u:hunter2@ho st", "contains characters a host name can't have"),
            ("smtp://u:hunter2@host#frag", "#fragment"),
        ]
    )
    func invalidURL(url: String, expected: String) {
        let error = #expect(throws: SMTPConfigurationError.self) {
            try SMTPConfiguration(url: url)
        }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test("descriptions of a configuration and its credentials hide the password and user name")
    func descriptionsHideSecrets() throws {
        let configuration = try SMTPConfiguration(url: "smtp://alice:hunter2@mail.example.com")
        #expect(!"\(configuration)".contains("hunter2"))
        #expect(!"\(configuration)".contains("alice"))
        #expect(!String(reflecting: configuration.credentials!).contains("hunter2"))
        #expect("\(configuration)" == "smtp://mail.example.com:587 (startTLSRequired, AUTH)")
    }
}
