// Every page: the navigation's menus (grouped on a wide screen, under "Menu" on a phone), filter panels
// closed on small screens, wide tables reachable by keyboard. Progressive: without JavaScript every
// group of the navigation is shown open and panels keep their state.
(function () {
  "use strict";
  var narrow = window.matchMedia("(max-width: 800px)");

  var button = document.querySelector(".menu-button");
  var nav = document.getElementById("site-nav");
  if (button && nav) {
    button.addEventListener("click", function () {
      var open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      document.body.classList.toggle("menu-open", open);
      if (open) { var first = nav.querySelector("a"); if (first) first.focus(); }
      else { closeGroups(null); }
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
        button.click();
        button.focus();
      }
    });
  }

  // The navigation's groups, each a disclosure button (the wide screen's menus): one open at a
  // time; Escape, a click elsewhere or the focus leaving the group closes it.
  var toggles = Array.prototype.slice.call(document.querySelectorAll(".nav-toggle"));
  function setGroup(toggle, open) {
    toggle.setAttribute("aria-expanded", String(open));
  }
  function closeGroups(except) {
    toggles.forEach(function (toggle) { if (toggle !== except) setGroup(toggle, false); });
  }
  toggles.forEach(function (toggle) {
    var group = toggle.parentElement;
    toggle.addEventListener("click", function () {
      var open = toggle.getAttribute("aria-expanded") !== "true";
      closeGroups(toggle);
      setGroup(toggle, open);
    });
    group.addEventListener("focusout", function (event) {
      if (!group.contains(event.relatedTarget)) setGroup(toggle, false);
    });
    group.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && toggle.getAttribute("aria-expanded") === "true") {
        event.stopPropagation();  // the phone menu stays open
        setGroup(toggle, false);
        toggle.focus();
      }
    });
  });
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest(".nav-group")) closeGroups(null);
  });

  // On a phone the results come first and the filters wait, folded, below them.
  if (narrow.matches) {
    document.querySelectorAll("details[data-fold-on-phone]").forEach(function (details) {
      details.open = false;
    });
  }

  // "Filters" above the results leads to the folded panel below them, and opens it.
  document.addEventListener("click", function (event) {
    var jump = event.target.closest && event.target.closest(".filters-jump");
    if (!jump) return;
    var panel = document.getElementById("filters-panel");
    if (!panel) return;
    event.preventDefault();
    panel.open = true;
    panel.scrollIntoView();
    var first = panel.querySelector("input, select");
    if (first) first.focus();
  });

  // A folded section whose content lives at its own address (data-src) fetches it when first
  // opened: the page is sent without it. Without JavaScript, the link inside leads there.
  function loadFolded(details) {
    if (details.dataset.loaded || !details.open) return;
    details.dataset.loaded = "loading";
    var body = details.querySelector(".lazy-body");
    body.setAttribute("aria-busy", "true");
    fetch(details.dataset.src, { headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var part = page.querySelector("#derivations-body .derivation");
        if (!part) throw new Error("no derivation in the answer");
        part.querySelector("h2").remove();  // the summary already names it
        body.replaceChildren.apply(body, Array.prototype.slice.call(part.childNodes));
        details.dataset.loaded = "yes";
        focusableWhenScrolling();
      })
      .catch(function (error) {
        details.dataset.loaded = "";
        var note = document.createElement("p");
        note.className = "flag";
        note.textContent = "Could not load it (" + error.message + "); the link above opens it.";
        body.appendChild(note);
      })
      .finally(function () { body.removeAttribute("aria-busy"); });
  }
  document.querySelectorAll("details[data-src]").forEach(function (details) {
    details.addEventListener("toggle", function () { loadFolded(details); });
    if (location.hash === "#" + details.id) { details.open = true; }
  });

  // A table wider than its box scrolls; a region that scrolls must take the keyboard's focus.
  function focusableWhenScrolling() {
    document.querySelectorAll(".table-scroll, table.numbers, table.replay, pre, .formula > math").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1) {
        if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
      }
    });
  }
  focusableWhenScrolling();
  window.addEventListener("resize", focusableWhenScrolling);
  document.addEventListener("htmx:afterSwap", focusableWhenScrolling);
  document.addEventListener("explorer:drawn", focusableWhenScrolling);  // tables drawn by scripts
})();
