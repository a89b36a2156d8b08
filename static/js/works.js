// Progressive enhancement for /works/: changing a filter reloads only the results, keeps the
// URL in step (so a copied link reproduces the view) and works without JavaScript too; a range
// of years brushed on the timeline narrows the list to it.
(function () {
  "use strict";
  var form = document.getElementById("work-filters");
  var results = document.getElementById("work-results");
  if (!form || !results) return;

  function queryOf(formEl) {
    var params = new URLSearchParams(new FormData(formEl));
    Array.from(params.keys()).forEach(function (key) {
      if (params.get(key) === "") params.delete(key);
    });
    return params.toString();
  }

  function load(url, push) {
    results.setAttribute("aria-busy", "true");
    fetch(url, { headers: { "X-Fragment": "results" } })
      .then(function (response) { return response.text().then(function (html) { return [response, html]; }); })
      .then(function (pair) {
        if (!pair[0].ok) { window.location.href = url; return; }
        results.innerHTML = pair[1];
        if (push) history.pushState({}, "", url);
      })
      .catch(function () { window.location.href = url; })
      .finally(function () { results.removeAttribute("aria-busy"); });
  }

  form.addEventListener("change", function (event) {
    if (!event.target.name || event.target.form !== form) return;  // a display toggle, a picker box
    var query = queryOf(form);
    load(window.location.pathname + (query ? "?" + query : ""), true);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var query = queryOf(form);
    load(window.location.pathname + (query ? "?" + query : ""), true);
  });
  window.addEventListener("popstate", function () { window.location.reload(); });

  // The timeline's brush: press on one year's bar and release on another to show the years
  // between (a click on one bar is its plain link). Listens on the results, which in-place
  // updates replace.
  var brushStart = null;
  function barOf(event) {
    var bar = event.target.closest && event.target.closest(".timeline a[data-year]");
    return bar && results.contains(bar) ? bar : null;
  }
  function markBrushed(end) {
    var low = Math.min(+brushStart.dataset.year, +end.dataset.year);
    var high = Math.max(+brushStart.dataset.year, +end.dataset.year);
    brushStart.closest("svg").querySelectorAll("a[data-year]").forEach(function (bar) {
      var year = +bar.dataset.year;
      bar.classList.toggle("brushed", year >= low && year <= high);
    });
    return [low, high];
  }
  results.addEventListener("dragstart", function (event) { if (barOf(event)) event.preventDefault(); });
  results.addEventListener("pointerdown", function (event) {
    if (event.button === 0) brushStart = barOf(event);
  });
  results.addEventListener("pointermove", function (event) {
    var bar = brushStart && barOf(event);
    if (bar) markBrushed(bar);
  });
  results.addEventListener("pointerup", function (event) {
    var bar = brushStart && barOf(event);
    if (bar && bar !== brushStart) {
      var range = markBrushed(bar);
      var url = new URL(brushStart.getAttribute("href"), window.location.href);
      url.searchParams.set("year_min", range[0]);
      url.searchParams.set("year_max", range[1]);
      window.location.href = url.toString();
    }
    brushStart = null;
  });

  // On a phone the filters start folded, below the results (they stay in the page without JS).
  var panel = document.querySelector(".filters-panel");
  if (panel && window.matchMedia("(max-width: 800px)").matches) panel.open = false;
})();
