// Runs on every page: a form is sent once. A second press of its button (a double click, an
// impatient Enter) while the answer is on its way would send it again, and the server would do
// the work twice: two albums, two share links, or new recovery codes replaced by a second set the
// person never sees. Scripts that send a form themselves (the upload page) prevent the browser's
// submission and are left alone. And a form sent back with errors puts the focus on the first.
(function () {
  "use strict";
  // A download leaves the page where it is: its button may be pressed again after a moment. Any
  // other form is sent again only after a long while (a load stopped by hand, an answer that
  // never navigates): the mark is against a double press, not a lock.
  var downloadPause = 3000;
  var longestWait = 15000;

  window.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement)) return;
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post") return;
    if (form.hasAttribute("data-sending")) {
      event.preventDefault();
      return;
    }
    form.setAttribute("data-sending", "");
    form.setAttribute("aria-busy", "true");
    // The button pressed (a browser without `submitter`: the one that has the focus).
    var submitter = event.submitter || (form.contains(document.activeElement) ? document.activeElement : null);
    var download = submitter && submitter.hasAttribute && submitter.hasAttribute("data-download");
    setTimeout(function () { release(form); }, download ? downloadPause : longestWait);
  });

  function release(form) {
    form.removeAttribute("data-sending");
    form.removeAttribute("aria-busy");
  }

  // A form sent back with its errors: the first field to correct has the focus, so a screen
  // reader reads its label and its error (aria-describedby) instead of starting at the top.
  var invalid = document.querySelector("form [aria-invalid=true]");
  if (invalid && document.activeElement === document.body) invalid.focus();

  // Back to a page the browser kept: its forms can be sent again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    document.querySelectorAll("form[data-sending]").forEach(release);
  });
})();
