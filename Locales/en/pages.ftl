# Signing in and up, passwords, the gallery, uploads, a photo.

field-email = Email
field-password = Password
field-password-confirmation = Confirm password
field-new-password = New password
field-new-password-confirmation = Confirm new password
field-full-name = Full name
field-username = Username
field-optional = (optional)
hint-username = 5–30 letters, digits or underscores. You can sign in with it instead of your email.
hint-password = At least 8 characters.

sign-in-heading = Sign in
sign-in-identifier = Email or username
sign-in-submit = Sign in
sign-in-forgot = Forgot your password?
sign-in-passkey = Sign in with a passkey
sign-in-new-here = New to Selfie?
sign-in-create-account = Create an account
provider-continue = Continue with { $provider }

sign-up-heading = Create your account
sign-up-submit = Create account
sign-up-have-account = Already have an account?

forgot-intro = Enter the email address of your account. We will mail you a link to choose a new password; it works for one hour.
forgot-submit = Mail me a link
forgot-remembered = Remembered it?
reset-for = For { $email }. Every browser and app signed in to this account will be signed out.
reset-submit = Set new password

error-home = Go to Selfie

gallery-older-heading = Older photos
gallery-upload = Upload photos
gallery-hello = Hello, { $name }
gallery-empty = Your gallery is empty. Upload your first selfie: only you can see it.
gallery-upload-first = Upload your first selfie
gallery-older = Older photos →
gallery-newest = ← Newest photos

selection-label = Selected photos
selection-intro = Select photos to put them in an album, download or delete them.
selection-all = Select all
selection-album = Album
selection-new-album = A new album…
selection-new-album-name = New album's name
selection-add = Add to album
selection-remove = Remove from album
selection-cover = Make cover
selection-download = Download originals
selection-delete = Delete…
selection-select-photo = Select “{ $photo }”

upload-photos = Photos
upload-hint = JPEG, PNG, GIF, WebP or HEIC, up to { $size } each. You can also drop them here.
upload-caption = Caption
upload-caption-hint = Given to every photo of this upload.
upload-list = Uploads
upload-submit = Upload
upload-back = Back to your gallery

photo-preparing = This photo is being prepared.
photo-preparing-short = Preparing…
photo-navigation = Photo navigation
photo-newer = ← Newer
photo-older = Older →
photo-back-gallery = Back to your gallery
photo-back-album = Back to { $album }
photo-taken = Taken { $date }
photo-uploaded = Uploaded { $date }
photo-in-albums = In
photo-download = Download the original
photo-delete = Delete this photo…
photo-original-note = Only you can download the original: it is the file as you uploaded it, with whatever your camera wrote into it (such as where the photo was taken). Everything Selfie shows — here and through share links — is a copy without that information.
photo-delete-to-trash = It goes to the trash: gone from your gallery, albums and share links, and deleted for good after { $days } days unless you restore it.
photo-delete-for-good = It will be gone for good, and its image link will stop working.
photo-delete-yes = Yes, delete it
photo-delete-no = No, keep it
photo-from = Photo from { $date }

# Message pages: check your mail, confirm an address, a link that no longer works.
message-check-mail = Check your mail
message-sign-up-sent = We sent a message to { $email }. Open its link to confirm your address, then sign in.
message-no-mail-yet = No mail after a few minutes? Check your spam folder.
message-reset-sent = If that address belongs to a Selfie account, a link to choose a new password is on its way. It works for one hour.
message-reset-no-mail = No mail after a few minutes? Check your spam folder, or try the address you signed up with.
message-back-to-sign-in = Back to sign in
message-confirm-email = Confirm your email address
message-confirm-email-intro = Confirm that { $email } is your address, so that Selfie can reach you (to reset a forgotten password, for one).
message-confirm-email-button = Confirm { $email }
message-confirm-new-email = Confirm your new address
message-confirm-new-email-intro = Your Selfie account will use { $email } from now on: for signing in, and for mail from Selfie.
message-confirm-new-email-button = Use { $email }
message-link-dead = This link does not work any more
message-link-dead-intro = This link has expired or was already used. Nothing was changed; ask for a new one.
message-link-dead-reset = Reset links work once, for one hour.
message-link-dead-other = Links work once, and only for a while.
message-mail-new-link = Mail me a new link
message-go-to-account = Go to your account
