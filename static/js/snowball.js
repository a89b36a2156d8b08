// Draws the snowballing growth chart from <script id="snowball-growth"> (explorer/graph/views.py).
(function () {
  "use strict";

  function draw() {
    var element = document.getElementById("snowball-plot");
    var source = document.getElementById("snowball-growth");
    if (!element || !source || typeof Plotly === "undefined") return;
    var growth = JSON.parse(source.textContent);
    var labels = growth.rounds.map(function (r) { return r === 0 ? "seeds + keywords" : "round " + r; });
    var traces = [
      { type: "bar", name: "new works", x: labels, y: growth.new, marker: { color: "#2457a6" },
        hovertemplate: "%{x}: %{y} new works<extra></extra>" },
      { type: "scatter", mode: "lines+markers", name: "collected (% of " + growth.total + " works)",
        x: labels, y: growth.coverage, yaxis: "y2", marker: { color: "#d9822b" },
        customdata: growth.collected,
        hovertemplate: "%{x}: %{customdata} collected, %{y}% of the catalogue<extra></extra>" },
    ];
    var layout = {
      height: 340, margin: { l: 50, r: 60, t: 20, b: 40 },
      yaxis: { title: { text: "new works" }, rangemode: "tozero" },
      yaxis2: { title: { text: "cumulative coverage" }, overlaying: "y", side: "right", range: [0, 100],
        tickmode: "array", tickvals: [0, 25, 50, 75, 100],
        ticktext: ["0%", "25%", "50%", "75%", "100%"], showgrid: false },
      legend: { orientation: "h", y: 1.12 },
    };
    Plotly.newPlot(element, traces, layout, { responsive: true, displaylogo: false });
    element.dataset.drawn = "true";
  }

  document.addEventListener("DOMContentLoaded", draw);
})();
