// The upload form, opened by the service worker after photos were shared into the installed app
// (/photos/new?shared=1): puts the photos it kept into the form, where upload.js lists them as
// ready, and says so. Nothing goes up until Upload is pressed. The kept copies are forgotten once
// the batch has been sent, when other files are chosen, or when the form is opened without
// ?shared=1 or after a day (the worker's rule too).
(function () {
  "use strict";
  var INBOX = "selfie-share-inbox";
  var DAY = 24 * 60 * 60 * 1000;
  var form = document.getElementById("upload-form");
  var input = document.getElementById("image");
  var summary = document.getElementById("upload-summary");
  if (!form || !input || !window.caches || !window.DataTransfer || !window.File) return;
  var t = window.SelfieWords ? window.SelfieWords.t : function (key) { return key; };
  var shared = /(?:^|[?&])shared=1(?:&|$)/.test(window.location.search);
  var placing = false;

  function forget() {
    return caches.delete(INBOX).catch(function () {});
  }

  function keptFiles(inbox) {
    return inbox.keys().then(function (keys) {
      return Promise.all(keys.map(function (key) {
        return inbox.match(key).then(function (kept) {
          if (!kept || !(Date.now() - Number(kept.headers.get("X-Selfie-Kept")) < DAY)) return null;
          var name = decodeURIComponent(kept.headers.get("X-Selfie-Name") || "photo");
          var type = kept.headers.get("Content-Type") || "";
          var modified = Number(kept.headers.get("X-Selfie-Modified")) || Date.now();
          return kept.blob().then(function (blob) {
            return new File([blob], name, { type: type === "application/octet-stream" ? "" : type, lastModified: modified });
          });
        });
      }));
    }).then(function (files) { return files.filter(Boolean); });
  }

  function place(files) {
    if (!files.length) return;
    var transfer = new DataTransfer();
    files.forEach(function (file) { transfer.items.add(file); });
    placing = true;
    input.files = transfer.files;
    input.dispatchEvent(new Event("change"));
    placing = false;
    if (summary) {
      summary.textContent = t("js-shared-ready", { count: files.length });
      summary.classList.remove("has-failures");
      summary.hidden = false;
    }
  }

  caches.has(INBOX).then(function (has) {
    if (!has) return;
    if (!shared) return forget();
    return caches.open(INBOX).then(keptFiles).then(place);
  }).catch(function () {
    // Storage unavailable: the form works as usual, the files can be chosen by hand.
  });

  input.addEventListener("change", function () {
    if (!placing) forget();
  });
  form.addEventListener("selfie:uploaded", forget);
})();
