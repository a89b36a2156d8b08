// Suggestions while typing, for any input with data-suggest (htmx fetches the list into the
// element named by hx-target). Arrow keys move through the works, Enter opens the chosen one
// (data-suggest="go") or picks it (data-suggest="pick": the work's key goes into the hidden input
// named by data-pick-into, its title stays in the box; data-pick-many adds it to a list).
(function () {
  "use strict";

  function boxOf(input) { return document.querySelector(input.getAttribute("hx-target")); }
  function options(input) { return Array.from(boxOf(input).querySelectorAll("[role=option]")); }

  function setActive(input, index) {
    var all = options(input);
    all.forEach(function (option, i) {
      option.setAttribute("aria-selected", i === index ? "true" : "false");
      option.classList.toggle("active", i === index);
    });
    if (index >= 0 && all[index]) {
      input.setAttribute("aria-activedescendant", all[index].id);
      all[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function activeIndex(input) {
    return options(input).findIndex(function (o) { return o.classList.contains("active"); });
  }

  function close(input) {
    boxOf(input).innerHTML = "";
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }

  function addToList(list, option, hiddenId) {
    if (!list) return;
    var item = document.createElement("li");
    item.textContent = option.dataset.title + " ";
    var remove = document.createElement("button");
    remove.type = "button";
    remove.className = "unpick";
    remove.textContent = "×";
    remove.dataset.unpick = option.dataset.key;
    remove.dataset.from = hiddenId;
    remove.setAttribute("aria-label", "Remove " + option.dataset.title);
    item.appendChild(remove);
    list.appendChild(item);
  }

  function choose(input, option) {
    if (input.dataset.suggest !== "pick") {
      window.location.href = option.querySelector("a").href;
      return;
    }
    var hidden = document.getElementById(input.dataset.pickInto);
    if (input.dataset.pickMany !== undefined) {
      var keys = hidden.value ? hidden.value.split(",") : [];
      if (keys.indexOf(option.dataset.key) < 0) {
        keys.push(option.dataset.key);
        addToList(document.getElementById(input.dataset.pickMany), option, hidden.id);
      }
      hidden.value = keys.join(",");
      input.value = "";
    } else {
      hidden.value = option.dataset.key;
      input.value = option.dataset.title;
    }
    close(input);
    hidden.dispatchEvent(new Event("change", { bubbles: true }));
    if (input.dataset.submit !== undefined && hidden.form) hidden.form.requestSubmit();
  }

  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches("input[data-suggest]")) return;
    var count = options(input).length, index = activeIndex(input);
    if (event.key === "ArrowDown" && count) {
      event.preventDefault(); setActive(input, (index + 1) % count);
    } else if (event.key === "ArrowUp" && count) {
      event.preventDefault(); setActive(input, index <= 0 ? count - 1 : index - 1);
    } else if (event.key === "Enter" && index >= 0) {
      event.preventDefault(); choose(input, options(input)[index]);
    } else if (event.key === "Enter" && input.dataset.suggest === "pick") {
      event.preventDefault();  // a title half typed is not a key: pick from the list
      if (count) choose(input, options(input)[0]);
    } else if (event.key === "Escape") {
      close(input);
    }
  });

  document.addEventListener("click", function (event) {
    var option = event.target.closest && event.target.closest("[role=option]");
    document.querySelectorAll("input[data-suggest]").forEach(function (input) {
      var box = boxOf(input);
      if (option && box.contains(option)) {
        event.preventDefault(); choose(input, option);
      } else if (!box.contains(event.target) && event.target !== input) {
        close(input);
      }
    });
  });

  // A picked work in a list (snowball seeds): its remove button takes its key out.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-unpick]");
    if (!button) return;
    event.preventDefault();
    var hidden = document.getElementById(button.dataset.from);
    hidden.value = hidden.value.split(",").filter(function (k) { return k && k !== button.dataset.unpick; }).join(",");
    button.closest("li").remove();
    hidden.dispatchEvent(new Event("change", { bubbles: true }));
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    document.querySelectorAll("input[data-suggest]").forEach(function (input) {
      if (boxOf(input) === event.target) {
        input.setAttribute("aria-expanded", options(input).length ? "true" : "false");
        setActive(input, -1);
      }
    });
  });
})();
