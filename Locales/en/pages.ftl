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
message-confirm-link-password = Enter your Selfie password to confirm. If you did not sign up for Selfie, ignore this page: without the password nothing changes.
message-confirm-link-sign-in = Sign in to your Selfie account in this browser to confirm. If you did not sign up for Selfie, ignore this page: nothing changes.
message-confirm-link-sign-in-button = Sign in to confirm
message-link-dead = This link does not work any more
message-link-dead-intro = This link has expired or was already used. Nothing was changed; ask for a new one.
message-link-dead-reset = Reset links work once, for one hour.
message-link-dead-other = Links work once, and only for a while.
message-mail-new-link = Mail me a new link
message-go-to-account = Go to your account

# The trash, albums, deleting a selection.
trash-intro = Deleted photos stay here for { $days } days — hidden from your gallery, albums and share links — then they are deleted for good. Restore puts them back where they were.
trash-empty = The trash is empty.
trash-selection-intro = Select photos to restore them or delete them for good.
trash-restore = Restore
trash-delete-for-good = Delete for good
trash-restore-all = Restore everything in the trash
trash-showing-latest = Showing the { $shown } most recently deleted of { $total } photos. “Restore everything” and “Empty the trash” take them all.
trash-deleted-on = Deleted { $date }
trash-gone-on = gone for good { $date }
trash-empty-it = Empty the trash…
trash-empty-warning = Every photo here is deleted for good, now. This cannot be undone.
trash-empty-confirm = Delete them all for good
albums-none = You have no albums yet. Make one here, or select photos in your gallery and choose “Add to album”.
albums-go-to-gallery = Go to your gallery
albums-new = New album
albums-make = Make the album
album-description = Description
album-all = All albums
album-empty = This album is empty. Select photos in your gallery and choose “Add to album”.
album-links = Links to this album
album-edit = Rename or describe this album
album-delete = Delete this album…
album-delete-heading = Delete “{ $album }”?
album-delete-intro = The album and its share links go. Its { $photos } stay in your gallery.
album-delete-yes = Yes, delete the album
photos-delete-to-trash = They go to the trash: gone from your gallery, every album and every share link, and deleted for good after { $days } days unless you restore them.
photos-delete-for-good = They will be gone for good — from your gallery, from every album and every share link — and their image links will stop working.
photos-delete-yes = { $count ->
    [one] Yes, delete this photo
   *[other] Yes, delete { $count } photos
}
photos-delete-no = No, keep them

# Share links: the list, a new link, the share form.
links-intro = Each link shows one album or one photo — copies without metadata, never the originals — to whoever has it, until it expires or you turn it off. To make one, open an album or a photo and choose “Share”.
links-none = No links yet.
links-shows = Shows
links-until = Works until
links-download = Download
links-views = Views
links-last-view = Last view
links-turn-off = Turn off
links-kind-album = album
links-kind-photo = photo
links-yes = Yes
links-no = No
links-allowed = Allowed
links-a-photo = A photo
links-expired-on = Expired { $date }
links-in-trash = In the trash: shows nothing until you restore the photo
links-never = Never
links-not-yet = Not yet
link-ready = Your link is ready
link-shows = It shows { $what } until { $until }.
link-shows-with-password = It shows { $what } until { $until }, to whoever also knows its password.
link-label = Link
link-copy = Copy
link-copy-now = Copy it now: Selfie keeps only a fingerprint of it, so it cannot show you this link again. You can turn it off on the page of your links.
link-back-to = Back to { $what }
share-album = Share this album
share-photo = Share this photo
share-works-for = The link works for
share-days = { $count ->
    [one] 1 day
   *[other] { $count } days
}
share-never = Never (until you turn it off)
share-password-hint = At least { $minimum } characters. Whoever opens the link must type it.
share-allow-download = Allow downloading the photos (copies without metadata)
share-copies-only = The link shows copies of the photos only: never the original files, their names, where they were taken, or your email address.
share-make = Make a link

# What a share link opens, for whoever has it.
shared-album = Shared album
shared-photo = Shared photo
shared-preview-title = Photos shared with you on Selfie
shared-wrong-password = That is not the password. Ask whoever shared the link.
shared-back-to-album = Back to the album
shared-download-all = Download all
shared-note = Shared with you on Selfie.
shared-more = More photos →
shared-password-intro = Whoever shared it with you knows it.
