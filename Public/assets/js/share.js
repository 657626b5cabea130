// Share links: a "Copy" button beside each link's address. The buttons may come hidden, as
// they do nothing without JavaScript; the address field stays there to copy by hand.
(function () {
  "use strict";
  var buttons = document.querySelectorAll("button.copy-link[data-copy-target]");
  if (!buttons.length) return;

  function copy(field) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(field.value).catch(function () { return fallback(field); });
    }
    return Promise.resolve(fallback(field));
  }

  // Older browsers, and pages not served over HTTPS, have no asynchronous clipboard.
  function fallback(field) {
    field.focus();
    field.select();
    var copied = false;
    try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
    if (!copied) throw new Error("copy refused");
  }

  Array.prototype.forEach.call(buttons, function (button) {
    var label = button.textContent;
    var timer = null;
    button.hidden = false;
    button.addEventListener("click", function () {
      var field = document.getElementById(button.getAttribute("data-copy-target"));
      if (!field) return;
      copy(field).then(function () {
        button.textContent = window.SelfieWords ? window.SelfieWords.t("js-copied") : "Copied";
        clearTimeout(timer);
        timer = setTimeout(function () { button.textContent = label; }, 2000);
      }, function () {
        // Leave the address selected, ready for the keyboard's copy.
        field.focus();
        field.select();
      });
    });
  });

  // Focusing an address selects all of it, to copy it by hand in one go.
  Array.prototype.forEach.call(document.querySelectorAll("input.link-url"), function (field) {
    field.addEventListener("focus", function () { field.select(); });
  });
})();
