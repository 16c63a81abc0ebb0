// Appended to a copy of a built page by tests/docs/test_browser.py; nothing else changes.
// Once the page has loaded and MathJax (when it loaded at all) has finished its first
// typeset, it measures what a reader sees and writes one JSON report into the DOM, which
// Chromium's --dump-dom then prints.
(function () {
  "use strict";
  var RAW_TEX = ["\\frac", "\\[", "\\(", "$$", "\\begin{", "\\left"];
  var KEY_COLUMNS = ["Reading", "Check", "Verdict", "Methods"];
  var SKIP = "pre, code, script, style, textarea, mjx-container, .highlight";

  function snippet(text, at) {
    return text.slice(Math.max(0, at - 40), at + 60).replace(/\s+/g, " ");
  }

  function rawTexInText() {
    var found = [];
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    var node;
    while ((node = walker.nextNode())) {
      var parent = node.parentElement;
      if (!parent || parent.closest(SKIP)) continue;
      for (var i = 0; i < RAW_TEX.length; i++) {
        var at = node.data.indexOf(RAW_TEX[i]);
        if (at >= 0) {
          found.push(snippet(node.data, at));
          break;
        }
      }
    }
    return found;
  }

  function mathReport() {
    var math = document.querySelectorAll(".math");
    var untypeset = [];
    math.forEach(function (el) {
      if (!el.querySelector("mjx-container") && !el.matches("mjx-container")) {
        untypeset.push(el.textContent.trim().slice(0, 100));
      }
    });
    var errors = [];
    document.querySelectorAll("mjx-merror").forEach(function (el) {
      errors.push((el.getAttribute("data-mjx-error") || el.textContent).slice(0, 100));
    });
    return {
      math_elements: math.length,
      renderer_elements: document.querySelectorAll("mjx-container").length,
      untypeset: untypeset,
      errors: errors,
      raw_tex: rawTexInText(),
      mathjax_version: window.MathJax && window.MathJax.version ? String(window.MathJax.version) : null,
    };
  }

  function imageReport() {
    return Array.prototype.map.call(document.images, function (img) {
      return {
        src: img.getAttribute("src"),
        url: img.currentSrc || img.src,
        loaded: img.complete && img.naturalWidth > 0,
      };
    });
  }

  // The part of the viewport in which an element can be seen: the viewport, cut down by
  // every ancestor that clips its overflow (a scrolling table wrapper, for example).
  function visibleSpan(el) {
    var left = 0;
    var right = document.documentElement.clientWidth;
    for (var a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      var style = getComputedStyle(a);
      if (style.overflowX !== "visible") {
        var r = a.getBoundingClientRect();
        left = Math.max(left, r.left);
        right = Math.min(right, r.right);
      }
    }
    return [left, right];
  }

  function tableReport() {
    var cells = [];
    var tables = document.querySelectorAll("article table, [role=main] table");
    tables.forEach(function (table, t) {
      var head = table.querySelector("thead tr");
      if (!head) return;
      var names = Array.prototype.map.call(head.children, function (th) {
        return th.textContent.trim();
      });
      var section = table.closest("section");
      var where = section && section.id ? section.id : "table " + t;
      names.forEach(function (name, col) {
        if (KEY_COLUMNS.indexOf(name) < 0) return;
        var cellsHere = [head.children[col]];
        table.querySelectorAll("tbody tr").forEach(function (tr) {
          if (tr.children[col]) cellsHere.push(tr.children[col]);
        });
        cellsHere.forEach(function (cell) {
          var r = cell.getBoundingClientRect();
          var span = visibleSpan(cell);
          cells.push({
            where: where,
            column: name,
            text: cell.textContent.trim().slice(0, 60),
            left: Math.round(r.left),
            right: Math.round(r.right),
            visible_left: Math.round(span[0]),
            visible_right: Math.round(span[1]),
            inside: r.width > 0 && r.left >= span[0] - 1 && r.right <= span[1] + 1,
          });
        });
      });
    });
    return cells;
  }

  function resources() {
    return performance.getEntriesByType("resource").map(function (e) {
      return e.name;
    });
  }

  function report(extra) {
    // Closed <details> are opened so that what they hold is measured too.
    document.querySelectorAll("details").forEach(function (d) {
      d.open = true;
    });
    var out = {
      url: location.href,
      inner_width: window.innerWidth,
      client_width: document.documentElement.clientWidth,
      scroll_width: document.documentElement.scrollWidth,
      math: mathReport(),
      images: imageReport(),
      key_cells: tableReport(),
      resources: resources(),
      error: extra || null,
    };
    var node = document.createElement("script");
    node.type = "application/json";
    node.id = "attnbounds-browser-report";
    node.textContent = JSON.stringify(out).replace(/</g, "\\u003c");
    document.body.appendChild(node);
  }

  window.addEventListener("load", function () {
    var startup = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    Promise.resolve(startup)
      .then(function () {
        return document.fonts ? document.fonts.ready : null;
      })
      .then(
        function () {
          setTimeout(report, 0);
        },
        function (e) {
          report("MathJax startup failed: " + e);
        }
      );
  });
})();
