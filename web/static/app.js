// Charter UI: progressive enhancement only; every page works without it.
"use strict";
(function () {
  // Times: the server writes UTC; show them in the viewer's time zone,
  // with UTC kept on hover (the title attribute).
  var full = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  var day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
  document.querySelectorAll("time[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (isNaN(d.getTime())) return;
    el.textContent = (el.hasAttribute("data-date") ? day : full).format(d);
  });
  // Filter forms marked data-autosubmit submit as a select or checkbox
  // changes; text fields still wait for Enter or the button.
  document.querySelectorAll("form[data-autosubmit]").forEach(function (form) {
    form.addEventListener("change", function (e) {
      var t = e.target;
      if (t.tagName === "SELECT" || t.type === "checkbox") form.requestSubmit();
    });
  });
})();
