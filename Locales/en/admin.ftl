# The admin pages. Reused from elsewhere: the titles (title-admin-…), account-profile,
# account-storage, account-name, account-never, account-session-facts, account-linked-methods,
# sign-in-identifier, field-password, upload-photos, photo-count, title-photo.

admin-dashboard = Dashboard

# The dashboard: a number, then what it counts (the number itself is shown beside the words).
admin-mail-not-sent = Mail is not being sent.
admin-mail-not-sent-detail = MAIL_TRANSPORT=log writes only recipients and subjects to the log, so nobody receives confirmation or reset links. Set MAIL_TRANSPORT=smtp and SMTP_URL.
admin-stat-users = { $count ->
    [one] user
   *[other] users
}
admin-stat-sessions = { $count ->
    [one] active browser session
   *[other] active browser sessions
}
admin-stat-photos = { $count ->
    [one] photo
   *[other] photos
}
admin-stat-stored = stored
admin-stat-sign-ins = { $count ->
    [one] sign-in in the last 24 hours
   *[other] sign-ins in the last 24 hours
}
admin-stat-failed-sign-ins = { $count ->
    [one] failed sign-in in the last 24 hours
   *[other] failed sign-ins in the last 24 hours
}
admin-most-storage = Most storage
admin-no-users-yet = No users yet.
admin-every-user-by-storage = Every user by storage

# Users.
admin-user = User
admin-search-label = Search by email, username or name
admin-search = Search
admin-sorted = Sorted:
admin-sort-newest = newest first
admin-sort-oldest = oldest first
admin-sort-storage = most storage first
admin-no-users-match = No users match.
admin-signed-up = Signed up
admin-last-sign-in = Last sign-in
admin-status = Status
admin-status-active = active
admin-status-disabled = disabled
admin-role = Role
admin-role-admin = admin
admin-role-user = user
admin-previous = ← Previous
admin-next = Next →

# One user.
admin-user-audit = Audit events for this user
admin-storage-counts = Originals, display copies and the trash count.
admin-quota = Quota
admin-quota-default = The default ({ $size })
admin-quota-none = No limit
admin-quota-exactly = Exactly
admin-quota-in-mb = Quota in MB
admin-quota-unit = MB
admin-quota-hint = Uploads that would pass the quota are refused; what is stored already stays.
admin-quota-save = Save quota
admin-no-limit = no limit
admin-actions = Actions
admin-no-photos = No photos.
admin-newest-photos = Showing the newest 24.
admin-albums-and-links = Albums and share links
admin-no-albums = No albums.
admin-live-links = Links that open now
admin-no-live-links = No live share links.
admin-signed-in-on = Signed in on
admin-no-sessions = No active sessions or API tokens.
admin-no-provider = No provider is linked.
admin-token = API token (app key { $key })
admin-token-facts = issued { $issued } · last used { $used } · expires { $expires }
admin-identity-facts = { $account } · linked { $linked } · last used { $used }
admin-link-album = Album “{ $title }”
admin-link-photo = Photo “{ $title }”
admin-link-untitled = untitled
admin-link-made = made { $date }
admin-link-until = until { $date }
admin-link-never-expires = never expires
admin-link-password = password
admin-link-views = { $count ->
    [one] 1 view
   *[other] { $count } views
}

# What an admin can do to an account: the link, the confirmation's question, what follows, the button.
admin-action-disable = Disable account
admin-action-enable = Enable account
admin-action-revoke-access = Sign out everywhere (sessions and API tokens)
admin-action-delete = Delete account and photos
admin-action-promote = Make admin
admin-action-demote = Remove admin role
admin-action-send-reset-link = Send a password reset link
admin-action-reset-second-factor = Reset two-step verification and passkeys
admin-action-revoke-links = Turn off every share link
admin-confirm-question = { $action }? { $user }
admin-do-disable = Yes: disable account
admin-do-enable = Yes: enable account
admin-do-revoke-access = Yes: sign out everywhere (sessions and API tokens)
admin-do-delete = Yes: delete account and photos
admin-do-promote = Yes: make admin
admin-do-demote = Yes: remove admin role
admin-do-send-reset-link = Yes: send a password reset link
admin-do-reset-second-factor = Yes: reset two-step verification and passkeys
admin-do-revoke-links = Yes: turn off every share link
admin-then-disable = They will be signed out everywhere at once and cannot sign in until enabled again.
admin-then-enable = They will be able to sign in again.
admin-then-revoke-access = Every browser session and API token of theirs ends now; they can sign in again.
admin-then-delete = { $count ->
    [one] Their account, 1 photo and every session end for good. This cannot be undone.
   *[other] Their account, { $count } photos and every session end for good. This cannot be undone.
}
admin-then-promote = They will be able to use these admin pages.
admin-then-demote = They will no longer be able to use these admin pages.
admin-then-reset-second-factor = Their authenticator app, recovery codes, remembered browsers and passkeys are removed: their password alone signs them in until they set it up again (without a password, they choose one through a reset link to their address). Do this only once you are sure it is them (they lost their phone).
admin-then-revoke-links = Every album and photo they shared stops opening for whoever has the link, at once. Their photos and albums stay; they can share again.
admin-then-send-reset-link = A link to choose a new password goes to { $address }; it works once, for one hour. Their current password keeps working until they use it.
admin-their-address = their address
admin-go-back = No, go back

# API keys.
admin-key-created = Key “{ $name }” created
admin-key-give = Give the app this name and password.
admin-key-shown-once = The password is shown only now: Selfie keeps only its hash.
admin-key-source = Source
admin-key-created-at = Created
admin-last-used = Last used
admin-key-from-environment = environment (API_AUTH_NAME)
admin-key-added-here = added here
admin-key-revoked = revoked { $date }
admin-revoke = Revoke
admin-add-key = Add a key
admin-key-name-hint = 3 to 64 letters, digits, dots, dashes or underscores, e.g. android-app.
admin-create-key = Create key
admin-revoke-question = Revoke the app key { $name }?
admin-then-revoke-key = Apps using it can no longer sign up, sign in or get tokens. Tokens already issued through it keep working for photos until they expire, but can no longer change a password.
admin-do-revoke-key = Yes: revoke { $name }

# The audit log.
admin-user-id = User id
admin-event = Event
admin-all-events = All events
admin-filter = Filter
admin-no-events = No events.
admin-when = When
admin-by = By
admin-about = About
admin-from = From
admin-older-events = Older events →
admin-user-number = user #{ $id }

# Mail.
admin-mail-pending = { $count ->
    [one] message waiting to be delivered (retried with backoff for about 9 hours before it is given up).
   *[other] messages waiting to be delivered (retried with backoff for about 9 hours before they are given up).
}
admin-mail-failed = Could not be delivered
admin-mail-all-delivered = Every message was delivered.
admin-mail-to = To
admin-mail-message = Message
admin-mail-queued = Queued
admin-mail-given-up = Given up
admin-mail-attempts = Attempts
admin-mail-last-error = Last error
admin-mail-ask-again = The people these were for can ask again (a new link) once mail works; the server log has each attempt.

# Integrity.
admin-integrity-intro = Every photo's original and renditions against the blob store: missing files, files no photo uses, and files whose bytes changed since they were stored. “selfie check” reads every file; “selfie check --repair” remakes renditions and moves unused files aside.
admin-integrity-never = No check has run yet. The light check runs every 6 hours; run “selfie check” for a full one.
admin-check-full = Full check (selfie check)
admin-check-light = Light check (every 6 hours)
admin-check-finished = Finished { $finished } in { $duration }: { $summary }.
admin-check-seconds = { $seconds } s
admin-check-blobs = { $count ->
    [one] 1 blob in the store
   *[other] { $count } blobs in the store
}
admin-check-checksums = { $count ->
    [one] 1 checksum verified
   *[other] { $count } checksums verified
}
admin-integrity-clean = Everything was in order.
admin-integrity-more = … and { $count } more: run “selfie check”.
admin-finding-photo = photo { $photo } of { $owner } (blob { $blob })
admin-finding-missing-original = missing original: { $photo }; restore it from a backup
admin-finding-missing-rendition = missing rendition { $rendition }: { $photo }
admin-finding-corrupt-original = damaged original: { $photo }: its bytes no longer match the SHA-256 recorded when it was stored
admin-finding-corrupt-rendition = damaged rendition { $rendition }: { $photo }: its bytes no longer match the SHA-256 recorded when it was stored
admin-finding-orphan = unreferenced blob { $blob }: no photo row points to it
admin-finding-moved-aside = { $finding } (moved aside)
admin-finding-remade = { $finding } (renditions remade from the original)
