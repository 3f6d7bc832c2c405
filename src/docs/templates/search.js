// The documentation's search, offline: the pages' titles, headings and
// words are in search-index.js (window.PAYCONF_SEARCH), loaded beside this
// script, so it works from file:// as from a server. Every word typed must
// appear in a page; a title counts most, then a heading (whose anchor the
// result opens), then the text.
(function () {
  "use strict";
  var input = document.getElementById("search");
  var list = document.getElementById("search-results");
  var pages = window.PAYCONF_SEARCH;
  if (!input || !list || !pages) {
    return;
  }
  var root = document.documentElement.getAttribute("data-root") || "";

  function score(page, terms) {
    var total = 0;
    var anchor = "";
    var title = page.title.toLowerCase();
    var text = page.text.toLowerCase();
    for (var t = 0; t < terms.length; t++) {
      var term = terms[t];
      var found = 0;
      if (title.indexOf(term) >= 0) {
        found += 10;
      }
      for (var h = 0; h < page.headings.length; h++) {
        if (page.headings[h].text.toLowerCase().indexOf(term) >= 0) {
          found += 4;
          if (!anchor) {
            anchor = page.headings[h].id;
          }
          break;
        }
      }
      if (text.indexOf(term) >= 0) {
        found += 1;
      }
      if (!found) {
        return null;
      }
      total += found;
    }
    return { page: page, score: total, anchor: anchor };
  }

  function show() {
    var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    list.textContent = "";
    if (!terms.length) {
      list.hidden = true;
      return;
    }
    var found = [];
    for (var p = 0; p < pages.length; p++) {
      var hit = score(pages[p], terms);
      if (hit) {
        found.push(hit);
      }
    }
    found.sort(function (a, b) { return b.score - a.score; });
    found.slice(0, 12).forEach(function (hit) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = root + hit.page.path + ".html" + (hit.anchor ? "#" + hit.anchor : "");
      link.textContent = hit.page.title;
      item.appendChild(link);
      var at = hit.page.text.toLowerCase().indexOf(terms[0]);
      if (at >= 0) {
        var snippet = document.createElement("span");
        snippet.className = "snippet";
        snippet.textContent = "…" + hit.page.text.slice(Math.max(0, at - 40), at + 80) + "…";
        item.appendChild(snippet);
      }
      list.appendChild(item);
    });
    if (!found.length) {
      var none = document.createElement("li");
      none.textContent = "Nothing matches.";
      list.appendChild(none);
    }
    list.hidden = false;
  }

  input.addEventListener("input", show);
  show();
})();
