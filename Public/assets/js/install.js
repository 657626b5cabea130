// On every page: registers the service worker (the offline page, the share sheet's target), and
// gives the browser's bar the header's colour when the account or the footer chose a theme other
// than the system's (the <meta name="theme-color"> tags follow the system only).
(function () {
  "use strict";
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
      // No worker (private window, storage off): the site works as before, without offline page.
    });
  }
  var theme = document.documentElement.getAttribute("data-theme");
  var header = document.querySelector(".site-header");
  if ((theme === "light" || theme === "dark") && header && window.getComputedStyle) {
    var colour = window.getComputedStyle(header).backgroundColor;
    Array.prototype.forEach.call(document.querySelectorAll('meta[name="theme-color"]'), function (meta) {
      meta.setAttribute("content", colour);
    });
  }
})();
