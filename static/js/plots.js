// Draws every <div class="plot" data-figure="ID"> from the JSON in <script id="ID">.
// Figures come from explorer/works/plots.py; no inline scripts (the Content Security Policy forbids them).
(function () {
  "use strict";
  function draw(root) {
    root.querySelectorAll("div.plot[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (!source || typeof Plotly === "undefined") return;
      var figure = JSON.parse(source.textContent);
      Plotly.newPlot(el, figure.data, figure.layout, { responsive: true, displaylogo: false });
      el.dataset.drawn = "true";
    });
  }
  window.drawPlots = draw;
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
})();
