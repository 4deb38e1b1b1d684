// spritebake check report: views, zoom, background, filter, frame player. No network, no
// data written into the page as HTML: every text set here is textContent.
(function () {
  "use strict";
  var body = document.body;
  var VIEWS = ["side", "diff", "slider", "blink"], ZOOMS = ["auto", "1", "2", "4", "8"];
  var BGS = ["checker", "black", "white"];
  var state = { view: "side", zoom: "auto", bg: "checker", filter: "", status: "" };
  var params = new URLSearchParams(location.hash.slice(1));
  [["view", VIEWS], ["zoom", ZOOMS], ["bg", BGS]].forEach(function (p) {
    var v = params.get(p[0]);
    if (v && p[1].indexOf(v) >= 0) state[p[0]] = v;
  });
  state.filter = params.get("filter") || "";
  state.status = params.get("status") || "";
  var filterBox = document.getElementById("filter");
  if (filterBox) filterBox.value = state.filter;

  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function autoZoom(w) { return w * 8 <= 320 ? 8 : w * 4 <= 320 ? 4 : w * 2 <= 320 ? 2 : 1; }
  function setZoom(viewer) {
    var w = parseFloat(viewer.style.getPropertyValue("--w")) || 1;
    viewer.style.setProperty("--z", state.zoom === "auto" ? autoZoom(w) : state.zoom);
  }
  function saveHash() {
    var p = new URLSearchParams();
    p.set("view", state.view);
    if (state.zoom !== "auto") p.set("zoom", state.zoom);
    if (state.bg !== "checker") p.set("bg", state.bg);
    if (state.filter) p.set("filter", state.filter);
    if (state.status) p.set("status", state.status);
    history.replaceState(null, "", "#" + p.toString());
  }
  function filter() {
    var q = state.filter.toLowerCase(), shown = 0;
    all(document, ".case, .case-row").forEach(function (el) {
      var ok = (!q || el.dataset.name.toLowerCase().indexOf(q) >= 0) && (!state.status || el.dataset.status === state.status);
      el.hidden = !ok;
      if (ok) shown++;
    });
    all(document, ".passing").forEach(function (s) { s.hidden = all(s, ".case-row:not([hidden])").length === 0; });
    all(document, ".none-shown").forEach(function (p) { p.hidden = shown > 0 || !(q || state.status); });
    all(document, ".count").forEach(function (b) { b.classList.toggle("off", !!state.status && b.dataset.status !== state.status); });
  }
  function apply() {
    VIEWS.forEach(function (v) { body.classList.toggle("view-" + v, v === state.view); });
    BGS.forEach(function (b) { body.classList.toggle("bg-" + b, b === state.bg); });
    all(document, "[data-view]").forEach(function (b) { b.classList.toggle("on", b.dataset.view === state.view); });
    all(document, "[data-zoom]").forEach(function (b) { b.classList.toggle("on", b.dataset.zoom === state.zoom); });
    all(document, "[data-bg]").forEach(function (b) { b.classList.toggle("on", b.dataset.bg === state.bg); });
    all(document, ".viewer").forEach(setZoom);
    filter();
  }
  all(document, "[data-view]").forEach(function (b) { b.addEventListener("click", function () { state.view = b.dataset.view; apply(); saveHash(); }); });
  all(document, "[data-zoom]").forEach(function (b) { b.addEventListener("click", function () { state.zoom = b.dataset.zoom; apply(); saveHash(); }); });
  all(document, "[data-bg]").forEach(function (b) { b.addEventListener("click", function () { state.bg = b.dataset.bg; apply(); saveHash(); }); });
  all(document, ".count").forEach(function (b) {
    b.addEventListener("click", function () { state.status = state.status === b.dataset.status ? "" : b.dataset.status; filter(); saveHash(); });
  });
  if (filterBox) filterBox.addEventListener("input", function () { state.filter = filterBox.value; filter(); saveHash(); });

  var current = null;
  function setImg(img, src) {
    if (src) { img.src = src; img.hidden = false; } else { img.removeAttribute("src"); img.hidden = true; }
  }
  function select(section, j) {
    var viewer = section.querySelector(".viewer"), frames = all(section, ".strip .frame"), b = frames[j];
    if (!viewer || !b) return;
    current = section;
    viewer.dataset.selected = j;
    frames.forEach(function (f) { f.classList.toggle("selected", f === b); });
    viewer.style.setProperty("--w", b.dataset.w);
    viewer.style.setProperty("--h", b.dataset.h);
    setZoom(viewer);
    all(viewer, "img.expected").forEach(function (i) { setImg(i, b.dataset.expected); });
    all(viewer, "img.actual").forEach(function (i) { setImg(i, b.dataset.actual); });
    all(viewer, "img.diff").forEach(function (i) { setImg(i, b.dataset.diff); });
    all(viewer, ".same").forEach(function (s) { s.hidden = !!b.dataset.diff; });
    all(viewer, ".cells").forEach(function (c) { c.hidden = j !== 0; });
    all(viewer, "table.numbers").forEach(function (t) { t.hidden = +t.dataset.frame !== j; });
    var pos = section.querySelector(".position");
    if (pos) pos.textContent = (j + 1) + " / " + frames.length + ": " + b.dataset.label;
  }
  function selected(section) {
    var v = section.querySelector(".viewer");
    return v ? +v.dataset.selected : 0;
  }
  function step(section, how) {
    var n = all(section, ".strip .frame").length, j = selected(section);
    if (!n) return;
    if (how === "first") j = 0;
    else if (how === "last") j = n - 1;
    else if (how === "fail") {
      var frames = all(section, ".strip .frame");
      for (var k = 1; k <= n; k++) {
        if (frames[(j + k) % n].classList.contains("failing")) { j = (j + k) % n; break; }
      }
    } else j = (j + (+how) + n) % n;
    select(section, j);
  }
  all(document, ".case").forEach(function (section) {
    all(section, ".strip .frame").forEach(function (b) {
      b.addEventListener("click", function () { stop(section); select(section, +b.dataset.frame); });
    });
    all(section, ".cell[data-frame]").forEach(function (c) {
      c.addEventListener("click", function () { stop(section); select(section, +c.dataset.frame); });
    });
    all(section, "[data-step]").forEach(function (b) {
      b.addEventListener("click", function () { stop(section); step(section, b.dataset.step); });
    });
    var play = section.querySelector(".play");
    if (play) play.addEventListener("click", function () { if (section.timer) stop(section); else start(section); });
    var swipe = section.querySelector(".swipe"), slider = section.querySelector(".pane.slider");
    if (swipe && slider) {
      swipe.addEventListener("input", function () { slider.style.setProperty("--pos", swipe.value); });
      var pic = slider.querySelector(".pic"), dragging = false;
      var move = function (e) {
        var r = pic.getBoundingClientRect();
        var v = Math.max(0, Math.min(100, (e.clientX - r.left) * 100 / r.width));
        swipe.value = v;
        slider.style.setProperty("--pos", v);
      };
      pic.addEventListener("pointerdown", function (e) { dragging = true; pic.setPointerCapture(e.pointerId); move(e); });
      pic.addEventListener("pointermove", function (e) { if (dragging) move(e); });
      pic.addEventListener("pointerup", function () { dragging = false; });
    }
    var copy = section.querySelector(".copy"), code = section.querySelector(".command");
    if (copy && code) copy.addEventListener("click", function () {
      var done = function () { copy.textContent = "Copied"; setTimeout(function () { copy.textContent = "Copy"; }, 1500); };
      var fallback = function () {
        var range = document.createRange();
        range.selectNodeContents(code);
        var sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        try { document.execCommand("copy"); done(); } catch (e) { copy.textContent = "Press Ctrl+C"; }
      };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(code.textContent).then(done, fallback);
      else fallback();
    });
  });
  function stop(section) {
    if (section.timer) { clearTimeout(section.timer); section.timer = null; }
    var play = section.querySelector(".play");
    if (play) play.textContent = "\u25B6 Play";
  }
  function start(section) {
    var play = section.querySelector(".play"), fps = section.querySelector(".fps");
    play.textContent = "|| Pause";
    var tick = function () {
      var frames = all(section, ".strip .frame"), b = frames[selected(section)];
      var wait = fps && fps.value === "gif" ? (+b.dataset.delay || 100) : 1000 / (+(fps && fps.value) || 8);
      section.timer = setTimeout(function () { step(section, 1); tick(); }, wait);
    };
    tick();
  }
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (!current || (t && (t.tagName === "INPUT" || t.tagName === "SELECT"))) return;
    if (e.key === "ArrowRight") { stop(current); step(current, 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { stop(current); step(current, -1); e.preventDefault(); }
  });
  apply();
})();
