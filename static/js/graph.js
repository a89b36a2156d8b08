// Draws the citation graph from the JSON in <script id="graph-data"> (explorer/graph/views.py).
// Positions come from the server (a seeded spring layout); no inline scripts (CSP).
(function () {
  "use strict";

  function escapeHtml(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }

  function markerSize(node, mode, largest) {
    var value = mode === "pagerank" ? node.pagerank : node.in_degree;
    return 6 + 26 * Math.sqrt(value / (largest || 1));
  }

  function hoverText(node) {
    var lines = ["<b>" + escapeHtml(node.title) + "</b>"];
    lines.push((node.year || "year unknown") + (node.survey_ref ? " · survey ref. [" + node.survey_ref + "]" : "") + (node.era === "after" ? " · after the survey" : ""));
    lines.push(node.categories.length ? escapeHtml(node.categories.join("; ")) : "no category");
    lines.push("cited by " + node.in_degree + " · cites " + node.out_degree + " recorded references · PageRank " + node.pagerank.toFixed(4));
    return lines.join("<br>");
  }

  function edgeTraces(data) {
    var x = [], y = [], ax = [], ay = [], angle = [];
    data.edges.forEach(function (edge) {
      var source = data.nodes[edge[0]], target = data.nodes[edge[1]];
      x.push(source.x, target.x, null);
      y.push(source.y, target.y, null);
      // An arrowhead 80% of the way, pointing at the cited work (angle clockwise from up).
      var dx = target.x - source.x, dy = target.y - source.y;
      ax.push(source.x + 0.8 * dx);
      ay.push(source.y + 0.8 * dy);
      angle.push((Math.atan2(dx, dy) * 180) / Math.PI);
    });
    return [
      { type: "scatter", mode: "lines", x: x, y: y, hoverinfo: "skip", showlegend: false,
        line: { color: "rgba(90, 100, 120, 0.35)", width: 0.7 } },
      { type: "scatter", mode: "markers", x: ax, y: ay, hoverinfo: "skip", showlegend: false,
        marker: { symbol: "triangle-up", size: 6, angle: angle, color: "rgba(90, 100, 120, 0.6)" } },
    ];
  }

  function nodeTraces(data) {
    var largest = 0;
    data.nodes.forEach(function (node) {
      largest = Math.max(largest, data.size === "pagerank" ? node.pagerank : node.in_degree);
    });
    return data.levels.map(function (level) {
      var members = data.nodes.filter(function (node) { return node.level === level.code; });
      return {
        type: "scatter", mode: "markers+text", name: level.name,
        x: members.map(function (n) { return n.x; }),
        y: members.map(function (n) { return n.y; }),
        // The most important works are named on the drawing; every work on hover.
        text: members.map(function (n) { return n.label || ""; }),
        textposition: members.map(function (n) { return n.label_position || "top center"; }),
        textfont: { size: 11, color: "#1d2330" },
        hovertext: members.map(hoverText),
        customdata: members.map(function (n) { return n.url; }),
        hovertemplate: "%{hovertext}<extra></extra>",
        marker: {
          color: level.colour,
          size: members.map(function (n) { return markerSize(n, data.size, largest); }),
          // Shape tells the era (colour stays the level): a diamond is a work after the survey.
          symbol: members.map(function (n) { return n.era === "after" ? "diamond" : (n.survey_ref ? "circle" : "star"); }),
          // The centre of an ego view is ringed.
          line: {
            color: members.map(function (n) { return n.centre ? "#1d2330" : "#fff"; }),
            width: members.map(function (n) { return n.centre ? 3 : 1; }),
          },
          opacity: 0.9,
        },
      };
    }).filter(function (trace) { return trace.x.length; });
  }

  function draw() {
    var element = document.getElementById("graph-plot");
    var source = document.getElementById("graph-data");
    if (!element || !source || typeof Plotly === "undefined") return;
    var data = JSON.parse(source.textContent);
    var annotations = [];
    if (data.nodes.some(function (n) { return n.y < -0.8; })) {
      annotations.push({ x: -1, y: -0.76, xanchor: "left", showarrow: false,
        text: "Below: works with no recorded edge in this view (a missing edge does not mean \"does not cite\")",
        font: { size: 11, color: "#7a5600" } });
    }
    var layout = {
      height: 720, margin: { l: 10, r: 10, t: 40, b: 10 }, hovermode: "closest",
      xaxis: { visible: false }, yaxis: { visible: false, scaleanchor: "x" },
      legend: { orientation: "h", x: 0, y: 1.05 }, annotations: annotations,
      plot_bgcolor: "#fff", paper_bgcolor: "#fff",
    };
    Plotly.newPlot(element, edgeTraces(data).concat(nodeTraces(data)), layout,
      { responsive: true, displaylogo: false });
    element.on("plotly_click", function (event) {
      var point = event.points && event.points[0];
      if (point && point.customdata) window.location.assign(point.customdata);
    });
    element.dataset.drawn = "true";
  }

  document.addEventListener("DOMContentLoaded", draw);
})();
