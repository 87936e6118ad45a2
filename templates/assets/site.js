// perflab site script: theme switch, charts, sortable tables, copy
// buttons, search. No dependencies beyond echarts (loaded only on pages
// with charts).
(function () {
  "use strict";
  var root = document.documentElement;
  // The way from this page to the site's root: "../../" (relative links,
  // the default) or the base URL.
  var base = document.body.getAttribute("data-base") || "";

  // Theme.
  function theme() { return root.getAttribute("data-theme") === "dark" ? "dark" : "light"; }
  var toggle = document.querySelector(".theme-toggle");
  if (toggle) toggle.addEventListener("click", function () {
    var t = theme() === "dark" ? "light" : "dark";
    root.setAttribute("data-theme", t);
    try { localStorage.setItem("perflab-theme", t); } catch (e) {}
    drawCharts();
  });

  // Navigation drawer on phones.
  var navBtn = document.querySelector(".nav-toggle");
  if (navBtn) navBtn.addEventListener("click", function () {
    var open = document.body.classList.toggle("nav-open");
    navBtn.setAttribute("aria-expanded", open ? "true" : "false");
  });

  // Charts: each .chart has its option in a JSON script element.
  var instances = [], options = [];
  // fit sizes a chart's labels to its width: every benchmark case's name
  // is shown, wrapped to its group's width (ECharts' hideOverlap dropped
  // every other name on a phone, leaving bar groups unnamed), and on a
  // narrow chart bar value labels that would overlap are left to the
  // tooltip.
  function fit(chart, opt) {
    var width = chart.getWidth();
    if (!width) return; // inside a closed <details>: fitted when it opens
    var xs = (opt.xAxis || []).map(function (ax) {
      var n = ax.data ? ax.data.length : 0;
      if (ax.type !== "category" || !n) return {};
      return { axisLabel: { interval: 0, hideOverlap: false, overflow: "break", width: Math.max(30, Math.floor(width * 0.9 / n) - 4) } };
    });
    var narrow = width < 600;
    var ss = (opt.series || []).map(function () { return { labelLayout: { hideOverlap: narrow } }; });
    chart.setOption({ xAxis: xs, series: ss });
  }
  // historyTip draws a history chart's hover text (render/history.go)
  // from the option's "history": the round's id, date and commit, the
  // line's engine, the mean with its spread, its failed requests, and
  // the change point.
  function historyTip(h) {
    var esc = echarts.format.encodeHTML;
    return function (p) {
      if (p.componentType === "markPoint") return esc(p.seriesName) + "<br/>" + (p.name ? esc(p.name) : "change point " + esc(String(p.value)));
      if (p.componentType !== "series") return esc(p.name || "");
      var ri = p.dataIndex, li = p.seriesIndex, y = 1 + 3 * li, row = p.value, r = h.rounds[ri] || ["", "", ""];
      var s = esc(p.seriesName) + "<br/>round " + esc(r[0]) + (r[1] ? " · " + esc(r[1]) : "");
      s += "<br/>" + row[y].toFixed(1) + " tok/s/GPU";
      if (row[y + 2] > 1) s += " ± " + row[y + 1] + "% (n=" + row[y + 2] + ")";
      var eng = "";
      (h.engines[li] || []).forEach(function (e) { if (e[0] <= ri) eng = e[1]; });
      if (eng) s += "<br/>" + esc(eng);
      if (r[2]) s += "<br/>commit " + esc(r[2]);
      var fl = h.failed && h.failed[li + ":" + ri];
      if (fl) s += "<br/>" + esc(fl);
      var ch = h.changes && h.changes[li + ":" + ri];
      if (ch) s += "<br/><b>" + esc(ch) + "</b>";
      return s;
    };
  }
  function drawCharts() {
    if (typeof echarts === "undefined") return;
    instances.forEach(function (c) { c.dispose(); });
    instances = [];
    options = [];
    document.querySelectorAll(".chart").forEach(function (el) {
      var src = document.getElementById(el.getAttribute("data-chart"));
      if (!src) return;
      var chart = echarts.init(el, theme() === "dark" ? "dark" : null, { renderer: "canvas" });
      var opt = JSON.parse(src.textContent);
      if (opt.history) {
        opt.tooltip.formatter = historyTip(opt.history);
        delete opt.history;
      }
      chart.setOption(opt);
      fit(chart, opt);
      instances.push(chart);
      options.push(opt);
    });
  }
  function resizeCharts() {
    instances.forEach(function (c, i) { c.resize(); fit(c, options[i]); });
  }
  window.perflabCharts = function () { return instances; };
  drawCharts();
  window.addEventListener("resize", resizeCharts);
  // A chart inside a closed <details> has no size until it opens.
  document.querySelectorAll("details").forEach(function (d) {
    d.addEventListener("toggle", resizeCharts);
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.setAttribute("open", "open"); });
  });

  // Sortable tables: click a header; numeric columns sort by data-sort.
  function cellKey(td, numeric) {
    if (!td) return numeric ? -Infinity : "";
    var v = td.getAttribute("data-sort");
    if (numeric) {
      if (v === null || v === "") v = td.textContent.replace(/[^0-9.+-]/g, "");
      var n = parseFloat(v);
      return isNaN(n) ? -Infinity : n;
    }
    return (v !== null && v !== "" ? v : td.textContent).trim().toLowerCase();
  }
  document.querySelectorAll("article table").forEach(function (table) {
    var head = table.tHead;
    if (!head || !table.tBodies[0]) return;
    table.classList.add("sortable");
    Array.prototype.forEach.call(head.rows[0].cells, function (th, col) {
      th.setAttribute("tabindex", "0");
      function sort() {
        var numeric = th.getAttribute("data-sort-type") === "number";
        var dir = th.getAttribute("aria-sort") === "descending" ? "ascending" : "descending";
        if (!numeric && !th.getAttribute("aria-sort")) dir = "ascending";
        Array.prototype.forEach.call(head.rows[0].cells, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.forEach(function (r, i) { r._i = i; });
        rows.sort(function (a, b) {
          var x = cellKey(a.cells[col], numeric), y = cellKey(b.cells[col], numeric);
          var c = x < y ? -1 : x > y ? 1 : a._i - b._i;
          return dir === "ascending" ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  });

  // Copy buttons.
  document.querySelectorAll(".highlight .copy").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var code = btn.parentNode.querySelector("pre");
      var text = code ? code.innerText : "";
      function done(ok) { btn.textContent = ok ? "Copied" : "Press Ctrl+C"; setTimeout(function () { btn.textContent = "Copy"; }, 1500); }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
      } else {
        var r = document.createRange(); r.selectNodeContents(code);
        var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
        var ok = false; try { ok = document.execCommand("copy"); } catch (e) {}
        done(ok);
      }
    });
  });

  // Search: every word must occur in the title, tags or text.
  var input = document.getElementById("search"), list = document.getElementById("search-results");
  var index = null, loading = false;
  function load(then) {
    if (index) return then();
    if (loading) return;
    loading = true;
    // A script, not fetch(): it also loads from file://.
    var s = document.createElement("script");
    s.src = base + "search.js";
    s.onload = function () { index = window.perflabSearch || []; then(); };
    s.onerror = function () { loading = false; };
    document.head.appendChild(s);
  }
  function show() {
    var q = input.value.trim().toLowerCase();
    list.innerHTML = "";
    if (!q) { list.hidden = true; return; }
    var words = q.split(/\s+/), hits = [];
    index.forEach(function (e) {
      var hay = (e.title + " " + (e.tags || "") + " " + e.text).toLowerCase(), score = 0;
      for (var i = 0; i < words.length; i++) {
        if (hay.indexOf(words[i]) < 0) return;
        if (e.title.toLowerCase().indexOf(words[i]) >= 0) score += 10;
      }
      hits.push({ e: e, s: score });
    });
    hits.sort(function (a, b) { return b.s - a.s; });
    hits.slice(0, 12).forEach(function (h) {
      var li = document.createElement("li"), a = document.createElement("a");
      a.href = base + h.e.url; a.textContent = h.e.title;
      var i = h.e.text.toLowerCase().indexOf(words[0]);
      if (i >= 0) {
        var sm = document.createElement("small");
        sm.textContent = (i > 40 ? "…" : "") + h.e.text.slice(Math.max(0, i - 40), i + 80) + "…";
        a.appendChild(sm);
      }
      li.appendChild(a); list.appendChild(li);
    });
    if (!hits.length) { var li = document.createElement("li"); li.textContent = "No match"; li.style.padding = "0.4rem 0.75rem"; list.appendChild(li); }
    list.hidden = false;
  }
  if (input) {
    input.addEventListener("input", function () { load(show); });
    input.addEventListener("focus", function () { load(function () {}); });
    input.addEventListener("keydown", function (e) { if (e.key === "Escape") { input.value = ""; list.hidden = true; } });
    document.addEventListener("click", function (e) { if (!e.target.closest(".search")) list.hidden = true; });
  }
})();
