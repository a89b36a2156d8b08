// A demo run's page, once the run succeeded: draws the metrics, the agreement with the cost
// model, the tables and the Plotly figures from the result embedded in the page.
(function () {
  "use strict";
  var results = document.getElementById("demo-results");
  if (!results) return;

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
    results.appendChild(table("Simulated results", ["quantity", "simulated", "predicted by the cost model", "unit", "note"],
      r.metrics.map(function (m) { return [m.name, m.value, m.predicted, m.unit, m.note]; })));
    if (r.agreement.length) {
      results.appendChild(table("Agreement with the model (in the simulation)", ["claim", "holds", "detail"],
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
    // Tables drawn here may scroll on a phone: site.js makes such boxes focusable.
    document.dispatchEvent(new Event("explorer:drawn"));
  }

  var initial = document.getElementById("demo-run");
  if (initial) render(JSON.parse(initial.textContent));
})();
