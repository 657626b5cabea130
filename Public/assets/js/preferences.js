// Runs on every page, before the other scripts. Keeps the browser's time zone in a cookie, so
// times are shown in it (and kept on the account once signed in), and gives the other scripts
// their words in the page's language: SelfieWords.t("js-key", {name: value}).
(function () {
  "use strict";
  var words = {};
  try {
    words = JSON.parse(document.documentElement.getAttribute("data-words") || "{}");
  } catch (e) {
    words = {};
  }
  window.SelfieWords = {
    t: function (key, values) {
      values = values || {};
      var text = (values.count === 1 && words[key + "#one"]) || words[key] || key;
      return text.replace(/\{(\w+)\}/g, function (whole, name) {
        return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
      });
    }
  };
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
