// evtool docs: search over type and field names. No framework, no
// network: the index is window.EVTOOL_SEARCH (assets/search-index.js),
// entries {k: "type"|"field", n: name, t: type, v: [versions], u: url, d: text}.
// Results are built with textContent only, so nothing in the index is
// ever parsed as HTML. index.html?q=WORDS opens with WORDS searched.
(function () {
  "use strict";
  var index = window.EVTOOL_SEARCH || [];
  var root = document.body.getAttribute("data-root") || "";
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  if (!input || !list) {
    return;
  }
  var active = -1;

  function score(e, terms, q) {
    var name = e.n.toLowerCase();
    var type = e.t.toLowerCase();
    var hay = e.k === "type" ? name : name + " " + type;
    for (var i = 0; i < terms.length; i++) {
      if (hay.indexOf(terms[i]) < 0) {
        return -1;
      }
    }
    var leaf = name.split(/[.\[\]{} ]+/).filter(Boolean).pop() || name;
    var s = 0;
    if (e.k === "type") s += 4;
    if (name === q || leaf === q) s += 8;
    else if (leaf.indexOf(q) === 0 || name.indexOf(q) === 0) s += 4;
    else if (name.indexOf(q) >= 0) s += 2;
    return s;
  }

  function search(raw) {
    var q = raw.trim().toLowerCase();
    var terms = q.split(/\s+/).filter(Boolean);
    if (!terms.length) {
      return [];
    }
    var hits = [];
    for (var i = 0; i < index.length; i++) {
      var s = score(index[i], terms, q);
      if (s >= 0) {
        hits.push({e: index[i], s: s, i: i});
      }
    }
    hits.sort(function (a, b) { return b.s - a.s || a.i - b.i; });
    return hits.slice(0, 60);
  }

  function el(tag, cls, text) {
    var x = document.createElement(tag);
    if (cls) x.className = cls;
    if (text) x.textContent = text;
    return x;
  }

  function render() {
    var raw = input.value;
    while (list.firstChild) {
      list.removeChild(list.firstChild);
    }
    active = -1;
    if (!raw.trim()) {
      list.hidden = true;
      return;
    }
    var hits = search(raw);
    if (!hits.length) {
      list.appendChild(el("li", "none", "No type or field matches \u201c" + raw.trim() + "\u201d."));
    }
    hits.forEach(function (h) {
      var e = h.e;
      var a = el("a");
      a.href = root + e.u;
      a.appendChild(el("span", "kind", e.k));
      a.appendChild(el("span", "name", e.n));
      var where = e.k === "field" ? e.t + " \u00b7 v" + (e.v || []).join(", v") : "";
      if (e.d) where += (where ? " \u2014 " : "") + e.d;
      if (where) a.appendChild(el("span", "where", where));
      var li = el("li");
      li.appendChild(a);
      list.appendChild(li);
    });
    list.hidden = false;
  }

  function links() {
    return list.querySelectorAll("a");
  }

  function move(delta) {
    var ls = links();
    if (!ls.length) return;
    if (active >= 0) ls[active].classList.remove("active");
    active = (active + delta + ls.length) % ls.length;
    ls[active].classList.add("active");
    ls[active].scrollIntoView({block: "nearest"});
  }

  input.addEventListener("input", render);
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowDown") { move(1); ev.preventDefault(); }
    else if (ev.key === "ArrowUp") { move(-1); ev.preventDefault(); }
    else if (ev.key === "Escape") { input.value = ""; render(); }
    else if (ev.key === "Enter") {
      var ls = links();
      if (ls.length) { window.location.href = ls[Math.max(active, 0)].href; }
    }
  });
  document.addEventListener("click", function (ev) {
    if (!list.contains(ev.target) && ev.target !== input) list.hidden = true;
  });
  input.addEventListener("focus", function () { if (input.value.trim()) render(); });

  var m = /[?&]q=([^&#]*)/.exec(window.location.search);
  if (m) {
    input.value = decodeURIComponent(m[1].replace(/\+/g, " "));
    render();
  }
})();
