// Runs on every page. Keeps the browser's time zone in a cookie, so times are shown in it (and
// kept on the account once signed in).
(function () {
  "use strict";
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && document.cookie.split("; ").indexOf("selfie_zone=" + encodeURIComponent(zone)) < 0) {
      var secure = location.protocol === "https:" ? "; secure" : "";
      document.cookie = "selfie_zone=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax" + secure;
    }
  } catch (e) {
    // No Intl: times stay in UTC, labelled.
  }
})();
