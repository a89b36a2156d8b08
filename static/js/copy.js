// Copy buttons: <button data-copy="ID"> copies the text of the element with that id.
(function () {
  "use strict";
  function say(button, text) {
    var status = document.querySelector(".copy-status");
    if (status) status.textContent = text;
    var label = button.textContent;
    button.textContent = text;
    setTimeout(function () { button.textContent = label; }, 1500);
  }
  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "absolute"; area.style.left = "-9999px";
    document.body.appendChild(area);
    area.select();
    var done = document.execCommand && document.execCommand("copy");
    document.body.removeChild(area);
    return done;
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-copy]");
    if (!button) return;
    var text = document.getElementById(button.dataset.copy).textContent.trim();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { say(button, "Copied"); },
        function () { say(button, fallback(text) ? "Copied" : "Select and copy by hand"); });
    } else {
      say(button, fallback(text) ? "Copied" : "Select and copy by hand");
    }
  });
})();
