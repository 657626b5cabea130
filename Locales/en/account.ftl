# The account page.

field-current-password = Current password
account-profile = Profile
account-name = Name
account-confirmed = Confirmed
account-not-confirmed = Not confirmed yet
account-member-since = Member since
account-no-email = none
account-unknown-address = unknown
account-never = never
account-provider-account = account { $id }
account-storage = Storage
storage-used-of = { $used } of { $quota } used ({ $percent } %)
storage-used-no-limit = { $used } used, no limit
storage-in-trash = { $count } in the trash ({ $size })
photo-count = { $count ->
    [one] 1 photo
   *[other] { $count } photos
}
account-storage-trash-counts = The trash counts until it is emptied.
account-storage-counts = Originals and their display copies count.
account-storage-nearly-full = Your storage is nearly full. Delete photos you no longer need and empty the trash to make room.
account-change-password = Change password
account-set-a-password = Set a password
account-set-password = Set password
account-no-password = You sign in with a linked provider. Set a password to sign in with your email or username too.
account-username-hint = Your account has no email: you will sign in with this username. 5–30 letters, digits or underscores.
account-new-password-hint = At least 8 characters. Your other sessions will be signed out.
account-change-email = Change email address
account-add-email = Add an email address
account-new-email = New email address
account-new-email-hint = We will mail a link to the new address. Your account keeps its current address until you open it.
account-mail-confirmation = Mail me a confirmation link
account-linked-methods = Linked sign-in methods
account-linked-on = { $account } · linked { $date }
account-unlink = Unlink
account-unlink-provider = Unlink { $provider }
account-no-provider = No provider is linked to your account.
account-set-password-first = Set a password before unlinking your only sign-in method.
account-link-provider = Link { $provider }
account-two-factor = Two-step verification
account-two-factor-intro = Signing in also asks for a code from an app on your phone, so a stolen password alone is not enough.
account-two-factor-set-up = Set up an authenticator app
account-on = On
account-two-factor-on = Signing in asks for a code from your authenticator app.
account-recovery-codes-left = { $count ->
    [one] 1 unused recovery code left.
   *[other] { $count } unused recovery codes left.
}
account-code-from-app = Code from your app
account-new-recovery-codes = Make new recovery codes
account-remembered-browsers = { $count ->
    [one] 1 browser skips the code for now.
   *[other] { $count } browsers skip the code for now.
}
account-forget-browsers = Forget remembered browsers
account-code-or-recovery = Code from your app, or a recovery code
account-two-factor-off = Turn off two-step verification
account-passkeys = Passkeys
account-passkeys-intro = A passkey signs you in with your device's fingerprint, face or screen lock instead of a password and code.
account-synced = Synced
account-passkey-dates = added { $added } · last used { $used }
account-passkey-new-name = New name for { $name }
account-rename = Rename
account-remove = Remove
account-remove-passkey = Remove passkey { $name }
account-no-passkey = You have no passkey yet.
account-add-passkey = Add a passkey
account-passkey-needs-js = Adding a passkey needs JavaScript.
account-sessions = Where you are signed in
account-this-browser = This browser
account-session-facts = IP { $address } · signed in { $signedIn } · last active { $active }
account-end-others = Sign out everywhere else
account-no-other-sessions = You are not signed in anywhere else.
account-language-and-time = Language and time
account-save-choices = Save
account-time-zone = Times are shown in the time zone { $zone }, taken from your browser (it is { $now } there now).
account-time-zone-unknown = Times are shown in UTC until your browser tells us its time zone (it does on the next page you open).
account-your-data = Your data
account-your-data-intro = A ZIP file with every photo you uploaded, as you uploaded it, and your account's details (account.json).
account-download-data = Download my data
account-delete = Delete your account
account-delete-intro = Your photos, your sessions and your account will be deleted for good. This cannot be undone.
account-delete-password = Your password, to confirm
account-delete-recent = You signed in a moment ago, which confirms it is you.
account-delete-sign-in-again = To confirm it is you, sign out and sign in again first: deleting an account without a password needs a sign-in from the last { $minutes } minutes.
account-delete-submit = Delete my account

# Two-step verification: confirm it's you, the code step, setting it up, recovery codes.
confirm-intro = This change needs proof that it is really you: your last sign-in in this browser was a while ago.
confirm-your-password = Your password
confirm-code = Code from your authenticator app, or a recovery code
confirm-submit = Confirm
confirm-no-password = Your account has no password: sign in again below to continue.
confirm-passkey = Confirm with a passkey
confirm-cancel = Cancel
recovery-first-set = Two-step verification is on. From now on, signing in asks for a code from your app.
recovery-replaced = These replace your old recovery codes, which no longer work.
recovery-intro = If you lose your phone, each of these codes signs you in once instead of a code from the app.
recovery-save-now = Save them now (print them or keep them in a password manager): they are shown only this once.
recovery-label = Recovery codes
recovery-saved = I have saved them
code-intro = Open your authenticator app and enter the 6-digit code it shows for Selfie. No phone at hand? Enter one of your recovery codes.
code-label = Code
code-remember = Don't ask again in this browser for { $days } days
code-submit = Verify
code-start-again = Start again
setup-step-app = Open an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, Aegis…) and add an account.
setup-step-scan = Scan this QR code with it:
setup-open-app = On this phone? Add it to your authenticator app
setup-cant-scan = Can't scan it? Type this key instead
setup-key-facts = Time-based, 6 digits, every 30 seconds.
setup-step-code = Enter the 6-digit code the app shows:
setup-code = Code from the app
setup-submit = Turn on two-step verification
setup-not-now = Not now
setup-qr-title = QR code to scan with your authenticator app

# A browser named from its User-Agent, on the account and admin pages (product names stay).
device-browser-on-system = { $browser } on { $system }
device-system-only = Browser on { $system }
device-unknown = Unknown browser
