// A small tus 1.0 client (https://tus.io/protocols/resumable-upload): the file goes to
// /api/uploads in chunks; when the network drops, it waits (1, 2, 4 … 30 s, or until the browser
// is back online), asks the server with HEAD how much it has, and goes on from there. Where an
// upload of the same file stands is kept in localStorage, so a reloaded page resumes it too.
//
//   var upload = SelfieTus.upload(file, {
//     csrf: "…", metadata: { title: "…" },
//     onProgress: function (sent, total) {}, onWaiting: function (seconds, serverSaidWait) {},
//     onSuccess: function (photoID) {}, onError: function (message, worthRetrying) {}
//   });
//   upload.pause(); upload.resume();
(function () {
  "use strict";
  var ENDPOINT = "/api/uploads";
  // 5 MiB: under the 10 MB many proxies allow per request, and one S3 part each.
  var CHUNK = 5 * 1024 * 1024;
  var LONGEST_WAIT = 30; // seconds between attempts, at most
  var MOST_FAILURES = 24;
  var t = window.SelfieWords ? window.SelfieWords.t : function (key) { return key; };
  var NETWORK_ERROR = t("js-upload-network-error");
  var SERVER_ERROR = t("js-upload-server-error");

  function base64(text) {
    var bytes = new TextEncoder().encode(text);
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary);
  }

  function encodeMetadata(metadata) {
    return Object.keys(metadata).filter(function (key) { return metadata[key]; })
      .map(function (key) { return key + " " + base64(String(metadata[key])); }).join(",");
  }

  function fingerprint(file) {
    return "selfie-tus:" + [file.name, file.size, file.type, file.lastModified].join("/");
  }

  function remembered(file) {
    try { return localStorage.getItem(fingerprint(file)); } catch (error) { return null; }
  }

  function remember(file, location) {
    try {
      if (location) localStorage.setItem(fingerprint(file), location);
      else localStorage.removeItem(fingerprint(file));
    } catch (error) { /* private mode: resuming works within this page only */ }
  }

  function message(request) {
    try {
      var body = JSON.parse(request.responseText);
      if (body && typeof body.message === "string") return body.message;
    } catch (error) { /* not JSON */ }
    return SERVER_ERROR;
  }

  // 0 (the network), 408 (a chunk too slow to arrive), 423 (another request is on it), 429, 5xx:
  // worth another try — but not 501 or 507 (storage full), which a retry does not change: their
  // message is shown at once.
  function isPassing(status) {
    return status === 0 || status === 408 || status === 423 || status === 429 || (status >= 500 && status !== 501 && status !== 507);
  }

  function upload(file, options) {
    var location = remembered(file);
    var offset = 0;
    var request = null;
    var timer = null;
    var paused = false;
    var finished = false;
    var failures = 0; // attempts in a row that moved nothing

    function send(method, url, headers, body, done) {
      request = new XMLHttpRequest();
      var current = request;
      current.open(method, url);
      current.setRequestHeader("Tus-Resumable", "1.0.0");
      current.setRequestHeader("X-CSRF-Token", options.csrf);
      // The server words a refusal in the page's language (the apps' stay English).
      if (document.documentElement.lang) current.setRequestHeader("Accept-Language", document.documentElement.lang);
      Object.keys(headers).forEach(function (name) { current.setRequestHeader(name, headers[name]); });
      if (body) {
        current.upload.addEventListener("progress", function (event) {
          if (current === request) options.onProgress(offset + event.loaded, file.size);
        });
      }
      current.addEventListener("loadend", function () {
        if (current !== request) return; // aborted by pause
        request = null;
        done(current);
      });
      current.send(body || null);
    }

    // worthRetrying: it gave up waiting (the connection, a busy server), not a refusal of the photo.
    function fail(text, worthRetrying) {
      finished = true;
      options.onError(text, !!worthRetrying);
    }

    // Waits longer after each failure, but goes at once when the browser says it is online again.
    function retryLater(request) {
      failures++;
      // About ten minutes without moving a byte: give up, but remember where it stood. The
      // server's own words if it was the server that said no, not "check your connection".
      if (failures > MOST_FAILURES) return fail(request.status ? message(request) : NETWORK_ERROR, true);
      var seconds = Math.min(LONGEST_WAIT, Math.pow(2, failures - 1));
      var after = Number(request.getResponseHeader("Retry-After"));
      if (after > 0) seconds = Math.min(LONGEST_WAIT, Math.max(seconds, after));
      options.onWaiting(seconds, request.status !== 0);
      function again() {
        window.removeEventListener("online", again);
        clearTimeout(timer);
        timer = null;
        if (!paused && !finished) locate();
      }
      timer = setTimeout(again, seconds * 1000);
      window.addEventListener("online", again);
    }

    function create() {
      var headers = { "Upload-Length": String(file.size), "Upload-Metadata": encodeMetadata(options.metadata) };
      send("POST", ENDPOINT, headers, null, function (answer) {
        var url = answer.getResponseHeader("Location");
        if (answer.status === 201 && url) {
          location = url;
          remember(file, url);
          offset = 0;
          failures = 0;
          next();
        } else if (isPassing(answer.status)) {
          retryLater(answer);
        } else {
          fail(answer.status ? message(answer) : NETWORK_ERROR);
        }
      });
    }

    // Where the upload stands (HEAD), then on from there; a new one if the server has none.
    function locate() {
      if (!location) return create();
      send("HEAD", location, {}, null, function (answer) {
        if (answer.status === 200) {
          offset = Number(answer.getResponseHeader("Upload-Offset")) || 0;
          var photo = answer.getResponseHeader("Upload-Photo-Id");
          if (photo) return succeed(photo);
          next();
        } else if (answer.status === 404 || answer.status === 410) {
          location = null;
          remember(file, null);
          create();
        } else if (isPassing(answer.status)) {
          retryLater(answer);
        } else {
          fail(message(answer));
        }
      });
    }

    function next() {
      if (paused || finished) return;
      var end = Math.min(offset + CHUNK, file.size);
      var headers = { "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" };
      options.onProgress(offset, file.size);
      send("PATCH", location, headers, file.slice(offset, end), function (answer) {
        if (answer.status === 204) {
          var reached = Number(answer.getResponseHeader("Upload-Offset"));
          if (reached > offset) failures = 0;
          offset = reached;
          var photo = answer.getResponseHeader("Upload-Photo-Id");
          if (photo) return succeed(photo);
          next();
        } else if (answer.status === 409 || answer.status === 404 || answer.status === 410) {
          locate(); // the server stands elsewhere (or forgot): ask, then go on
        } else if (isPassing(answer.status)) {
          retryLater(answer); // the bytes that arrived are kept; HEAD will say how many
        } else {
          remember(file, null);
          fail(message(answer));
        }
      });
    }

    function succeed(photoID) {
      finished = true;
      remember(file, null);
      options.onProgress(file.size, file.size);
      options.onSuccess(photoID);
    }

    locate();
    return {
      pause: function () {
        if (finished || paused) return;
        paused = true;
        clearTimeout(timer);
        if (request) {
          var current = request;
          request = null;
          current.abort();
        }
      },
      resume: function () {
        if (finished || !paused) return;
        paused = false;
        failures = 0;
        locate();
      }
    };
  }

  window.SelfieTus = { upload: upload, chunkSize: CHUNK };
})();
