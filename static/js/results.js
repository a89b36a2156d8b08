// A record chart's point leads to its work: the URL is the point's customdata.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("div.plot[data-links]").forEach(function (el) {
      if (!el.on) return;
      el.on("plotly_click", function (event) {
        var url = event.points && event.points[0] && event.points[0].customdata;
        if (url) window.location.href = url;
      });
    });
  });
})();
