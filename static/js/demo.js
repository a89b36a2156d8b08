// A demo page: runs the demo through the API, shows progress while the server works, then draws
// the metrics, the agreement with the cost model, the tables and the Plotly figures. The URL keeps
// the parameters (and run=1), so a copied link reproduces the run, with or without JavaScript.
(function () {
  "use strict";
  var form = document.getElementById("demo-form");
  var results = document.getElementById("demo-results");
  var errorBox = document.getElementById("demo-error");
  var progress = document.getElementById("demo-progress");
  if (!form) return;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function fmt(value) {
    if (typeof value === "number") return Math.abs(value) >= 1e5 || (value !== 0 && Math.abs(value) < 1e-3) ? value.toExponential(3) : String(Math.round(value * 1e4) / 1e4);
    return value === null || value === undefined ? "—" : String(value);
  }

  function table(title, columns, rows) {
    var wrap = el("section", { "class": "demo-table" });
    wrap.appendChild(el("h3", {}, title));
    var t = el("table", { "class": "numbers" });
    var head = el("tr");
    columns.forEach(function (c) { head.appendChild(el("th", {}, c)); });
    t.appendChild(head);
    rows.forEach(function (row) {
      var tr = el("tr");
      row.forEach(function (cell) { tr.appendChild(el("td", {}, fmt(cell))); });
      t.appendChild(tr);
    });
    wrap.appendChild(t);
    return wrap;
  }

  function render(run) {
    results.innerHTML = "";
    var r = run.result;
    results.appendChild(el("p", { "class": "summary" },
      (run.cached ? "Cached result" : "Computed in " + fmt(run.elapsed_s) + " s") + " · demo version " + run.version));
    results.appendChild(table("Measurements", ["metric", "measured", "predicted by the cost model", "unit", "note"],
      r.metrics.map(function (m) { return [m.name, m.value, m.predicted, m.unit, m.note]; })));
    if (r.agreement.length) {
      results.appendChild(table("Agreement with the model", ["claim", "holds", "detail"],
        r.agreement.map(function (a) { return [a.claim, a.holds ? "yes" : "NO", a.detail]; })));
    }
    r.tables.forEach(function (t) { results.appendChild(table(t.title, t.columns, t.rows)); });
    r.figures.forEach(function (figure, i) {
      var div = el("div", { "class": "plot", id: "demo-figure-" + i });
      results.appendChild(div);
      if (typeof Plotly !== "undefined") {
        Plotly.newPlot(div, figure.data, figure.layout, { responsive: true, displaylogo: false });
        div.dataset.drawn = "true";
      }
    });
  }

  function params() {
    var out = {};
    new FormData(form).forEach(function (value, key) { if (key !== "run") out[key] = value; });
    return out;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var query = new URLSearchParams(new FormData(form)).toString();
    history.replaceState({}, "", window.location.pathname + "?" + query);
    errorBox.hidden = true;
    progress.hidden = false;
    var started = Date.now();
    var timer = setInterval(function () {
      progress.querySelector(".elapsed").textContent = ((Date.now() - started) / 1000).toFixed(1);
    }, 100);
    var csrf = document.cookie.match(/csrftoken=([^;]+)/);
    fetch(form.dataset.api, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf ? csrf[1] : "" },
      body: JSON.stringify({ params: params() }),
    })
      .then(function (response) {
        return response.json().then(function (body) { return [response, body]; });
      })
      .then(function (pair) {
        if (!pair[0].ok) {
          var retry = pair[0].headers.get("Retry-After");
          errorBox.textContent = pair[1].detail + (retry ? " Try again in " + retry + " s." : "");
          errorBox.hidden = false;
          return;
        }
        render(pair[1]);
      })
      .catch(function () { errorBox.textContent = "The server could not be reached."; errorBox.hidden = false; })
      .finally(function () { clearInterval(timer); progress.hidden = true; });
  });

  var initial = document.getElementById("demo-run");
  if (initial) render(JSON.parse(initial.textContent));
})();
