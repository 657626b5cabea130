// Passkeys: "Add a passkey" on the account page; "Sign in with a passkey" and the browser's
// passkey autofill on the sign-in page. The server sends WebAuthn options as JSON with
// base64url binary fields, and takes the browser's answer back the same way. Without
// JavaScript or WebAuthn the buttons stay hidden and password sign-in works as before.
(function () {
  "use strict";
  if (!window.PublicKeyCredential || !window.fetch) return;

  function toBytes(base64url) {
    var base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) base64 += "=";
    var text = atob(base64);
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes.buffer;
  }

  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function post(url, csrf, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body || {})
    }).then(function (response) {
      // "Confirm it's you" first (a sign-in more than ten minutes old): go there, and come back.
      if (response.redirected && new URL(response.url).pathname === "/account/confirm") {
        window.location.assign(response.url);
        throw new Error("confirm it's you");
      }
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response;
    });
  }

  var t = window.SelfieWords ? window.SelfieWords.t : function (key) { return key; };

  function say(text) {
    var status = document.getElementById("passkey-status");
    if (status) status.textContent = text;
  }

  // --- Account page: add a passkey -------------------------------------------------------
  var add = document.getElementById("add-passkey");
  if (add) {
    add.hidden = false;
    add.addEventListener("click", function () {
      var csrf = add.getAttribute("data-csrf");
      add.disabled = true;
      say(t("js-passkey-creating"));
      post("/account/passkeys/options", csrf)
        .then(function (response) { return response.json(); })
        .then(function (options) {
          options.challenge = toBytes(options.challenge);
          options.user.id = toBytes(options.user.id);
          options.excludeCredentials = options.excludeCredentials.map(function (c) {
            return { type: c.type, id: toBytes(c.id) };
          });
          return navigator.credentials.create({ publicKey: options });
        })
        .then(function (credential) {
          return post("/account/passkeys", csrf, {
            id: credential.id,
            rawId: toBase64url(credential.rawId),
            type: credential.type,
            response: {
              clientDataJSON: toBase64url(credential.response.clientDataJSON),
              attestationObject: toBase64url(credential.response.attestationObject)
            }
          });
        })
        .then(function (response) { window.location.assign(response.url); })
        .catch(function () {
          add.disabled = false;
          say(t("js-passkey-not-added"));
        });
    });
  }

  // --- Sign-in page: sign in with a passkey ----------------------------------------------
  var signIn = document.getElementById("passkey-sign-in");
  if (!signIn) return;
  var csrf = signIn.getAttribute("data-csrf");
  var next = signIn.getAttribute("data-next") || null;
  var pendingAutofill = null;

  function signInWith(mediation, abort) {
    return post("/signin/passkey/options", csrf)
      .then(function (response) { return response.json(); })
      .then(function (options) {
        options.challenge = toBytes(options.challenge);
        var request = { publicKey: options };
        if (mediation) request.mediation = mediation;
        if (abort) request.signal = abort.signal;
        return navigator.credentials.get(request);
      })
      .then(function (credential) {
        if (!credential) throw new Error("no credential");
        var response = credential.response;
        return post("/signin/passkey", csrf, {
          id: credential.id,
          rawId: toBase64url(credential.rawId),
          type: credential.type,
          next: next,
          response: {
            clientDataJSON: toBase64url(response.clientDataJSON),
            authenticatorData: toBase64url(response.authenticatorData),
            signature: toBase64url(response.signature),
            userHandle: response.userHandle ? toBase64url(response.userHandle) : null
          }
        });
      })
      .then(function (response) { window.location.assign(response.url); });
  }

  signIn.hidden = false;
  signIn.addEventListener("click", function () {
    if (pendingAutofill) pendingAutofill.abort();
    signIn.disabled = true;
    say(t("js-passkey-using"));
    signInWith(null, null).catch(function () {
      signIn.disabled = false;
      say(t("js-passkey-failed"));
    });
  });

  // Offer passkeys in the username field's autofill where the browser supports it.
  if (PublicKeyCredential.isConditionalMediationAvailable) {
    PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
      if (!available) return;
      pendingAutofill = new AbortController();
      signInWith("conditional", pendingAutofill).catch(function () { /* aborted or dismissed */ });
    });
  }
})();
