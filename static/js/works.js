// Progressive enhancement for /works/: changing a filter reloads only the results, keeps the
// URL in step (so a copied link reproduces the view) and works without JavaScript too.
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

  // On a phone the filters start folded, below the results (they stay in the page without JS).
  var panel = document.querySelector(".filters-panel");
  if (panel && window.matchMedia("(max-width: 800px)").matches) panel.open = false;
})();
