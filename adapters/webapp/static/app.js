// Small conveniences on top of pages that work without JavaScript.
(function () {
  "use strict";

  // One submit per form: a scanner's double Enter must not post twice.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.hasAttribute("data-once")) { return; }
    if (form.getAttribute("data-sent") === "1") { ev.preventDefault(); return; }
    form.setAttribute("data-sent", "1");
    var buttons = form.querySelectorAll("button[type=submit]");
    for (var i = 0; i < buttons.length; i++) { buttons[i].setAttribute("aria-busy", "true"); }
  });
  // A page restored from the back/forward cache may be submitted again.
  window.addEventListener("pageshow", function () {
    var sent = document.querySelectorAll("form[data-sent]");
    for (var i = 0; i < sent.length; i++) {
      sent[i].removeAttribute("data-sent");
      var buttons = sent[i].querySelectorAll("button[aria-busy]");
      for (var j = 0; j < buttons.length; j++) { buttons[j].removeAttribute("aria-busy"); }
    }
  });

  // Student suggestions while typing a name or number at the desk.
  var student = document.getElementById("checkout-student");
  var options = document.getElementById("student-options");
  var status = document.getElementById("student-lookup-status");
  var banner = document.getElementById("block-banner");

  // The student's standing, once the field names exactly one student: a
  // block shows before the copy is scanned (the server refuses the loan all
  // the same).
  function money(cents, currency) {
    return currency + " " + (cents / 100).toFixed(2);
  }
  function showStanding(id) {
    if (!banner) { return; }
    if (!id) { banner.hidden = true; banner.textContent = ""; return; }
    var url = banner.getAttribute("data-standing") + encodeURIComponent(id) + "/standing";
    var school = banner.getAttribute("data-school-id");
    if (school) { url += "?schoolId=" + encodeURIComponent(school); }
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (st) {
        banner.setAttribute("data-checked", id);
        if (!st) { banner.hidden = true; banner.textContent = ""; return; }
        if (!st.blocked) {
          // Not blocked: still worth a word at the desk.
          var notes = [];
          if (st.open_charges_cents > 0) { notes.push(money(st.open_charges_cents, st.currency) + " in open charges"); }
          if (st.claims_returned > 0) { notes.push(st.claims_returned + (st.claims_returned === 1 ? " claimed return" : " claimed returns")); }
          banner.className = "flash flash--info";
          banner.setAttribute("role", "status");
          banner.textContent = notes.length ? "This student has " + notes.join(" and ") + "." : "";
          banner.hidden = notes.length === 0;
          return;
        }
        banner.className = "flash flash--error";
        banner.setAttribute("role", "alert");
        var reasons = st.blocks.map(function (b) {
          if (b.reason === "overdue_items") {
            return b.current + " overdue " + (b.current === 1 ? "item" : "items") + " (the limit is " + b.limit + ")";
          }
          return money(b.current, st.currency) + " in open charges (the limit is " + money(b.limit, st.currency) + ")";
        });
        banner.textContent = "This student may not borrow: " + reasons.join("; ") + ".";
        banner.hidden = false;
      })
      .catch(function () { /* the server still refuses the loan */ });
  }

  if (student && options && window.fetch) {
    var timer = null, last = "";
    student.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var q = student.value.trim();
        if (q.length < 2) { showStanding(""); }
        if (q.length < 2 || q === last) { return; }
        last = q;
        var url = student.getAttribute("data-lookup") + "?search=" + encodeURIComponent(q);
        var school = student.getAttribute("data-school-id");
        if (school) { url += "&schoolId=" + encodeURIComponent(school); }
        fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
          .then(function (r) { return r.ok ? r.json() : { students: [] }; })
          .then(function (body) {
            var list = (body && body.students) || [];
            while (options.firstChild) { options.removeChild(options.firstChild); }
            list.slice(0, 20).forEach(function (s) {
              var o = document.createElement("option");
              o.value = s.student_number || s.name;
              o.label = s.student_number ? s.name + " (" + s.student_number + ")" : s.name;
              o.textContent = o.label;
              options.appendChild(o);
            });
            if (status) {
              status.textContent = list.length === 1 ? "1 student matches." : list.length + " students match.";
            }
            var exact = list.filter(function (s) {
              return s.student_number && s.student_number.toLowerCase() === q.toLowerCase();
            });
            var one = exact.length === 1 ? exact[0] : (list.length === 1 ? list[0] : null);
            showStanding(one ? one.student_id : "");
          })
          .catch(function () { /* suggestions are optional */ });
      }, 250);
    });
  }

  // Reading a chosen CSV file into the import box (the form posts text).
  var fileField = document.getElementById("import-file-field");
  var file = document.getElementById("import-file");
  var csv = document.getElementById("import-csv");
  if (fileField && file && csv && window.FileReader) {
    fileField.hidden = false;
    file.addEventListener("change", function () {
      if (!file.files || !file.files[0]) { return; }
      var reader = new FileReader();
      reader.onload = function () { csv.value = String(reader.result); csv.focus(); };
      reader.readAsText(file.files[0]);
    });
  }

  // Reading a scanner's text file into the stocktake's codes box.
  var scanFileField = document.getElementById("scan-file-field");
  var scanFile = document.getElementById("scan-file");
  var scanCodes = document.getElementById("scan-codes");
  if (scanFileField && scanFile && scanCodes && window.FileReader) {
    scanFileField.hidden = false;
    scanFile.addEventListener("change", function () {
      if (!scanFile.files || !scanFile.files[0]) { return; }
      var reader = new FileReader();
      reader.onload = function () { scanCodes.value = String(reader.result); scanCodes.focus(); };
      reader.readAsText(scanFile.files[0]);
    });
  }
})();
