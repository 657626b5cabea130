// Uploading many photos: each file goes on its own, three at a time (the most the server takes
// from one person at once), with its own progress bar, its own error, and a pause button. Files go
// through the resumable upload API (tus.js) when the browser can, so a dropped network costs
// nothing; otherwise each is one form post. Files can also be dropped on the drop zone. Without
// JavaScript the form posts one file as before.
(function () {
  "use strict";
  var form = document.getElementById("upload-form");
  var input = document.getElementById("image");
  var list = document.getElementById("upload-list");
  if (!form || !input || !list || !window.XMLHttpRequest || !window.FormData || !form.classList) return;
  var zone = document.getElementById("drop-zone");
  var summary = document.getElementById("upload-summary");
  var button = form.querySelector("button[type=submit]");
  // After a batch where the connection (or a busy server) stopped some files: send those again
  // without picking them again (on a phone, finding them in the picker is the hard part).
  var retry = document.getElementById("upload-retry");
  var csrf = form.getAttribute("data-csrf") || "";
  var maxBytes = Number(form.getAttribute("data-max-bytes")) || Infinity;
  var maxSize = form.getAttribute("data-max-size");
  var PARALLEL = 3;
  var RETRIES = 3;
  var LONGEST_WAIT = 30; // seconds, whatever Retry-After says
  // tus needs TextEncoder (metadata), Blob.slice and the script itself.
  var resumable = !!(window.SelfieTus && window.TextEncoder && window.Blob && Blob.prototype.slice);
  var t = window.SelfieWords ? window.SelfieWords.t : function (key) { return key; };
  var NETWORK_ERROR = t("js-upload-network-error");
  var SERVER_ERROR = t("js-upload-server-error");

  var items = []; // one per chosen file: { file, li, progress, status, error, sent, worthRetrying }
  var running = false;

  function formatSize(bytes) {
    if (bytes < 1024) return t("js-bytes", {count: bytes});
    if (bytes < 1024 * 1024) return Math.round(bytes / 1024) + " KB";
    return (bytes / (1024 * 1024)).toFixed(1) + " MB";
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function setStatus(item, text, state) {
    item.status.textContent = text;
    item.li.classList.toggle("is-error", state === "error");
    item.li.classList.toggle("is-done", state === "done");
  }

  // Lists the chosen files, ready to go; a file over the size limit is refused here already.
  function choose(files) {
    items = [];
    if (retry) retry.hidden = true;
    list.textContent = "";
    if (summary) summary.textContent = "";
    Array.prototype.forEach.call(files, function (file) {
      var li = element("li", "upload-item");
      var item = {
        file: file,
        li: li,
        progress: element("progress", "upload-progress"),
        status: element("span", "upload-status"),
        error: null,
        worthRetrying: false
      };
      item.progress.max = 100;
      item.progress.value = 0;
      item.progress.setAttribute("aria-label", t("js-uploading-file", {file: file.name}));
      li.appendChild(element("span", "upload-name", file.name));
      li.appendChild(element("span", "upload-size", formatSize(file.size)));
      li.appendChild(item.progress);
      li.appendChild(item.status);
      list.appendChild(li);
      if (file.size > maxBytes) {
        item.error = t("js-upload-too-large", {size: maxSize});
        setStatus(item, item.error, "error");
      } else {
        setStatus(item, t("js-upload-ready"));
      }
      items.push(item);
    });
    list.hidden = items.length === 0;
  }

  input.addEventListener("change", function () {
    input.required = true;
    choose(input.files || []);
  });

  function hasFiles(event) {
    var types = event.dataTransfer && event.dataTransfer.types;
    return !!types && Array.prototype.indexOf.call(types, "Files") !== -1;
  }

  if (zone) {
    var depth = 0; // dragenter and dragleave fire for each child the pointer crosses
    zone.addEventListener("dragenter", function (event) {
      if (!hasFiles(event) || running) return;
      event.preventDefault();
      depth++;
      zone.classList.add("is-dragover");
    });
    zone.addEventListener("dragover", function (event) {
      if (!hasFiles(event) || running) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    });
    zone.addEventListener("dragleave", function () {
      depth = Math.max(0, depth - 1);
      if (depth === 0) zone.classList.remove("is-dragover");
    });
    zone.addEventListener("drop", function (event) {
      depth = 0;
      zone.classList.remove("is-dragover");
      if (!hasFiles(event)) return;
      event.preventDefault();
      if (running) return;
      var files = event.dataTransfer.files;
      // Put them on the input too, so what it shows matches; where browsers cannot, the list
      // alone holds them and the input must not insist on a file of its own.
      try {
        var transfer = new DataTransfer();
        Array.prototype.forEach.call(files, function (file) { transfer.items.add(file); });
        input.files = transfer.files;
        input.required = true;
      } catch (error) {
        input.required = false;
      }
      choose(files);
    });
    // A drop that misses the zone would otherwise open the photo in place of this page.
    ["dragover", "drop"].forEach(function (type) {
      document.addEventListener(type, function (event) {
        if (hasFiles(event) && !zone.contains(event.target)) event.preventDefault();
      });
    });
  }

  function retryDelay(request) {
    var header = request.getResponseHeader("Retry-After");
    var seconds = Number(header);
    if (header && isNaN(seconds)) seconds = (Date.parse(header) - Date.now()) / 1000;
    if (!(seconds >= 1)) seconds = 1;
    return Math.min(seconds, LONGEST_WAIT) * 1000;
  }

  function answer(request) {
    try { return JSON.parse(request.responseText); } catch (error) { return null; }
  }

  function uploaded(item, url) {
    item.progress.value = 100;
    setStatus(item, t("js-upload-done") + " ", "done");
    // Only a path on this site becomes a link.
    if (/^\/(?!\/)/.test(url)) {
      var open = element("a", "", t("js-upload-open"));
      open.href = url;
      open.setAttribute("aria-label", t("js-upload-open-file", {file: item.file.name}));
      item.status.appendChild(open);
    }
  }

  // Sends one file through tus; calls done() once it has succeeded or failed for good. A pause
  // button stops it where it is and carries on from there.
  function sendResumable(item, fields, done) {
    var metadata = { filename: item.file.name };
    fields.forEach(function (field) {
      if (field[0] === "title") metadata.title = field[1];
      if (field[0] === "album") metadata.album_id = field[1];
    });
    var pause = element("button", "upload-pause", t("js-upload-pause"));
    pause.type = "button";
    pause.setAttribute("aria-label", t("js-upload-pause-file", {file: item.file.name}));
    var paused = false;
    function settle() {
      if (pause.parentNode) pause.parentNode.removeChild(pause);
      done();
    }
    var transfer = window.SelfieTus.upload(item.file, {
      csrf: csrf,
      metadata: metadata,
      onProgress: function (sent, total) {
        var percent = total ? Math.min(100, Math.floor((sent / total) * 100)) : 100;
        item.progress.value = percent;
        if (!paused) setStatus(item, t("js-uploading", {percent: percent}));
      },
      onWaiting: function (seconds, serverSaidWait) {
        // The connection, or the server asking to wait (busy, a limit): said as what it is.
        setStatus(item, t(serverSaidWait ? "js-upload-busy" : "js-upload-retrying", {seconds: seconds}));
      },
      onSuccess: function (photoID) {
        uploaded(item, "/photos/" + encodeURIComponent(photoID));
        settle();
      },
      onError: function (message, worthRetrying) {
        item.error = message;
        item.worthRetrying = worthRetrying;
        setStatus(item, item.error, "error");
        settle();
      }
    });
    pause.addEventListener("click", function () {
      paused = !paused;
      if (paused) {
        transfer.pause();
        setStatus(item, t("js-upload-paused", {percent: item.progress.value}));
      } else {
        transfer.resume();
        setStatus(item, t("js-uploading", {percent: item.progress.value}));
      }
      pause.textContent = paused ? t("js-upload-resume") : t("js-upload-pause");
      pause.setAttribute("aria-label", t(paused ? "js-upload-resume-file" : "js-upload-pause-file", {file: item.file.name}));
    });
    item.li.appendChild(pause);
  }

  // Sends one file as a form post; calls done() once it has succeeded or failed for good.
  function send(item, fields, retriesLeft, done) {
    var data = new FormData();
    fields.forEach(function (field) { data.append(field[0], field[1]); });
    data.append("image", item.file, item.file.name);

    var request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.setRequestHeader("Accept", "application/json");
    request.setRequestHeader("X-CSRF-Token", csrf);
    request.upload.addEventListener("progress", function (event) {
      if (!event.lengthComputable) return;
      var percent = Math.min(100, Math.round((event.loaded / event.total) * 100));
      item.progress.value = percent;
      setStatus(item, t("js-uploading", {percent: percent}));
    });
    request.addEventListener("load", function () {
      var body = answer(request);
      if (request.status >= 200 && request.status < 300 && body && typeof body.url === "string") {
        uploaded(item, body.url);
        done();
      } else if ((request.status === 429 || request.status === 503) && retriesLeft > 0) {
        item.progress.value = 0;
        setStatus(item, t("js-upload-waiting"));
        setTimeout(function () { send(item, fields, retriesLeft - 1, done); }, retryDelay(request));
      } else {
        item.error = body && typeof body.message === "string" ? body.message : SERVER_ERROR;
        item.worthRetrying = worthRetrying(item, request.status);
        setStatus(item, item.error, "error");
        done();
      }
    });
    request.addEventListener("error", function () {
      item.error = NETWORK_ERROR;
      item.worthRetrying = worthRetrying(item, 0);
      setStatus(item, item.error, "error");
      done();
    });
    setStatus(item, t("js-uploading", {percent: 0}));
    request.send(data);
  }

  // Leaving the page while photos are on their way (a swipe back, a tap on a link) would stop
  // them: the browser asks first. Only while they are: a page with the handler is kept out of
  // some browsers' back-forward cache.
  function askBeforeLeaving(event) {
    event.preventDefault();
    event.returnValue = "";
  }

  // Whether a form post that failed with `status` (0: the network) may be sent again: the server
  // asked to wait (408 too slow, 429, 503: nothing was stored), or the connection or a proxy failed
  // before the whole photo had gone (after it, the server may have stored it: a second post would
  // store it twice). A refusal of the photo itself is never offered again.
  function worthRetrying(item, status) {
    if (status === 408 || status === 429 || status === 503) return true;
    var lost = status === 0 || status === 500 || status === 502 || status === 504;
    return lost && item.progress.value < 100;
  }

  function finish() {
    running = false;
    window.removeEventListener("beforeunload", askBeforeLeaving);
    var failed = items.filter(function (item) { return item.error; }).length;
    var uploaded = items.length - failed;
    if (summary) {
      summary.textContent = t(failed ? "js-upload-summary-failed" : "js-upload-summary", {count: uploaded, failed: failed}) + " ";
      if (uploaded > 0) {
        var link = element("a", "", t("js-upload-see-gallery"));
        link.href = "/gallery";
        summary.appendChild(link);
      }
      summary.classList.toggle("has-failures", failed > 0);
    }
    var again = items.filter(function (item) { return item.worthRetrying; }).length;
    if (retry) {
      retry.textContent = t("js-upload-retry-failed", {count: again});
      retry.hidden = again === 0;
    }
    var focus = document.activeElement;
    var lostFocus = !focus || focus === document.body;
    if (button) button.disabled = false;
    input.disabled = false;
    input.value = "";
    input.required = true;
    // The button pressed had the focus when it was disabled or hidden (a browser keeps it there, or
    // drops it to the page): a keyboard user goes on from the offer to send the failed photos again
    // if there is one, else from Upload, not from the top.
    if ((lostFocus || focus === button) && retry && !retry.hidden) retry.focus();
    else if (lostFocus && button) button.focus();
    // For shared-photos.js: the photos shared into the app have been sent.
    form.dispatchEvent(new CustomEvent("selfie:uploaded", { detail: { uploaded: uploaded, failed: failed } }));
  }

  if (retry) {
    retry.addEventListener("click", function () {
      if (running) return;
      items.forEach(function (item) {
        if (!item.worthRetrying) return;
        item.error = null;
        item.worthRetrying = false;
        item.sent = false;
        item.progress.value = 0;
        setStatus(item, t("js-upload-ready"));
      });
      retry.hidden = true;
      start();
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    start();
  });

  // Sends every listed file not sent yet and not refused, with the form's caption and album.
  function start() {
    if (running) return;
    var queue = items.filter(function (item) { return !item.error && !item.sent; });
    if (!queue.length) {
      if (items.length) finish(); // every file was refused already: say so and start over
      return;
    }
    // The caption (and album) as they are now, for every file of this batch, before the file.
    var fields = [];
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name || field.disabled || /^(file|submit|button|reset)$/.test(field.type)) return;
      if ((field.type === "checkbox" || field.type === "radio") && !field.checked) return;
      fields.push([field.name, field.value]);
    });
    running = true;
    window.addEventListener("beforeunload", askBeforeLeaving);
    if (button) button.disabled = true;
    input.disabled = true;
    if (summary) summary.textContent = "";
    queue.forEach(function (item) { item.sent = true; setStatus(item, t("js-upload-waiting")); });

    var active = 0;
    function next() {
      while (active < PARALLEL && queue.length) {
        active++;
        var settled = function () {
          active--;
          if (queue.length) next();
          else if (active === 0) finish();
        };
        if (resumable) sendResumable(queue.shift(), fields, settled);
        else send(queue.shift(), fields, RETRIES, settled);
      }
    }
    next();
  }
})();
