import Foundation
import Mustache
import SelfieCore

/// Selfie's mail in words: `Templates/mail/<kind>.text.mustache` and `.html.mustache` for every
/// kind of notice, read at start-up (a missing one stops it). Values are escaped in the HTML part;
/// the text part is plain text.
struct MailTemplates: MailComposer {
    let text: MustacheLibrary
    let html: MustacheLibrary
    let publicURL: String

    init(directory: String, publicURL: URL) throws {
        MustacheContentTypes.register(ScalarHTMLEscaping(), named: ScalarHTMLEscaping.name)
        var text = MustacheLibrary()
        var html = MustacheLibrary()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
            let source = try String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)
            if file.hasSuffix(".text.mustache") {
                text.register(try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT }}" + source), named: String(file.dropLast(".text.mustache".count)))
            } else if file.hasSuffix(".html.mustache") {
                let name = String(file.dropLast(".mustache".count))  // the layout is a partial, "layout.html"
                html.register(try MustacheTemplate(string: "{{% CONTENT_TYPE: \(ScalarHTMLEscaping.name) }}" + source), named: name)
            }
        }
        let missing = MailNotice.Kind.allCases.filter { text.getTemplate(named: $0.rawValue) == nil || html.getTemplate(named: "\($0.rawValue).html") == nil }
        guard missing.isEmpty else { throw TemplateMissing(names: missing.map { "mail/\($0.rawValue)" }) }
        self.text = text
        self.html = html
        self.publicURL = publicURL.absoluteString
    }

    /// What every mail template can use.
    struct Values: Sendable {
        let subject: String
        let name: String
        let recipient: String
        /// The message's own link (confirm, reset), if it has one.
        let link: String?
        let newEmail: String?
        let providerName: String?
        let forgotLink: String
        let signInLink: String
        let accountLink: String
    }

    func compose(_ notice: MailNotice, to recipient: MailRecipient) throws -> ComposedMail {
        let token = notice.params["token"] ?? ""
        let link: String? = switch notice.kind {
        case .verifyEmail: publicURL + WebPath.verifyEmail(token: token)
        case .passwordReset: publicURL + WebPath.resetPassword(token: token)
        case .confirmNewEmail: publicURL + WebPath.confirmEmailChange(token: token)
        default: nil
        }
        let values = Values(
            subject: Self.subject(of: notice),
            name: recipient.name ?? "there",
            recipient: recipient.address,
            link: link,
            newEmail: notice.params["newEmail"],
            providerName: notice.params["providerName"],
            forgotLink: publicURL + WebPath.forgotPassword,
            signInLink: publicURL + WebPath.signIn,
            accountLink: publicURL + WebPath.account
        )
        guard let text = text.render(values, withTemplate: notice.kind.rawValue),
            let html = html.render(values, withTemplate: "\(notice.kind.rawValue).html")
        else { throw TemplateMissing(names: ["mail/\(notice.kind.rawValue)"]) }
        return ComposedMail(subject: values.subject, text: text, html: html)
    }

    static func subject(of notice: MailNotice) -> String {
        switch notice.kind {
        case .verifyEmail: "Confirm your email address for Selfie"
        case .passwordReset: "Reset your Selfie password"
        case .confirmNewEmail: "Confirm your new email address for Selfie"
        case .emailChangeRequested: "Your Selfie account is moving to a new address"
        case .emailChanged: "Your Selfie account's email address was changed"
        case .passwordChanged: "Your Selfie password was changed"
        case .providerLinked: "\(notice.params["providerName"] ?? "A provider") can now sign in to your Selfie account"
        case .accountDeleted: "Your Selfie account was deleted"
        case .signUpAttempted: "Someone tried to sign up to Selfie with your address"
        }
    }
}
