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
    let translations: Translations

    init(directory: String, translations: Translations, publicURL: URL) throws {
        self.translations = translations
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
        /// What changed, in a sentence (`securityChange`).
        let change: String?
        /// The browser or app and the network of a new sign-in.
        let device: String?
        let network: String?
        let forgotLink: String
        let signInLink: String
        let accountLink: String
        /// The recipient's language: `<html lang>` and `{{t.key}}`.
        let language: String
        let t: Translations.Messages
    }

    func compose(_ notice: MailNotice, to recipient: MailRecipient) throws -> ComposedMail {
        let token = notice.params["token"] ?? ""
        let language = recipient.language.flatMap(Language.init(rawValue:)) ?? .english
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
            change: Self.sentence(of: notice),
            device: notice.params["userAgent"].map(UserAgentSummary.describe),
            network: notice.params["network"],
            forgotLink: publicURL + WebPath.forgotPassword,
            signInLink: publicURL + WebPath.signIn,
            accountLink: publicURL + WebPath.account,
            language: language.rawValue,
            t: translations.messages(language)
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
        case .newSignIn: "A new sign-in to your Selfie account"
        case .securityChange:
            switch notice.params["change"].flatMap(MailNotice.SecurityChange.init(rawValue:)) {
            case .twoFactorEnabled: "Two-step verification is on for your Selfie account"
            case .twoFactorDisabled: "Two-step verification was turned off for your Selfie account"
            case .recoveryCodesRegenerated: "New recovery codes for your Selfie account"
            case .passkeyAdded: "A passkey was added to your Selfie account"
            case .passkeyRemoved: "A passkey was removed from your Selfie account"
            case .providerUnlinked: "A sign-in method was unlinked from your Selfie account"
            case .twoFactorReset: "An administrator reset two-step verification on your Selfie account"
            case nil: "Your Selfie account's security settings changed"
            }
        }
    }

    /// The sentence of a `securityChange` notice.
    static func sentence(of notice: MailNotice) -> String? {
        guard notice.kind == .securityChange else { return nil }
        let name = notice.params["name"] ?? ""
        return switch notice.params["change"].flatMap(MailNotice.SecurityChange.init(rawValue:)) {
        case .twoFactorEnabled: "Two-step verification was turned on: signing in now also asks for a code from your authenticator app."
        case .twoFactorDisabled: "Two-step verification was turned off: signing in needs only your password again."
        case .recoveryCodesRegenerated: "New recovery codes were made for your account; the old ones no longer work."
        case .passkeyAdded: "A passkey (\(name)) was added to your account: it can sign in without your password."
        case .passkeyRemoved: "The passkey \(name) was removed from your account."
        case .providerUnlinked: "\(name) was unlinked from your account and can no longer sign in to it."
        case .twoFactorReset: "An administrator removed your authenticator app and passkeys: you can sign in with your password alone and set them up again."
        case nil: "A security setting of your account changed."
        }
    }
}
