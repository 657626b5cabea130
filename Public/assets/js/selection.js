// Selecting many photos on the gallery and album pages: Shift+click (or Shift+Space) selects a
// range, the bar counts what is selected and offers "Select all", and the album picker shows
// the new album's name field only when it is needed. Without JavaScript the checkboxes and the
// bar's buttons post the same form; the server checks everything again.
(function () {
  "use strict";
  var form = document.getElementById("photo-selection");
  if (!form || !form.classList) return;
  var boxes = Array.prototype.slice.call(form.querySelectorAll("input.select-photo"));
  var actions = Array.prototype.slice.call(form.querySelectorAll("button[name=action]"));
  var count = document.getElementById("selection-count");
  var hint = count ? count.textContent : "";
  var selectAll = document.getElementById("select-all");
  var target = document.getElementById("target-album");
  var newTitle = document.getElementById("new-album-title");
  var newTitleLabel = newTitle && form.querySelector("label[for=new-album-title]");
  var lastClicked = null; // where a Shift+click range starts
  var t = window.SelfieWords ? window.SelfieWords.t : function (key) { return key; };

  function cardOf(box) {
    for (var node = box.parentNode; node && node !== form; node = node.parentNode) {
      if (node.classList.contains("photo-card")) return node;
    }
    return null;
  }

  function update() {
    var selected = 0;
    boxes.forEach(function (box) {
      var card = cardOf(box);
      if (card) card.classList.toggle("is-selected", box.checked);
      if (box.checked) selected++;
    });
    if (count) {
      count.textContent = selected === 0 ? hint : t("js-photos-selected", {count: selected});
    }
    form.setAttribute("data-selected", String(selected));
    form.classList.toggle("has-selection", selected > 0);
    actions.forEach(function (button) { button.disabled = selected === 0; });
    if (selectAll) {
      selectAll.textContent = selected > 0 && selected === boxes.length ? t("js-clear-selection") : t("js-select-all");
    }
  }

  // A keyboard Space on a checkbox reaches here as a click too; Chromium, Firefox and Safari
  // copy the Shift key's state into that click, so one handler serves mouse and keyboard.
  form.addEventListener("click", function (event) {
    var box = event.target;
    if (!box.classList || !box.classList.contains("select-photo")) return;
    if (event.shiftKey && lastClicked && lastClicked !== box) {
      var from = boxes.indexOf(lastClicked), to = boxes.indexOf(box);
      var step = from < to ? 1 : -1;
      for (var i = from; i !== to; i += step) boxes[i].checked = box.checked;
      // Shift+click also extends the page's text selection; that is never wanted here.
      if (window.getSelection) window.getSelection().removeAllRanges();
    }
    lastClicked = box;
    update();
  });
  form.addEventListener("change", update);
  // Coming back with the Back button may restore checked boxes from the page cache.
  window.addEventListener("pageshow", update);

  if (selectAll && boxes.length) {
    selectAll.hidden = false;
    selectAll.addEventListener("click", function () {
      var check = !boxes.every(function (box) { return box.checked; });
      boxes.forEach(function (box) { box.checked = check; });
      lastClicked = null;
      update();
    });
  }

  function wantsNewAlbum() {
    return !!target && !!newTitle && target.value === "";
  }

  function showNewTitle() {
    if (!newTitle) return;
    newTitle.hidden = !wantsNewAlbum();
    if (newTitleLabel) newTitleLabel.hidden = newTitle.hidden;
    newTitle.setCustomValidity("");
  }
  if (target) target.addEventListener("change", showNewTitle);
  if (newTitle) newTitle.addEventListener("input", function () { newTitle.setCustomValidity(""); });

  // Checked on click rather than on submit: pressing Enter in the name field clicks "Add" too,
  // and a message left on the field would otherwise block the bar's other buttons.
  actions.forEach(function (button) {
    button.addEventListener("click", function (event) {
      if (!newTitle) return;
      newTitle.setCustomValidity("");
      if (button.value !== "add" || !wantsNewAlbum() || newTitle.value.trim() !== "") return;
      event.preventDefault();
      newTitle.setCustomValidity(t("js-album-needs-name"));
      newTitle.focus();
      if (newTitle.reportValidity) newTitle.reportValidity();
    });
  });

  showNewTitle();
  update();
})();
