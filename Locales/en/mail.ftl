# Mail: subjects, the words of both parts and the layout's footer (Templates/mail/).
# A message ending in -text is for the plain-text part only, one ending in -html for the HTML part
# only: there <strong>…</strong> and <a href="{ $someLink }">…</a> are the only markup allowed;
# the words and every value are escaped. Other messages are used by both parts.

mail-greeting = Hello { $name },
mail-greeting-no-name = Hello there,
mail-or-open-link = Or open this link: { $link }
mail-footer = This message was sent to { $recipient } by Selfie. It is about your account; you cannot unsubscribe from it.

# The browser or app of a new sign-in, from its User-Agent (product names stay as they are), as
# it stands in mail-new-sign-in-intro: "signed in to from Chrome on Linux".
mail-device-browser-on-system = { $browser } on { $system }
mail-device-system-only = Browser on { $system }
mail-device-unknown = Unknown browser

mail-verify-email-subject = Confirm your email address for Selfie
mail-verify-email-ask-text = please confirm that this is your email address for Selfie by opening this link:
mail-verify-email-ask = please confirm that this is your email address for Selfie.
mail-verify-email-button = Confirm my address
mail-verify-email-expiry = The link works for 48 hours, once. If you did not create a Selfie account, you can ignore this message.

mail-password-reset-subject = Reset your Selfie password
mail-password-reset-intro = someone — hopefully you — asked to reset the password of your Selfie account.
mail-password-reset-intro-text = someone — hopefully you — asked to reset the password of your Selfie account. Choose a new password here:
mail-password-reset-button = Choose a new password
mail-password-reset-expiry = The link works for one hour, once. Setting a new password signs you out everywhere. If you did not ask for this, ignore this message: your password stays as it is.

mail-confirm-new-email-subject = Confirm your new email address for Selfie
mail-confirm-new-email-ask-text = please confirm that { $newEmail } should become the email address of your Selfie account:
mail-confirm-new-email-ask-html = please confirm that <strong>{ $newEmail }</strong> should become the email address of your Selfie account.
mail-confirm-new-email-button = Use this address
mail-confirm-new-email-expiry = The link works for 24 hours, once. Until you open it, your account keeps its current address. If you did not ask for this, ignore this message.

mail-email-change-requested-subject = Your Selfie account is moving to a new address
mail-email-change-requested-intro-text = someone signed in to your Selfie account asked to move it to the address { $newEmail }. Your account keeps this address until the new one is confirmed.
mail-email-change-requested-intro-html = someone signed in to your Selfie account asked to move it to the address <strong>{ $newEmail }</strong>. Your account keeps this address until the new one is confirmed.
mail-email-change-requested-not-you-text = If this was not you, change your password now: { $forgotLink }
mail-email-change-requested-not-you-html = If this was not you, <a href="{ $forgotLink }">change your password now</a>.

mail-email-changed-subject = Your Selfie account's email address was changed
mail-email-changed-intro-text = your Selfie account now uses the address { $newEmail }. This address ({ $recipient }) no longer signs in to it.
mail-email-changed-intro-html = your Selfie account now uses the address <strong>{ $newEmail }</strong>. This address ({ $recipient }) no longer signs in to it.
mail-email-changed-not-you-text = If this was not you, someone else can now sign in to your account, and a password reset would go to their address: contact the people who run this Selfie at once, so that they can lock the account.
mail-email-changed-not-you-html = If this was not you, someone else can now sign in to your account, and a password reset would go to their address: contact the people who run this Selfie at once, so that they can lock the account.

mail-password-changed-subject = Your Selfie password was changed
mail-password-changed-intro = the password of your Selfie account was just changed, and your other sessions were signed out.
mail-password-changed-not-you-text = If this was not you, reset your password now: { $forgotLink }
mail-password-changed-not-you-html = If this was not you, <a href="{ $forgotLink }">reset your password now</a>.

mail-provider-linked-subject = { $provider } can now sign in to your Selfie account
mail-provider-linked-intro-text = { $provider } can now be used to sign in to your Selfie account.
mail-provider-linked-intro-html = <strong>{ $provider }</strong> can now be used to sign in to your Selfie account.
mail-provider-linked-not-you-text = If this was not you, sign in and unlink it from your account page ({ $accountLink }), and change your password.
mail-provider-linked-not-you-html = If this was not you, sign in and unlink it from <a href="{ $accountLink }">your account page</a>, and change your password.

mail-account-deleted-subject = Your Selfie account was deleted
mail-account-deleted-intro = your Selfie account and all of its photos have been deleted, as you asked. Goodbye, and thank you for using Selfie.
mail-account-deleted-not-you = If you did not ask for this, contact the people who run this Selfie.

mail-sign-up-attempted-subject = Someone tried to sign up to Selfie with your address
mail-sign-up-attempted-intro = someone just tried to create a new Selfie account with this address. You already have one.
mail-sign-up-attempted-you-text = If it was you: sign in at { $signInLink }, or choose a new password at { $forgotLink } if you forgot it.
mail-sign-up-attempted-you-html = If it was you: <a href="{ $signInLink }">sign in</a>, or <a href="{ $forgotLink }">choose a new password</a> if you forgot it.
mail-sign-up-attempted-not-you = If it was not you, you can ignore this message: nothing was changed.

mail-new-sign-in-subject = A new sign-in to your Selfie account
mail-new-sign-in-intro-text = Your Selfie account was just signed in to from { $device }, on a network it has not used before ({ $network }).
mail-new-sign-in-intro-html = Your Selfie account was just signed in to from <strong>{ $device }</strong>, on a network it has not used before ({ $network }).
mail-new-sign-in-not-you-text = If this was you, there is nothing to do. If not, open your account page ({ $sessionsLink }), sign out the other sessions and change your password.
mail-new-sign-in-not-you-html = If this was you, there is nothing to do. If not, open <a href="{ $sessionsLink }">your account page</a>, sign out the other sessions and change your password.

# Security changes: a subject and a sentence each; { $name } is the passkey's or provider's name.
mail-security-change-not-you-text = If this was not you, sign in, check your account page ({ $accountLink }), change your password and sign out everywhere.
mail-security-change-not-you-html = If this was not you, sign in, check <a href="{ $accountLink }">your account page</a>, change your password and sign out everywhere.
mail-security-two-factor-enabled-subject = Two-step verification is on for your Selfie account
mail-security-two-factor-enabled = Two-step verification was turned on: signing in now also asks for a code from your authenticator app.
mail-security-two-factor-disabled-subject = Two-step verification was turned off for your Selfie account
mail-security-two-factor-disabled = Two-step verification was turned off: signing in needs only your password again.
mail-security-recovery-codes-regenerated-subject = New recovery codes for your Selfie account
mail-security-recovery-codes-regenerated = New recovery codes were made for your account; the old ones no longer work.
mail-security-passkey-added-subject = A passkey was added to your Selfie account
mail-security-passkey-added = A passkey ({ $name }) was added to your account: it can sign in without your password.
mail-security-passkey-removed-subject = A passkey was removed from your Selfie account
mail-security-passkey-removed = The passkey { $name } was removed from your account.
mail-security-provider-unlinked-subject = A sign-in method was unlinked from your Selfie account
mail-security-provider-unlinked = { $name } was unlinked from your account and can no longer sign in to it.
mail-security-two-factor-reset-subject = An administrator reset two-step verification on your Selfie account
mail-security-two-factor-reset = An administrator removed your authenticator app and passkeys: you can sign in with your password alone and set them up again. No password yet? Choose one with “Forgot your password?” on the sign-in page: the link goes to this address.
mail-security-unknown-subject = Your Selfie account's security settings changed
mail-security-unknown = A security setting of your account changed.
