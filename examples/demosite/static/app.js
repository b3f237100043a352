// app.js renders the demo site's browser pages (/js/...) from its JSON API, as a
// single-page shop does: the HTML the server sends holds none of the content.
//
//   data-view="catalogue"  a listing from /api/books?page=N, links to the detail pages
//   data-view="book"       a detail page from /api/books/<id>
//   data-view="scroll"     quotes from /api/quotes?page=N, the next page when the bottom is reached
//   data-view="more"       books from /api/books?page=N, the next page when #load-more is clicked
(function () {
  "use strict";
  var app = document.getElementById("app");

  function el(tag, attrs) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }

  function getJSON(path) {
    return fetch(path).then(function (r) {
      if (!r.ok) throw new Error(path + ": status " + r.status);
      return r.json();
    });
  }

  function price(p) { return "£" + p.toFixed(2); }
  function jsURL(url) { return url.replace(/^\/catalogue\//, "/js/catalogue/"); }
  function cover(id) { return el("img", { class: "thumbnail", src: "/media/covers/" + id + ".png", alt: "" }); }
  function clear() {
    Array.prototype.slice.call(app.querySelectorAll(".loading")).forEach(function (e) { e.remove(); });
  }
  function fail(err) {
    app.appendChild(el("p", { class: "error" }, String(err)));
  }

  function catalogue() {
    var n = Number(app.dataset.page);
    getJSON("/api/books?page=" + n).then(function (data) {
      clear();
      app.appendChild(el("h1", {}, "All products"));
      app.appendChild(el("p", { class: "results" }, data.count + " results, page " + data.page + " of " + data.pages));
      var list = el("ol", { class: "row" });
      data.books.forEach(function (b) {
        list.appendChild(el("li", {}, el("article", { class: "product_pod", "data-id": String(b.id) },
          cover(b.id),
          el("h3", {}, el("a", { href: jsURL(b.url), title: b.title }, b.title)),
          el("p", { class: "price_color" }, price(b.price)))));
      });
      app.appendChild(list);
      var pager = el("ul", { class: "pager" });
      if (n > 1) pager.appendChild(el("li", { class: "previous" }, el("a", { href: "page-" + (n - 1) + ".html" }, "previous")));
      pager.appendChild(el("li", { class: "current" }, "Page " + n + " of " + data.pages));
      if (data.next) pager.appendChild(el("li", { class: "next" }, el("a", { href: "page-" + (n + 1) + ".html" }, "next")));
      app.appendChild(pager);
    }).catch(fail);
  }

  function book() {
    getJSON(app.dataset.api).then(function (b) {
      clear();
      document.title = b.title + " | jscrawl demo";
      var stars = ["", "One", "Two", "Three", "Four", "Five"][b.rating];
      app.appendChild(el("ul", { class: "breadcrumb" },
        el("li", {}, el("a", { href: "/js/catalogue/page-1.html" }, "Books")),
        el("li", { class: "category" }, b.category)));
      app.appendChild(el("article", { class: "product_page", "data-id": String(b.id) },
        cover(b.id),
        el("h1", {}, b.title),
        el("p", { class: "price_color" }, price(b.price)),
        el("p", { class: "instock availability" }, "In stock (" + b.stock + " available)"),
        el("p", { class: "star-rating " + stars }),
        el("p", { class: "description" }, b.description),
        el("table", { class: "table" },
          el("tr", {}, el("th", {}, "UPC"), el("td", { class: "upc" }, b.upc)))));
    }).catch(fail);
  }

  // pages loads /api/<what>?page=1, 2, ... one at a time: render appends one page's entries,
  // and the returned function loads the next page (false once there is none).
  function pages(what, render, last) {
    var next = "/api/" + what + "?page=1", busy = false;
    return function loadNext() {
      if (busy || !next) return false;
      busy = true;
      getJSON(next).then(function (data) {
        clear();
        render(data);
        next = data.next;
        busy = false;
        app.dataset.loaded = String(app.querySelectorAll(".entry").length);
        if (!next) last(data);
      }).catch(fail);
      return true;
    };
  }

  function scroll() {
    var list = el("div", { class: "quotes" });
    app.appendChild(list);
    var loadNext = pages("quotes", function (data) {
      data.quotes.forEach(function (q) {
        var tags = el("div", { class: "tags" }, "Tags: ");
        q.tags.forEach(function (t) { tags.appendChild(el("a", { class: "tag", href: "/quotes/tag/" + t + "/" }, t)); });
        list.appendChild(el("div", { class: "quote entry" },
          el("span", { class: "text" }, q.text),
          el("span", {}, " by ", el("small", { class: "author" }, q.author)),
          tags));
      });
    }, function (data) {
      app.appendChild(el("p", { id: "the-end" }, "You have seen all " + data.count + " quotes."));
    });
    window.addEventListener("scroll", function () {
      if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 300) loadNext();
    });
    loadNext();
  }

  function more() {
    var list = el("ol", { class: "books" });
    var button = el("button", { id: "load-more", type: "button" }, "Load more");
    app.appendChild(list);
    app.appendChild(button);
    var loadNext = pages("books", function (data) {
      data.books.forEach(function (b) {
        list.appendChild(el("li", { class: "book entry", "data-id": String(b.id) },
          el("a", { href: jsURL(b.url), title: b.title }, b.title), " ",
          el("span", { class: "price_color" }, price(b.price))));
      });
    }, function (data) {
      button.remove();
      app.appendChild(el("p", { id: "the-end" }, "All " + data.count + " books are listed."));
    });
    button.addEventListener("click", function () { loadNext(); });
    loadNext();
  }

  ({ catalogue: catalogue, book: book, scroll: scroll, more: more })[app.dataset.view]();
})();
