// The /costs/ form: keep the address short and the state consistent.
// - Empty fields are left out of the address (they mean "the preset's value" or "the default").
// - Choosing another preset clears the sizes and the layer-dependent choices (sweep range,
//   operators), which may not apply to the new layer, and reloads the plots.
// No inline scripts: the Content Security Policy forbids them.
(function () {
  "use strict";
  var form = document.getElementById("cost-form");
  if (!form) return;

  function dropEmptyFields() {
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name) return;
      var empty = field.multiple ? field.selectedOptions.length === 0 : field.value === "";
      if (empty) field.disabled = true;
    });
  }

  function submit() {
    dropEmptyFields();
    form.submit();
  }

  form.addEventListener("submit", dropEmptyFields);

  var preset = document.getElementById("preset");
  if (preset) {
    preset.addEventListener("change", function () {
      form.querySelectorAll("[data-layer-size], [data-layer-choice]").forEach(function (field) {
        if (field.multiple) {
          Array.prototype.forEach.call(field.options, function (o) { o.selected = false; });
        } else if (field.tagName === "SELECT") {
          field.disabled = true; // back to the default choice
        } else {
          field.value = "";
        }
      });
      submit();
    });
  }
})();
