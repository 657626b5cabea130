# Page titles: the <title> and, on most pages, the heading.

title-account = Your account
title-admin = Admin
title-admin-api-keys = API keys
title-admin-audit = Audit log
title-admin-confirm = Confirm
title-admin-integrity = Integrity
title-admin-mail = Mail
title-admin-users = Users
title-albums = Your albums
title-confirm-its-you = Confirm it's you
title-delete-album = Delete this album?
title-delete-photo = Delete this photo?
title-forgot-password = Forgot your password?
title-gallery = Your gallery
title-link-created = Your share link
title-links = Your share links
title-recovery-codes = Your recovery codes
title-reset-password = Choose a new password
title-shared-password = This link has a password
title-sign-in = Sign in
title-sign-in-code = Enter your code
title-sign-up = Create your account
title-trash = Trash
title-two-factor-setup = Set up two-step verification
title-upload = Upload a selfie
title-photo = Photo
title-delete-photos = { $count ->
    [one] Delete this photo?
   *[other] Delete these { $count } photos?
}
