# The installed app: the offline page, the manifest, photos shared into Selfie from another app.

title-offline = You are offline
offline-heading = You are offline
offline-text = Selfie cannot be reached from here right now. Your photos are not kept on this device: connect again to see them.
offline-retry = Try again
manifest-description = Your photos, private, on any device.
notice-share-again = Your photos did not reach Selfie. Choose them here once more, then press Upload.
js-shared-ready = { $count ->
    [one] The photo you shared is ready: add a caption if you like, then press Upload.
   *[other] The { $count } photos you shared are ready: add a caption if you like, then press Upload.
}
