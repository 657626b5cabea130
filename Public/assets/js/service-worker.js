// Selfie's service worker, served at /sw.js (scope /) after the line the server writes, SELFIE:
// { version, precache, offline, shareTarget, sharedFilesField, sharedPhotosPage, shareAgainPage }.
//
// What it keeps, and nothing else: the fingerprinted static files (their bytes never change), and
// the offline page, which is the same for everyone. Pages go to the network first and fall back to
// the offline page when it cannot be reached; they are never stored. Photos (/media), the API,
// uploads and every other request are not touched at all: the browser handles them as if there
// were no worker.
//
// Photos shared into the installed app arrive as a POST to SELFIE.shareTarget. The worker keeps
// the files in the "selfie-share-inbox" cache (on this device only, until they are uploaded, other
// files are chosen, or a day has passed) and sends the browser to the upload form, whose script
// (shared-photos.js) puts them into the form. Nothing is uploaded until the person presses Upload,
// through the form's usual CSRF-protected path.
"use strict";

var STATIC_CACHE = "selfie-static-" + SELFIE.version;
var STATIC_PREFIX = "selfie-static-";
var INBOX = "selfie-share-inbox";
var INBOX_PREFIX = "/share-inbox/";
var INBOX_LIFETIME = 24 * 60 * 60 * 1000;
// /assets/…/name.<16 hex digits>.ext: a fingerprinted file, immutable.
var FINGERPRINTED = /^\/assets\/.*\.[0-9a-f]{16}(\.[A-Za-z0-9]+)?$/;

self.addEventListener("install", function (event) {
  event.waitUntil((async function () {
    var cache = await caches.open(STATIC_CACHE);
    await cache.addAll(SELFIE.precache);
    // The route reads no session, only the language and theme the browser chose: what is
    // stored holds nobody's data.
    var offline = await fetch(SELFIE.offline, { cache: "no-store" });
    if (!offline.ok) throw new Error("offline page: " + offline.status);
    await cache.put(SELFIE.offline, offline);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", function (event) {
  event.waitUntil((async function () {
    var names = await caches.keys();
    await Promise.all(names
      .filter(function (name) { return name.indexOf(STATIC_PREFIX) === 0 && name !== STATIC_CACHE; })
      .map(function (name) { return caches.delete(name); }));
    await forgetStaleShares();
    // Pages start loading while the worker wakes up.
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && url.pathname === SELFIE.shareTarget) {
    event.respondWith(receiveShare(request));
    return;
  }
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(event));
    event.waitUntil(forgetStaleShares());
    return;
  }
  if (url.search === "" && FINGERPRINTED.test(url.pathname)) {
    event.respondWith(staticFile(request));
  }
  // Anything else: not answered here, so the browser fetches it as usual and nothing is stored.
});

// Network first; the offline page when the network cannot answer at all (an error status is an
// answer, and is shown as it is). The page itself is never stored.
async function navigate(event) {
  try {
    var preloaded = await event.preloadResponse;
    if (preloaded) return preloaded;
    return await fetch(event.request);
  } catch (error) {
    var offline = await caches.match(SELFIE.offline, { cacheName: STATIC_CACHE });
    return offline || Response.error();
  }
}

// A fingerprinted static file: from the cache, else fetched and kept (its bytes never change).
async function staticFile(request) {
  var cache = await caches.open(STATIC_CACHE);
  var kept = await cache.match(request);
  if (kept) return kept;
  var response = await fetch(request);
  if (response.ok && response.type === "basic") await cache.put(request, response.clone());
  return response;
}

// The share sheet's POST: keeps its photos in the inbox (replacing any earlier share) and sends
// the browser to the upload form. If they cannot be kept, the form asks to choose them again.
async function receiveShare(request) {
  try {
    var form = await request.formData();
    var files = form.getAll(SELFIE.sharedFilesField).filter(function (file) {
      return typeof file === "object" && file.size > 0;
    });
    var inbox = await caches.open(INBOX);
    await emptyInbox(inbox);
    var now = Date.now();
    await Promise.all(files.map(function (file, index) {
      var headers = {
        "Content-Type": file.type || "application/octet-stream",
        "X-Selfie-Name": encodeURIComponent(file.name || "photo"),
        "X-Selfie-Modified": String(file.lastModified || now),
        "X-Selfie-Kept": String(now)
      };
      return inbox.put(new Request(INBOX_PREFIX + now + "/" + index), new Response(file, { headers: headers }));
    }));
    return Response.redirect(files.length ? SELFIE.sharedPhotosPage : SELFIE.shareAgainPage, 303);
  } catch (error) {
    return Response.redirect(SELFIE.shareAgainPage, 303);
  }
}

async function emptyInbox(inbox) {
  var keys = await inbox.keys();
  await Promise.all(keys.map(function (key) { return inbox.delete(key); }));
}

// Shares nobody uploaded within a day are forgotten (checked at each page load).
async function forgetStaleShares() {
  if (!(await caches.has(INBOX))) return;
  var inbox = await caches.open(INBOX);
  var keys = await inbox.keys();
  await Promise.all(keys.map(async function (key) {
    var kept = await inbox.match(key);
    var when = kept ? Number(kept.headers.get("X-Selfie-Kept")) : 0;
    if (!(Date.now() - when < INBOX_LIFETIME)) await inbox.delete(key);
  }));
}
