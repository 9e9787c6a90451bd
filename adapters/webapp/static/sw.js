// The desk's service worker: while the server cannot be reached, the desk
// page still opens (its last copy, kept here), and its check-out and return
// forms keep their scans in IndexedDB for app.js to upload when the server
// answers again. Online, every request goes to the server as it is.
"use strict";

var PAGES = "desk-pages-v1";
var ASSETS = "desk-assets-v1";
// FALLBACK keeps the page shown for a desk not kept here, in the language
// of the last desk kept (the server's /offline-fallback of that desk). It
// holds nothing of the school or the person: a sign-out leaves it.
var FALLBACK = "desk-fallback-v1";
var FALLBACK_KEY = "/library/offline-fallback";
var DB_NAME = "library-offline";
var STORE = "scans";

// A school's desk is /library/{domain}, and a domain has a dot.
var DESK = /^\/library\/[^\/]*\.[^\/]*$/;
var SCAN = /^(\/library\/[^\/]*\.[^\/]*)\/(checkout|return)$/;

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (ev) {
  ev.waitUntil(self.clients.claim().then(function () {
    return self.clients.matchAll({ type: "window" });
  }).then(function (clients) {
    // The desk that installed the worker did not come through it: its
    // fallback page is fetched now.
    var desks = clients.map(function (c) { return new URL(c.url).pathname; }).filter(function (p) { return DESK.test(p); });
    if (desks.length) { return keepFallback(desks[0], null); }
  }));
});

function openDB() {
  return new Promise(function (resolve, reject) {
    var req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = function () {
      req.result.createObjectStore(STORE, { keyPath: "seq", autoIncrement: true });
    };
    req.onsuccess = function () { resolve(req.result); };
    req.onerror = function () { reject(req.error); };
  });
}

function keepScan(scan) {
  return openDB().then(function (db) {
    return new Promise(function (resolve, reject) {
      var tx = db.transaction(STORE, "readwrite");
      tx.objectStore(STORE).add(scan);
      tx.oncomplete = function () { db.close(); resolve(); };
      tx.onerror = function () { db.close(); reject(tx.error); };
    });
  });
}

// unreachable: no answer, or a gateway's answer for a server that is down.
function unreachable(resp) {
  return resp.status === 502 || resp.status === 503 || resp.status === 504;
}

function deskKey(url) { return url.origin + url.pathname; }

// keepFallback keeps desk's fallback page, unless the one kept is in lang
// already (the desk's Content-Language; null asks for it anyway).
function keepFallback(desk, lang) {
  return caches.open(FALLBACK).then(function (c) {
    return c.match(FALLBACK_KEY).then(function (hit) {
      if (hit && lang && hit.headers.get("Content-Language") === lang) { return; }
      return fetch(desk + "/offline-fallback", { credentials: "same-origin" }).then(function (resp) {
        if (resp.ok && !resp.redirected) { return c.put(FALLBACK_KEY, resp); }
      });
    });
  }).catch(function () { /* the English page of cachedDesk stands in */ });
}

function deskPage(req, url) {
  return fetch(req).then(function (resp) {
    if (unreachable(resp)) { return cachedDesk(url, resp); }
    // Only the desk itself is kept: not a redirect to the sign-in page.
    if (resp.ok && !resp.redirected) {
      var copy = resp.clone();
      caches.open(PAGES).then(function (c) { return c.put(deskKey(url), copy); });
      keepFallback(url.pathname, resp.headers.get("Content-Language"));
    }
    return resp;
  }, function () { return cachedDesk(url, null); });
}

function cachedDesk(url, answer) {
  return caches.open(PAGES).then(function (c) { return c.match(deskKey(url)); }).then(function (hit) {
    if (hit) { return hit; }
    if (answer) { return answer; }
    return caches.open(FALLBACK).then(function (c) { return c.match(FALLBACK_KEY); }).then(function (page) {
      // Served as the server's page, in its language, but as unreachable.
      if (page) { return new Response(page.body, { status: 503, headers: page.headers }); }
      return englishFallback();
    });
  });
}

// englishFallback is the page for a desk not kept before any fallback
// was: the worker has only English of its own.
function englishFallback() {
  return new Response("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Offline · School library</title></head>" +
    "<body><main><h1>The server cannot be reached</h1><p>This desk has not been opened on this computer while the server answered, " +
    "so it cannot work offline yet. Try again when the server answers.</p></main></body></html>",
    { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

function asset(req) {
  return caches.open(ASSETS).then(function (c) {
    return c.match(req).then(function (hit) {
      if (hit) { return hit; }
      return fetch(req).then(function (resp) {
        if (resp.ok) {
          // A new version of a file replaces the ones kept before it.
          var path = new URL(req.url).pathname;
          c.keys().then(function (keys) {
            keys.forEach(function (k) {
              if (new URL(k.url).pathname === path && k.url !== req.url) { c.delete(k); }
            });
          });
          c.put(req, resp.clone());
        }
        return resp;
      });
    });
  });
}

// scan posts a check-out or return; when the server cannot be reached it
// keeps the scan and sends the desk back to its page.
function scan(req, desk, kind) {
  var form = req.clone();
  function keep() {
    return form.formData().then(function (f) {
      var back = self.location.origin + desk;
      var code = String(f.get("code") || "").trim();
      var student = String(f.get("student") || "").trim();
      if (kind === "return" && f.get("damaged") === "true") {
        // A damage note and charge need the server: the copy waits aside.
        return Response.redirect(back + "#offline-damaged", 303);
      }
      if (!code || (kind === "checkout" && !student)) {
        return Response.redirect(back + "#offline-incomplete", 303);
      }
      return keepScan({
        id: self.crypto.randomUUID(), desk: desk, kind: kind, code: code,
        student: kind === "checkout" ? student : "", scanned_at: new Date().toISOString()
      }).then(function () { return Response.redirect(back + "#offline-kept-" + kind, 303); });
    });
  }
  return fetch(req).then(function (resp) {
    return unreachable(resp) ? keep() : resp;
  }, keep);
}

self.addEventListener("fetch", function (ev) {
  var req = ev.request;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) { return; }
  if (req.method === "GET" && req.mode === "navigate" && DESK.test(url.pathname)) {
    ev.respondWith(deskPage(req, url));
    return;
  }
  if (req.method === "GET" && url.pathname.indexOf("/library/assets/") === 0 && url.pathname !== "/library/assets/sw.js") {
    ev.respondWith(asset(req));
    return;
  }
  if (req.method === "POST" && url.pathname === "/api/auth/logout") {
    // Signing out forgets the kept desk pages (the scans stay, to upload).
    ev.waitUntil(caches.delete(PAGES));
    return;
  }
  var m = req.method === "POST" ? SCAN.exec(url.pathname) : null;
  if (m) { ev.respondWith(scan(req, m[1], m[2])); }
});
