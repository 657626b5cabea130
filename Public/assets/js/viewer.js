// The photo page as a viewer: the left and right arrow keys, or a swipe on a touch screen, go
// to the newer and older photo by following the page's own links, so without JavaScript the
// links do the same.
(function () {
  "use strict";
  var viewer = document.querySelector(".viewer");
  if (!viewer) return;
  var SWIPE = 60; // px of horizontal travel that count as a swipe

  function follow(rel) {
    var link = viewer.querySelector("a[rel~=" + rel + "]");
    if (link) window.location.assign(link.href);
  }

  function isTyping(node) {
    return !!node && (node.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(node.tagName));
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (isTyping(event.target)) return;
    if (event.key === "ArrowLeft") follow("prev");
    else if (event.key === "ArrowRight") follow("next");
  });

  var stage = viewer.querySelector(".viewer-stage");
  if (!stage || !window.PointerEvent) return;
  var start = null;
  var touching = 0; // fingers down: two mean a pinch, never a swipe

  stage.addEventListener("pointerdown", function (event) {
    if (event.pointerType === "mouse") return;
    touching++;
    start = touching === 1 ? { x: event.clientX, y: event.clientY } : null;
  });
  stage.addEventListener("pointerup", function (event) {
    if (event.pointerType === "mouse") return;
    touching = Math.max(0, touching - 1);
    if (!start) return;
    var dx = event.clientX - start.x, dy = event.clientY - start.y;
    start = null;
    // Zoomed in, a sideways drag is for looking around the photo.
    if (window.visualViewport && window.visualViewport.scale > 1.01) return;
    if (Math.abs(dx) > SWIPE && Math.abs(dx) > Math.abs(dy)) follow(dx < 0 ? "next" : "prev");
  });
  // The browser took the gesture over (a vertical scroll, a pinch): not a swipe.
  stage.addEventListener("pointercancel", function () {
    touching = Math.max(0, touching - 1);
    start = null;
  });
})();
