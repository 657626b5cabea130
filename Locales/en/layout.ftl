# The layout around every page: navigation, the confirmation banner, the footer's choices.

nav-label = Main
nav-skip = Skip to content
nav-gallery = Gallery
nav-albums = Albums
nav-links = Links
nav-trash = Trash
nav-admin = Admin
nav-sign-out = Sign out
nav-sign-in = Sign in
nav-sign-up = Sign up
banner-confirm-email = Confirm your email address with the link we sent to:
banner-send-again = Send it again
footer-language = Language
footer-theme = Colours
footer-apply = Apply
theme-system = Like my device
theme-light = Light
theme-dark = Dark

# Error pages: the heading by status code (the message comes from the error).
status-400 = Bad request
status-401 = Permission needed
status-403 = Not allowed
status-404 = Not found
status-405 = Not allowed here
status-408 = Too slow
status-409 = Conflict
status-410 = Gone
status-413 = Too large
status-415 = Not a supported type
status-416 = Out of range
status-422 = Please check what you entered
status-429 = Too many tries
status-500 = Something went wrong
status-503 = Unavailable for a moment
status-507 = Storage full
