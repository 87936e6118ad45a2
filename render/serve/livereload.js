// perflab serve: reloads the page after a rebuild and shows build errors
// over it. Injected by the preview server only; never part of a build.
(function () {
  "use strict";
  var cfg = window.__perflab;
  if (!cfg || !window.EventSource) {
    return;
  }
  var box = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    e.className = cls;
    e.textContent = text;
    return e;
  }

  function show(err) {
    if (!box) {
      box = document.createElement("div");
      box.id = "perflab-build-error";
      box.setAttribute("role", "alert");
      box.style.cssText =
        "position:fixed;z-index:2147483647;left:0;right:0;top:0;max-height:60vh;" +
        "overflow:auto;margin:0;padding:14px 20px;background:#fff5f5;color:#1a1a1a;" +
        "border-bottom:4px solid #c62828;box-shadow:0 4px 16px rgba(0,0,0,.25);" +
        "font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;text-align:left";
      (document.body || document.documentElement).appendChild(box);
    }
    box.textContent = "";
    var title = el("div", "perflab-error-title", "Build failed");
    title.style.cssText = "font-weight:700;color:#c62828;margin-bottom:4px";
    box.appendChild(title);
    if (err.file) {
      var loc = el("div", "perflab-error-location", err.file + (err.line ? ":" + err.line : ""));
      loc.style.fontWeight = "700";
      box.appendChild(loc);
    }
    var msg = el("pre", "perflab-error-message", err.message);
    msg.style.cssText = "white-space:pre-wrap;margin:4px 0;font:inherit";
    box.appendChild(msg);
    var hint = el("div", "perflab-error-hint",
      "This page was built before the error. It reloads by itself once the build succeeds.");
    hint.style.cssText = "color:#555;font-size:12px";
    box.appendChild(hint);
  }

  function hide() {
    if (box) {
      box.remove();
      box = null;
    }
  }

  function apply(st) {
    if (st.instance !== cfg.instance || st.gen !== cfg.gen) {
      location.reload();
      return;
    }
    if (st.error) {
      show(st.error);
    } else {
      hide();
    }
  }

  // Only a visible page keeps a stream open: over HTTP/1.1 a browser
  // opens at most 6 connections to a host, and a stream holds one for
  // good, so a seventh preview tab would never load. A page that becomes
  // visible again connects, and reloads if a build happened meanwhile.
  var es = null;

  function connect() {
    if (es) {
      return;
    }
    es = new EventSource(cfg.events);
    es.addEventListener("state", function (e) {
      apply(JSON.parse(e.data));
    });
  }

  function disconnect() {
    if (es) {
      es.close();
      es = null;
    }
  }

  function start() {
    if (cfg.error) {
      show(cfg.error);
    }
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) {
        disconnect();
      } else {
        connect();
      }
    });
    if (!document.hidden) {
      connect();
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
