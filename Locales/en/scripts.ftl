# Words the page scripts write (Public/assets/js): each key starts with js-; placeholders are
# filled in by the script.

js-upload-network-error = The upload failed. Check your connection and try again.
js-upload-server-error = The upload failed. Reload the page and try again.
js-uploading-file = Uploading { $file }
js-upload-too-large = This photo is larger than { $size }.
js-upload-ready = Ready
js-upload-done = Uploaded
js-upload-open = Open
js-upload-open-file = Open { $file }
js-upload-pause = Pause
js-upload-pause-file = Pause { $file }
js-upload-resume = Resume
js-upload-resume-file = Resume { $file }
js-uploading = Uploading { $percent } %
js-upload-retrying = Connection lost: trying again in { $seconds } s
js-upload-busy = Selfie is busy: trying again in { $seconds } s
js-upload-paused = Paused at { $percent } %
js-upload-waiting = Waiting
js-upload-see-gallery = See them in your gallery
js-upload-summary = { $count ->
    [one] 1 photo uploaded.
   *[other] { $count } photos uploaded.
}
js-upload-summary-failed = { $count ->
    [one] 1 photo uploaded, { $failed } failed.
   *[other] { $count } photos uploaded, { $failed } failed.
}
js-upload-retry-failed = { $count ->
    [one] Send the failed photo again
   *[other] Send the { $count } failed photos again
}
js-bytes = { $count } bytes
js-photos-selected = { $count ->
    [one] 1 photo selected
   *[other] { $count } photos selected
}
js-clear-selection = Clear selection
js-select-all = Select all
js-album-needs-name = Give the new album a name.
js-passkey-creating = Follow your browser's instructions to create the passkey…
js-passkey-not-added = The passkey was not added. You can try again.
js-passkey-using = Follow your browser's instructions to use your passkey…
js-passkey-failed = That did not work. Try again, or sign in with your password.
js-copied = Copied
