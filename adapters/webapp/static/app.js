// Small conveniences on top of pages that work without JavaScript, and
// the offline desk, which needs it.
(function () {
  "use strict";

  // The texts this script shows, in the page's language: the layout gives
  // them as JSON (adapters/webapp/pagetexts.go), each under its English
  // text, the catalogues' key, written here as it is there. A text's {1},
  // {2}… stand where its key has its first, second… %s. Without them (a
  // desk page kept from an older version) the script speaks English.
  var page = (function () {
    var block = document.getElementById("page-texts");
    try { return (block && JSON.parse(block.textContent)) || {}; } catch (e) { return {}; }
  })();
  function text(key) {
    var said = page.texts && page.texts[key];
    if (typeof said !== "string") {
      var n = 0;
      said = key.replace(/^[a-z-]+\|/, "").replace(/%s/g, function () { n++; return "{" + n + "}"; });
    }
    var args = arguments;
    // One pass, so a value that holds "{2}" (a name) stays as it is.
    return said.replace(/\{([1-9])\}/g, function (slot, i) { return i < args.length ? String(args[i]) : slot; });
  }
  // The digits of s as the page's language writes them.
  function digits(s) {
    var d = page.digits && page.digits.length === 10 ? page.digits : null;
    return d ? String(s).replace(/[0-9]/g, function (c) { return d[+c]; }) : String(s);
  }
  // A count as the pages write it: 1,234 / 1.234 / ١٬٢٣٤.
  function number(n) {
    var s = String(n);
    var group = typeof page.group === "string" ? page.group : ",";
    if (/^[0-9]{4,}$/.test(s)) {
      s = s.replace(/\B(?=([0-9]{3})+$)/g, "\u0000");
    }
    return digits(s).split("\u0000").join(group);
  }

  // The page that answers a form post puts the focus where its answer is:
  // on the first field it refused, else on the form's error, else on its
  // message, so that neither the keyboard nor a screen reader starts
  // again at the top of the page. A page that focuses a field itself (an
  // autofocus, as the desk's scan fields have) keeps that focus.
  (function () {
    if (document.querySelector("[autofocus]") || (document.activeElement && document.activeElement !== document.body)) { return; }
    var target = document.querySelector("main [aria-invalid=true]");
    if (target && !/^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) {
      // A group (a fieldset of checkboxes): its first field.
      target = target.querySelector("input, select, textarea");
    }
    if (!target) {
      target = document.querySelector("main .error-summary") || document.getElementById("flash");
      if (target) { target.setAttribute("tabindex", "-1"); }
    }
    if (target) { target.focus(); }
  })();

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
  // An amount as the server writes it (i18n's Money): "USD 12.50" in
  // English, CLDR's form elsewhere, which the browser's Intl also holds
  // ("12,50 US$", "‏١٢٫٥٠ US$" in Arabic's own digits).
  function money(cents, currency) {
    var lang = document.documentElement.lang;
    if (lang && lang !== "en" && window.Intl) {
      try {
        return new Intl.NumberFormat(lang === "ar" ? "ar-u-nu-arab" : lang,
          { style: "currency", currency: currency, useGrouping: "always" }).format(cents / 100);
      } catch (e) { /* a code Intl refuses: written as English writes it */ }
    }
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
          if (st.open_charges_cents > 0) { notes.push(text("%s in open charges", money(st.open_charges_cents, st.currency))); }
          if (st.claims_returned > 0) { notes.push(st.claims_returned === 1 ? text("1 claimed return") : text("%s claimed returns", number(st.claims_returned))); }
          banner.className = "flash flash--info";
          banner.setAttribute("role", "status");
          banner.textContent = notes.length === 2 ? text("This student has %s and %s.", notes[0], notes[1]) :
            notes.length === 1 ? text("This student has %s.", notes[0]) : "";
          banner.hidden = notes.length === 0;
          return;
        }
        banner.className = "flash flash--error";
        banner.setAttribute("role", "alert");
        var reasons = st.blocks.map(function (b) {
          if (b.reason === "overdue_items") {
            return b.current === 1 ? text("1 overdue item (the limit is %s)", number(b.limit)) :
              text("%s overdue items (the limit is %s)", number(b.current), number(b.limit));
          }
          return text("%s in open charges (the limit is %s)", money(b.current, st.currency), money(b.limit, st.currency));
        });
        banner.textContent = text("This student may not borrow: %s.", reasons.reduce(function (all, reason) {
          return text("%s; %s", all, reason);
        }));
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
              status.textContent = list.length === 1 ? text("1 student matches.") : text("%s students match.", number(list.length));
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

  // The offline desk. The service worker (sw.js) keeps the desk page and,
  // while the server cannot be reached, the check-outs and returns scanned
  // here, each with an id of its own; this uploads them, oldest first, when
  // the server answers, and shows what waits. An upload the server answered
  // removes those scans; one it did not answer keeps them all.
  var offline = document.getElementById("offline-desk");
  if (offline && window.indexedDB && navigator.serviceWorker) {
    navigator.serviceWorker.register(offline.getAttribute("data-worker"), { scope: "/library/" })
      .catch(function () { /* the desk works online without it */ });
    var desk = offline.getAttribute("data-desk");
    var statusLine = document.getElementById("offline-status");
    var waitingBody = document.getElementById("offline-waiting-rows");
    var waitingTable = document.getElementById("offline-waiting");
    var results = document.getElementById("offline-results");
    var uploading = false, retry = null, serverDown = false, refreshed = false;

    var openDB = function () {
      return new Promise(function (resolve, reject) {
        var req = indexedDB.open("library-offline", 1);
        req.onupgradeneeded = function () {
          req.result.createObjectStore("scans", { keyPath: "seq", autoIncrement: true });
        };
        req.onsuccess = function () { resolve(req.result); };
        req.onerror = function () { reject(req.error); };
      });
    };
    var waitingScans = function () {
      return openDB().then(function (db) {
        return new Promise(function (resolve, reject) {
          var req = db.transaction("scans").objectStore("scans").getAll();
          req.onsuccess = function () {
            db.close();
            resolve(req.result.filter(function (s) { return s.desk === desk; }));
          };
          req.onerror = function () { db.close(); reject(req.error); };
        });
      });
    };
    var forget = function (seqs) {
      return openDB().then(function (db) {
        return new Promise(function (resolve, reject) {
          var tx = db.transaction("scans", "readwrite");
          seqs.forEach(function (seq) { tx.objectStore("scans").delete(seq); });
          tx.oncomplete = function () { db.close(); resolve(); };
          tx.onerror = function () { db.close(); reject(tx.error); };
        });
      });
    };
    var cell = function (row, text) {
      var td = document.createElement("td");
      td.textContent = text;
      row.appendChild(td);
    };
    var say = function (text) {
      statusLine.textContent = text;
      offline.hidden = false;
    };
    var show = function (scans) {
      while (waitingBody.firstChild) { waitingBody.removeChild(waitingBody.firstChild); }
      scans.forEach(function (s) {
        var tr = document.createElement("tr");
        tr.setAttribute("data-testid", "offline-waiting-row");
        tr.setAttribute("data-code", s.code);
        cell(tr, digits(new Date(s.scanned_at).toLocaleTimeString(document.documentElement.lang || undefined)));
        cell(tr, s.kind === "checkout" ? text("Check-out") : text("scan|Return"));
        cell(tr, s.code);
        cell(tr, s.student);
        waitingBody.appendChild(tr);
      });
      waitingTable.hidden = scans.length === 0;
      // Once the section has said something (an upload's outcome, the
      // server answering again) it stays until the desk is reloaded.
      if (scans.length === 0 && !serverDown && !results.firstChild && !statusLine.textContent) { offline.hidden = true; }
    };
    var later = function (ms) {
      clearTimeout(retry);
      retry = setTimeout(sync, ms);
    };
    var down = function (scans) {
      serverDown = true;
      // The page may be the copy the worker kept: its answer to the last
      // scan made online (the message, a put-aside banner, the receipt,
      // the reading question) is old news.
      ["flash", "put-aside-banner", "receipt-links", "finished-form"].forEach(function (id) {
        var old = document.getElementById(id);
        if (old) { old.hidden = true; }
      });
      say(text("The server cannot be reached. Scans are kept on this computer (%s waiting) and uploaded when it answers; the loans list below may be out of date.", number(scans.length)));
      later(5000);
    };
    var report = function (answered) {
      var done = 0, conflicts = 0;
      answered.forEach(function (r) {
        if (r.status === "conflict") { conflicts++; } else if (r.status === "applied") { done++; }
        if (r.put_aside) {
          var li = document.createElement("li");
          li.textContent = r.put_aside.homeroom ?
            text("%s: put it aside for %s, %s, who holds this book.", r.code, r.put_aside.student_name, r.put_aside.homeroom) :
            text("%s: put it aside for %s, who holds this book.", r.code, r.put_aside.student_name);
          results.appendChild(li);
        }
      });
      var said;
      if (conflicts > 0) {
        said = answered.length === 1 ?
          text("Uploaded 1 offline scan: %s done, %s to settle on the Offline scans page.", number(done), number(conflicts)) :
          text("Uploaded %s offline scans: %s done, %s to settle on the Offline scans page.", number(answered.length), number(done), number(conflicts));
        document.getElementById("offline-conflicts-link").hidden = false;
      } else {
        said = answered.length === 1 ?
          text("Uploaded 1 offline scan: %s done.", number(done)) :
          text("Uploaded %s offline scans: %s done.", number(answered.length), number(done));
      }
      say(said + " " + text("Reload the desk to see the loans as they are now."));
    };
    var sync = function () {
      if (uploading) { return; }
      uploading = true;
      waitingScans().then(function (scans) {
        show(scans);
        if (scans.length === 0) {
          // Nothing to upload: only find out whether the server answers.
          return fetch("/healthz", { cache: "no-store" }).then(function (r) {
            if (r.status >= 502 && r.status <= 504) { throw new Error("down"); }
            if (serverDown) { serverDown = false; say(text("The server answers again.")); }
          }).catch(function () { down(scans); });
        }
        var batch = scans.slice(0, 500);
        var url = offline.getAttribute("data-upload");
        var school = offline.getAttribute("data-school-id");
        if (school) { url += "?schoolId=" + encodeURIComponent(school); }
        var body = JSON.stringify({ scans: batch.map(function (s) {
          return { id: s.id, kind: s.kind, code: s.code, student: s.student, scanned_at: s.scanned_at };
        }) });
        return fetch(url, { method: "POST", credentials: "same-origin", cache: "no-store",
          headers: { "Content-Type": "application/json", "Accept": "application/json" }, body: body })
          .then(function (r) {
            if (r.status >= 502 && r.status <= 504) { throw new Error("down"); }
            serverDown = false;
            if (r.status === 401) {
              // The access cookie ran out during the outage: renew it once
              // with the session's refresh cookie, then upload again.
              if (refreshed) {
                say(text("Sign in again to upload the %s scans kept on this computer. They stay here until then.", number(scans.length)));
                return null;
              }
              refreshed = true;
              return fetch("/api/auth/refresh", { method: "POST", credentials: "same-origin", cache: "no-store" })
                .then(function () { later(0); });
            }
            refreshed = false;
            return r.json().then(function (answer) {
              if (!r.ok) {
                say(text("The server refused the upload (%s). The scans stay on this computer.", (answer.error && answer.error.message) || r.status));
                later(30000);
                return null;
              }
              var byID = {}, settled = [], answered = [];
              answer.results.forEach(function (res) { byID[res.id] = res; });
              batch.forEach(function (s) {
                var res = byID[s.id];
                if (res && res.status !== "pending") { settled.push(s.seq); answered.push(res); }
              });
              return forget(settled).then(function () {
                report(answered);
                return waitingScans().then(function (left) {
                  show(left);
                  if (left.length > 0) { later(2000); }
                });
              });
            });
          })
          .catch(function () { down(scans); });
      }).catch(function () { /* no IndexedDB in this browser mode */ })
        .then(function () { uploading = false; });
    };
    // The page after an offline scan is the kept one, whose autofocus is
    // that of the last answer online: as online, the next scan goes to
    // the form of this one (focusing first cancels the autofocus).
    var focusOn = function (id) {
      var f = document.getElementById(id);
      if (f) { f.focus(); }
    };
    var hash = window.location.hash;
    if (hash.indexOf("#offline-kept") === 0) {
      say(text("The server cannot be reached: the scan is kept on this computer."));
      focusOn(hash === "#offline-kept-return" ? "return-code" : "checkout-code");
    } else if (hash === "#offline-damaged") {
      say(text("The server cannot be reached, and a damaged return needs it: set the copy aside and return it when the server answers."));
      focusOn("return-code");
    } else if (hash === "#offline-incomplete") {
      say(text("The server cannot be reached: scan the copy and type the student's number to keep a check-out."));
      focusOn("checkout-code");
    }
    if (hash.indexOf("#offline-") === 0 && window.history.replaceState) {
      window.history.replaceState(null, "", window.location.pathname + window.location.search);
    }
    sync();
    setInterval(sync, 15000);
    window.addEventListener("online", function () { later(0); });
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

  // A job running in the background (a holdings import, a roster sync):
  // its card asks the job's state every few seconds and, once the job has
  // ended, takes the outcome from the job's page into the card, in place.
  // The card is a polite live region (role=status), so a screen reader
  // reads the outcome out when it comes, and nothing else on the page
  // moves or reloads under the reader (no meta refresh: WCAG 2.2.1).
  // Without script the card's link loads the page again.
  var jobCards = document.querySelectorAll("[data-job][data-job-page]");
  Array.prototype.forEach.call(jobCards, function (card) {
    var state = card.getAttribute("data-job");
    var page = card.getAttribute("data-job-page");
    var watch = card.querySelector(".job-watch");
    if (watch) { watch.hidden = false; }
    var misses = 0, refreshed = false;
    var later = function () {
      // A server that does not answer is asked less and less often.
      setTimeout(ask, misses ? Math.min(3000 * Math.pow(2, misses), 60000) : 3000);
    };
    var show = function (html) {
      var ended = new DOMParser().parseFromString(html, "text/html").getElementById(card.id);
      if (!ended || ended.hasAttribute("data-job")) { later(); return; }
      var hadFocus = card.contains(document.activeElement);
      card.innerHTML = ended.innerHTML;
      card.setAttribute("data-state", ended.getAttribute("data-state") || "");
      card.removeAttribute("data-job");
      card.removeAttribute("data-job-page");
      if (hadFocus) {
        // The focused link is gone with the running card: the focus stays
        // in the card rather than falling back to the page's start.
        card.setAttribute("tabindex", "-1");
        card.focus();
      }
    };
    var ask = function () {
      fetch(state, { credentials: "same-origin", cache: "no-store", headers: { "Accept": "application/json" } })
        .then(function (r) {
          if (r.status === 401 && !refreshed) {
            // The access cookie ran out during a long job: renew it once
            // with the session's refresh cookie, then ask again.
            refreshed = true;
            return fetch("/api/auth/refresh", { method: "POST", credentials: "same-origin", cache: "no-store" })
              .then(function () { later(); });
          }
          if (r.status >= 400 && r.status < 500) { return null; } // signed out, or the job is gone: the link stays
          if (!r.ok) { throw new Error(String(r.status)); }
          refreshed = false;
          return r.json().then(function (body) {
            misses = 0;
            if (body && body.job && body.job.state === "running") { later(); return; }
            return fetch(page, { credentials: "same-origin", cache: "no-store" }).then(function (p) {
              if (!p.ok) { throw new Error(String(p.status)); }
              return p.text().then(show);
            });
          });
        })
        .catch(function () { misses++; later(); });
    };
    later();
  });
})();
