// Upload with a progress bar. Without JavaScript the form posts normally; this only adds progress.
(function () {
  "use strict";
  var form = document.getElementById("upload-form");
  if (!form || !window.XMLHttpRequest || !window.FormData) return;
  var progress = document.getElementById("upload-progress");
  var bar = document.getElementById("upload-progress-bar");
  var button = form.querySelector("button[type=submit]");

  form.addEventListener("submit", function (event) {
    if (!form.checkValidity()) return;
    event.preventDefault();
    var request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.setRequestHeader("X-CSRF-Token", form.getAttribute("data-csrf"));
    request.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      var percent = Math.round((e.loaded / e.total) * 100);
      bar.value = percent;
      bar.textContent = percent + "%";
    });
    request.addEventListener("load", function () {
      if (request.status >= 200 && request.status < 300) {
        // The server redirected to the gallery; show where it went.
        window.location.assign(request.responseURL || "/gallery");
      } else {
        // The server answered with the form and its error: show that page.
        document.open();
        document.write(request.responseText);
        document.close();
      }
    });
    request.addEventListener("error", function () {
      progress.hidden = true;
      button.disabled = false;
      window.alert("The upload failed. Check your connection and try again.");
    });
    progress.hidden = false;
    button.disabled = true;
    request.send(new FormData(form));
  });
})();
