# What a refusal says (Sources/App/Shared/ErrorCopy.swift): on pages in the viewer's language,
# through the API in English (the seed's app shows them as they are).

error-body-cut-short = The request ended before all of its body arrived.
error-storage-unavailable = Photo storage is unavailable right now. Please try again shortly.
error-storage-full = Photo storage is full right now. Please try again later.
error-status-400 = The request could not be understood.
error-status-401 = Sign in first.
error-status-403 = You do not have access to this.
error-status-404 = There is nothing at this address.
error-status-405 = This address does not accept that kind of request.
error-status-408 = The request took too long to arrive. Please try again.
error-status-413 = That is too large.
error-status-415 = That kind of file is not accepted.
error-status-429 = Too many attempts. Wait a little and try again.
error-status-503 = Selfie is unavailable for a moment. Please try again shortly.
error-status-500 = Something went wrong on our side. Please try again.
error-query-number = The { $name } parameter must be a whole number from { $minimum } to { $maximum }.
error-query-position = The { $name } parameter is not a position in the gallery. Go back to the newest photos and page from there.
error-media-none = There is no such image.
error-media-link-invalid = This image link is not valid.
error-media-link-expired = This image link has expired. Reload the page to get a fresh one.
error-media-gone = This photo no longer exists.

error-code-required = Enter the 6-digit code from your authenticator app, or one of your recovery codes.
error-code-incorrect = That code is not right, or it was already used. Enter the current code from your authenticator app, or an unused recovery code.
error-setup-code-incorrect = That code is not right. Enter the 6-digit code your app shows now (check that the phone's clock is set automatically).
error-two-factor-off = Two-step verification is not turned on for this account.
error-two-factor-on = Two-step verification is already on for this account.
error-sign-in-expired = This sign-in has expired. Please sign in again.
error-passkey-refused = The passkey could not be used. Please try again.
error-passkey-not-found = There is no such passkey on your account.
error-passkey-name = Give the passkey a name of 1 to 100 characters.
error-passkey-last-way-in = This passkey is your only way to sign in. Set a password or link a provider before removing it.

error-invalid-credentials = Invalid email or password.
error-account-disabled = This account has been disabled.
error-email-not-verified = Confirm your email address first: we have mailed a new link to { $email }. Open it, then sign in.
error-email-not-verified-no-new-link = Confirm your email address first with a link we mailed to { $email } earlier (no more can be sent today). Open it, then sign in.
error-last-administrator = You are the last administrator. Make someone else an admin before deleting your account.
error-confirm-its-you = For your safety, confirm it's you: sign in again (it has been a while), then try once more.
error-export-in-progress = A copy of your data is already being downloaded. Wait until it has finished, then try again.
error-confirm-address-first = Confirm your email address first: open the link we mailed you (your account page can send it again).
error-sign-in-to-use-link = Sign in to the account this link is for, in this browser, then use the link again.

error-field-name-missing = Enter your name.
error-field-missing = This is required.
error-field-current-password-missing = Enter your Selfie password to confirm.
error-field-too-long = Use at most { $maximum } characters.
error-field-name-characters = Use letters, spaces and punctuation only.
error-field-control-characters = Use letters, digits, spaces and symbols only (no control characters).
error-field-not-an-email = Enter an email address like name@example.com.
error-field-email-ascii = Use an address written with the letters a–z, digits and . _ - + only; for an international domain, its xn-- form.
error-field-length = Use { $minimum } to { $maximum } characters.
error-field-username-characters = Use only letters, digits and underscores (_).
error-field-password-short = Use at least { $minimum } characters.
error-field-password-long = Use at most { $maximum } bytes (about { $maximum } letters; fewer with accents or emoji).
error-field-passwords-differ = The two passwords do not match.
error-field-email-taken = An account with this email already exists. Sign in instead?
error-field-username-taken = This username is taken. Choose another.
error-field-current-password = This is not your current password.
error-field-incorrect = This is not correct.
error-field-email-unchanged = This is already your email address.
error-field-unchanged = This is the current value.
error-field-username-required = Choose a username: your account has no email, so it is what you will sign in with.
error-field-named = { $field }: { $problem }

error-too-many-sign-ins = { $minutes ->
    [one] Too many failed sign-ins for this account. Try again in a minute.
   *[other] Too many failed sign-ins for this account. Try again in { $minutes } minutes.
}
error-too-many-attempts = { $minutes ->
    [one] Too many attempts from your network. Try again in a minute.
   *[other] Too many attempts from your network. Try again in { $minutes } minutes.
}
error-too-many-of-yours = { $minutes ->
    [one] You have asked for this too often. Try again in a minute.
   *[other] You have asked for this too often. Try again in { $minutes } minutes.
}
error-too-many-link-passwords = { $minutes ->
    [one] Too many wrong passwords for this link. Try again in a minute.
   *[other] Too many wrong passwords for this link. Try again in { $minutes } minutes.
}

error-photo-not-multipart = Send the photo as multipart/form-data with an `image` part.
error-photo-malformed = The upload could not be read. Please try again.
error-photo-missing = Choose a photo to upload.
error-photo-several = Send one photo per upload.
error-photo-several-titles = Send one caption per upload.
error-photo-not-an-image = Only JPEG, PNG, GIF, WebP and HEIC photos can be uploaded.
error-photo-too-large = This photo is too large: the limit is { $limit }.
error-photo-over-quota = This photo does not fit in your storage: { $available } left of { $quota }. Delete photos you no longer need and empty the trash to make room.
error-caption-too-long = Use at most { $maximum } characters for the caption.
error-caption-characters = The caption contains characters that cannot be shown.
error-photo-not-found = There is no such photo.
error-uploads-in-progress = Too many uploads are in progress. Wait for one to finish, then try again.
error-upload-timed-out = The upload took too long to arrive. Please try again on a better connection.
error-body-timed-out = The request took too long to arrive. Please try again.
error-processing-unavailable = The photo could not be processed just now. Please try again in a moment.

error-album-not-found = There is no such album.
error-album-name-missing = Give the album a name.
error-album-name-too-long = Use at most { $maximum } characters for the album's name.
error-album-description-too-long = Use at most { $maximum } characters for the description.
error-album-characters = The name or description contains characters that cannot be shown.
error-album-cover = The cover must be one of the album's photos.
error-select-photos = Select at least one photo first.
error-select-fewer = Select at most { $maximum } photos at once.
error-too-many-albums = You have { $maximum } albums, the most one account may have. Delete one to make another.

error-link-not-found = This link does not exist, has expired or was turned off. Ask whoever shared it for a new one.
error-own-link-not-found = You have no such link: it may have been turned off already.
error-link-expiry = Choose how long the link works: 1, 7 or 30 days, or never.
error-link-target = Choose one album or one photo to share.
error-link-password-problem = The link's password: { $problem }
error-link-password-required = This link has a password. Open the link and enter it first.
error-link-wrong-password = That is not the link's password.
error-link-no-download = Whoever shared these photos did not allow downloading them.

error-image-format = This photo's format cannot be read. Use JPEG, PNG, GIF, WebP or HEIC.
error-image-unreadable = This photo could not be read: the file is damaged.
error-image-truncated = This photo is incomplete: the file was cut short. Please upload it again.
error-image-megapixels = This image has too many pixels: at most { $maximum } megapixels.
error-image-pixels = This image has too many pixels: at most { $maximum } pixels.
error-image-aspect = This image is too narrow or too tall to show (more than 20 to 1).

error-provider-not-configured = Signing in with "{ $provider }" is not available here.
error-provider-unavailable = { $provider } could not be reached to check your sign-in. Try again in a moment.
error-provider-refused = { $provider } sign-in refused: { $reason }.
error-social-registered = This { $provider } account is already registered. Sign in instead.
error-social-not-registered = No Selfie account is linked to this { $provider } account. Register first.
error-social-email-in-use = An account with the email { $email } already exists. Sign in to it with your password, then link { $provider } from your account page.
error-social-linked-elsewhere = This { $provider } account is already linked to another Selfie account.
error-social-not-linked = This sign-in method is not linked to your account.
error-social-last-way-in = This is the only way you can sign in. Set a password first, then unlink it.
error-social-flow-expired = This sign-in has expired or was already used. Please start again.

error-admin-last-admin = This is the last administrator. Make someone else an admin first.
error-admin-unconfirmed-address = This account has not confirmed its address, so it cannot be made an admin: anyone can sign up with an address that is not theirs. It must open the confirmation link first.
error-admin-no-such-user = There is no such user (any more).
error-admin-key-name = Use 3 to 64 letters, digits, dots, dashes or underscores for the name.
error-admin-key-reserved = That name belongs to the key from the environment.
error-admin-key-taken = An app key with this name already exists.
error-admin-quota = Enter the quota as a whole number of MB, at least 1.
error-admin-no-such-key = There is no active app key with this name (the environment's key cannot be revoked here).

# The pages' own refusals (Refusal in Sources/App/Shared/AppError.swift).
error-csrf = This form has expired or did not come from Selfie. Go back, reload the page and try again.
error-sign-in-incorrect = The email, username or password is incorrect.
error-passkey-sign-in = This passkey could not sign you in. Try again, or sign in with your password.
error-address-taken-meanwhile = Another account took this address in the meantime, so yours keeps its current address.
error-selection-album-name = Give the new album a name, or choose one of your albums.
error-selection-remove-needs-album = Removing photos needs the album they are in.
error-selection-cover-needs-album = A cover needs the album it is for.
error-selection-one-cover = Select just one photo to make it the album's cover.
error-selection-action = Choose what to do with the selected photos.
error-trash-action = Choose whether to restore the selected photos or delete them for good.
error-provider-flow-browser = This sign-in was not started in this browser, or it has expired. Please start again.
error-provider-link-account = Sign in to the account you were linking, then try again.
error-preferences = Choose a language or colours from the lists.
error-too-many-links-today = We have already sent several links today. Use one of them, or try again tomorrow.
error-admins-only = This page is for administrators.
error-admin-quota-choice = Choose the default quota, no limit, or a number of MB.
error-admin-is-last-admin = { $user } is the last administrator. Make someone else an admin first.
error-admin-reset-last-way-in = Passkeys are the only way to sign in to { $user }, and it has no email address for a reset link: removing them would lock the account for good. It keeps them; disable the account if a passkey was stolen.
error-admin-no-user = There is no such user.
