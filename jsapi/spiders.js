// Following links and the base spiders: LinkExtractor, response.followAll({ css, xpath }),
// response.enqueueLinks(), CrawlSpider, SitemapSpider, XMLFeedSpider and CSVFeedSpider.
// Runs once per VM after prelude.js; `n` holds the Go natives (natives.go), `p` the prelude's
// internals. Returns the exports it adds to the "jscrawl" module. Plain ES2020: no async
// functions or async generators (a callback's result is a manual async iterable).
(function (g, n, p) {
  "use strict";
  // The Go natives (links.go, feedspiders.go); a name the class lacks throws here, when the
  // VM is set up.
  const { newLinkExtractor, extractLinks, linkMatches, pageLinks } = n.links;
  const { isHTMLResponse } = n.response;
  const { sitemapOpen, sitemapType, sitemapError, sitemapTooLarge, sitemapNext, robotsSitemaps, feedNodes, csvRows } = n.feeds;
  const { Request, Response, Spider, methodName, checkOptions, requestOptions, requestKeys, requestWith } = p;
  const currentSpider = p.spider;

  const isNil = (v) => v === undefined || v === null;
  // A then inherited from Object.prototype (a spider's pollution) does not make a thenable.
  const isThenable = (x) => x !== null && (typeof x === "object" || typeof x === "function") && typeof x.then === "function" &&
    (x.then !== Object.prototype.then || Object.prototype.hasOwnProperty.call(x, "then"));
  // list reads an option that takes one value or many.
  const list = (v) => {
    if (isNil(v)) return [];
    if (Array.isArray(v)) return v;
    if (typeof v === "string" || v instanceof RegExp) return [v];
    if (typeof v === "object" && typeof v[Symbol.iterator] === "function") return Array.from(v);
    return [v];
  };
  // checkKnown refuses the unknown keys of o (a LinkExtractor's options may be undefined:
  // they are not callbacks, and a default is what undefined means there).
  const checkKnown = (o, known, who) => {
    for (const k of Object.keys(o)) {
      if (!known.has(k)) throw new TypeError(who + ": unknown option \"" + k + "\" (options: " + Array.from(known).join(", ") + ")");
    }
  };

  // pattern turns a RegExp or a string (a regular expression's source) into [source, flags]
  // for Go, which compiles it with JS semantics (regexp2 in ECMAScript mode, as goja does).
  function pattern(x, who) {
    if (x instanceof RegExp) return [x.source, x.flags];
    if (typeof x === "string") {
      try { new RegExp(x); } catch (e) { throw new SyntaxError(who + ": invalid regular expression " + JSON.stringify(x) + ": " + e.message); }
      return [x, ""];
    }
    throw new TypeError(who + ": expected a RegExp or a string, got " + (x === null ? "null" : typeof x));
  }
  const patterns = (v, who) => list(v).map((x) => pattern(x, who));
  // toRegExp makes a RegExp to test() with in JS; g and y are dropped so test() has no state.
  function toRegExp(x, who) {
    if (x instanceof RegExp) return x.global || x.sticky ? new RegExp(x.source, x.flags.replace(/[gy]/g, "")) : x;
    if (typeof x === "string") return new RegExp(x);
    throw new TypeError(who + ": expected a RegExp or a string, got " + (x === null ? "null" : typeof x));
  }

  // hook turns a function or a spider method name into a function called with the spider
  // as this; a name is looked up when called, so it works in class field initialisers.
  function hook(fn, who) {
    if (isNil(fn)) return null;
    if (typeof fn === "function") return function () { return fn.apply(currentSpider(), arguments); };
    if (typeof fn === "string") {
      return function () {
        const s = currentSpider();
        if (!s || typeof s[fn] !== "function") throw new TypeError(who + " \"" + fn + "\" is not a method of the spider");
        return s[fn].apply(s, arguments);
      };
    }
    throw new TypeError(who + " must be a function or a spider method name, got " + typeof fn);
  }

  function xpathOf(response, query, who) {
    if (typeof response.xpath !== "function") {
      throw new TypeError(who + ": xpath is not available in this build of jscrawl: use CSS (restrictCss, css)");
    }
    return response.xpath(String(query));
  }

  function handle(response, who) {
    const h = Response.handleOf(response);
    if (h === undefined) throw new TypeError(who + " needs a Response");
    return h;
  }

  /** A link found by a LinkExtractor (Scrapy: scrapy.link.Link). */
  class Link {
    constructor(url, text, fragment, nofollow) {
      this.url = String(url);
      this.text = text === undefined ? "" : String(text);
      this.fragment = fragment === undefined ? "" : String(fragment);
      this.nofollow = !!nofollow;
    }
    toString() { return this.url; }
  }

  const extractorOptions = new Set(["allow", "deny", "allowDomains", "denyDomains", "restrictCss", "restrictXpaths",
    "restrictText", "tags", "attrs", "denyTags", "denyAttrs", "canonicalize", "unique", "processValue", "keepFragments", "denyExtensions"]);

  // LinkExtractor finds a page's links, as Scrapy's; the walking, URL joining and
  // filtering run in Go (links.go), so a page costs one native call.
  class LinkExtractor {
    #h; #process; #xpaths;
    constructor(options) {
      const o = options || {};
      checkKnown(o, extractorOptions, "new LinkExtractor()");
      const strs = (v) => list(v).map(String);
      this.#h = newLinkExtractor({
        allow: patterns(o.allow, "LinkExtractor allow"),
        deny: patterns(o.deny, "LinkExtractor deny"),
        restrictText: patterns(o.restrictText, "LinkExtractor restrictText"),
        allowDomains: strs(o.allowDomains),
        denyDomains: strs(o.denyDomains),
        restrictCss: strs(o.restrictCss),
        tags: isNil(o.tags) ? null : strs(o.tags),
        attrs: isNil(o.attrs) ? null : strs(o.attrs),
        denyTags: strs(o.denyTags),
        denyAttrs: strs(o.denyAttrs),
        canonicalize: !!o.canonicalize,
        unique: o.unique === undefined ? true : !!o.unique,
        // Scrapy keeps a link's #fragment in its url, except when canonicalize drops it.
        keepFragments: isNil(o.keepFragments) ? !o.canonicalize : !!o.keepFragments,
        denyExtensions: isNil(o.denyExtensions) ? null : strs(o.denyExtensions),
      });
      this.#xpaths = list(o.restrictXpaths).map(String);
      this.#process = hook(o.processValue, "processValue");
    }
    /** The links of a response: [{ url, text, fragment, nofollow }]. */
    extractLinks(response) {
      const h = handle(response, "extractLinks()");
      const roots = this.#xpaths.length ? this.#xpaths.map((x) => xpathOf(response, x, "LinkExtractor restrictXpaths")) : null;
      return extractLinks(this.#h, h, roots, this.#process || undefined, Link.prototype);
    }
    /** Whether a URL passes allow, deny, allowDomains and denyDomains. */
    matches(url) { return linkMatches(this.#h, String(url)); }
  }

  // response.followAll({ css, xpath, ...requestOptions }): Requests for the links the
  // selection points to (every a[href] without css or xpath); the other forms are the
  // prelude's.
  const followTargets = Response.prototype.followAll;
  const isOptionsObject = (t) => t !== null && typeof t === "object" && !Array.isArray(t) &&
    !(t instanceof Request) && typeof t[Symbol.iterator] !== "function" && Response.handleOf(t) === undefined &&
    Object.getPrototypeOf(t) !== null && (Object.getPrototypeOf(t) === Object.prototype);
  const followAllKeys = requestKeys.concat(["css", "xpath"]);
  Object.defineProperty(Response.prototype, "followAll", {
    value: function followAll(targets, opts, more) {
      if (!isOptionsObject(targets)) return followTargets.apply(this, arguments);
      checkOptions(targets, followAllKeys, "response.followAll()");
      // followAll({ css }, callback[, options]) as Scrapy's follow_all(css=..., callback=...)
      const extra = arguments.length < 2 ? undefined : requestOptions(opts, more, arguments.length, "response.followAll()", requestKeys);
      if (extra && Object.keys(extra).some((k) => Object.prototype.hasOwnProperty.call(targets, k))) {
        throw new TypeError("response.followAll(): an option is given twice, in the first argument and after it");
      }
      const o = Object.assign({}, targets, extra);
      const css = o.css, xpath = o.xpath;
      delete o.css; delete o.xpath;
      if (css !== undefined && xpath !== undefined) throw new TypeError("followAll(): give css or xpath, not both");
      const spec = { dropFragments: false, unique: false };
      if (xpath !== undefined) spec.list = xpathOf(this, xpath, "followAll({ xpath })");
      else spec.css = css === undefined ? "a[href]" : String(css);
      const urls = pageLinks(handle(this, "followAll()"), spec);
      const out = new Array(urls.length);
      for (let i = 0; i < urls.length; i++) out[i] = requestWith(urls[i], o);
      return out;
    },
    writable: true, configurable: true,
  });

  const enqueueOptions = ["urls", "selector", "include", "globs", "regexps", "exclude", "strategy", "label", "userData",
    "callback", "errback", "cbKwargs", "meta", "priority", "headers", "dontFilter", "transformRequestFunction", "limit", "baseUrl"];
  const globSpec = (x, who) => {
    if (typeof x === "string") return { glob: x };
    if (x && typeof x === "object" && typeof x.glob === "string") return { glob: x.glob };
    throw new TypeError(who + ": a glob is a string or { glob }");
  };
  const regexpSpec = (x, who) => (x && typeof x === "object" && x.regexp instanceof RegExp ? pattern(x.regexp, who) : pattern(x, who));

  // response.enqueueLinks(options): Crawlee's helper; returns the Requests to yield.
  Object.defineProperty(Response.prototype, "enqueueLinks", {
    value: function enqueueLinks(options) {
      const o = options === undefined || options === null ? {} : options;
      checkOptions(o, enqueueOptions, "response.enqueueLinks()");
      const spec = { dropFragments: true, unique: true, strategy: o.strategy === undefined ? "same-hostname" : String(o.strategy) };
      if (!isNil(o.urls)) spec.urls = list(o.urls).map(String);
      else spec.css = isNil(o.selector) ? "a" : String(o.selector);
      if (!isNil(o.baseUrl)) spec.baseUrl = String(o.baseUrl);
      // Crawlee 4's include (a string is a glob) and Crawlee 3's globs and regexps add up.
      const anyPattern = (who) => (x) => (typeof x === "string" || (x && typeof x.glob === "string") ? globSpec(x, who) : regexpSpec(x, who));
      if (o.include !== undefined && list(o.include).length === 0) {
        throw new TypeError("enqueueLinks(): include is empty, so no link would match (Crawlee refuses it too); leave it out to keep links by strategy alone");
      }
      const include = list(o.include).map(anyPattern("enqueueLinks() include"))
        .concat(list(o.globs).map((x) => globSpec(x, "enqueueLinks() globs")))
        .concat(list(o.regexps).map((x) => regexpSpec(x, "enqueueLinks() regexps")));
      if (include.length) spec.include = include;
      spec.exclude = list(o.exclude).map(anyPattern("enqueueLinks() exclude"));
      if (!isNil(o.limit)) spec.limit = Number(o.limit);
      const urls = pageLinks(handle(this, "enqueueLinks()"), spec);
      const meta = Object.assign({}, o.userData, o.meta);
      if (o.label !== undefined) meta.label = o.label;
      const hasMeta = Object.keys(meta).length > 0;
      const reqOpts = {};
      for (const k of ["callback", "errback", "cbKwargs", "priority", "headers", "dontFilter"]) if (k in o) reqOpts[k] = o[k];
      const transform = o.transformRequestFunction;
      if (!isNil(transform) && typeof transform !== "function") throw new TypeError("enqueueLinks(): transformRequestFunction must be a function");
      const out = [];
      for (const u of urls) {
        if (hasMeta) reqOpts.meta = Object.assign({}, meta);
        let r = new Request(u, reqOpts); // checks callback and errback against the spider
        if (transform) {
          const t = transform(r);
          if (!t) continue; // Crawlee: a falsy result skips the link
          r = t instanceof Request ? t : r.replace(t);
        }
        out.push(r);
      }
      return out;
    },
    writable: true, configurable: true,
  });

  // ---- Driving the callbacks of the base spiders ----

  // collect turns what a user callback returned (nothing, an item, a Request, an array, a
  // generator, an async generator, a promise of any) into an array of outputs, or a promise
  // of one (Scrapy's CrawlSpider collects async generators the same way).
  function collect(r) {
    if (isNil(r)) return [];
    if (Array.isArray(r)) return flat(r);
    if (isThenable(r)) return r.then(collect);
    if (typeof r !== "object" || r instanceof Request) return [r];
    if (typeof r[Symbol.asyncIterator] === "function" && typeof r[Symbol.iterator] !== "function") {
      const it = r[Symbol.asyncIterator]();
      const out = [];
      const step = () => Promise.resolve(it.next()).then((x) => {
        if (x.done) return out;
        if (Array.isArray(x.value)) out.push.apply(out, flat(x.value)); else if (!isNil(x.value)) out.push(x.value);
        return step();
      });
      return step();
    }
    if (typeof r.next === "function" && typeof r[Symbol.iterator] === "function") {
      const out = [];
      let async = false;
      for (const x of r) {
        if (isThenable(x)) async = true;
        out.push(x);
      }
      return async ? Promise.all(out).then(flat) : flat(out);
    }
    return [r];
  }
  function flat(a) {
    const out = [];
    for (const x of a) {
      if (Array.isArray(x)) { for (const y of x) if (!isNil(y)) out.push(y); } else if (!isNil(x)) out.push(x);
    }
    return out;
  }
  // then applies f to an array or to a promise's array.
  const then = (v, f) => (isThenable(v) ? v.then(f) : f(v));

  // stream makes the result of a base spider's callback: an async iterable over a sync
  // iterator whose values are arrays of outputs or promises of arrays. Without spider
  // middlewares each array is one step (the driver emits its elements), so a 50,000-URL
  // sitemap costs 50 promises; with them, outputs come one by one, as middlewares expect.
  function stream(it) {
    const single = p.hasMiddlewares();
    return {
      [Symbol.asyncIterator]() {
        let buf = [];
        let i = 0;
        const pull = () => {
          let r;
          try { r = it.next(); } catch (e) { return Promise.reject(e); }
          if (r.done) return Promise.resolve({ value: undefined, done: true });
          if (!single) return Promise.resolve(r.value).then((v) => ({ value: v, done: false }));
          return Promise.resolve(r.value).then((v) => { buf = v; i = 0; return next(); });
        };
        const next = () => (i < buf.length ? Promise.resolve({ value: buf[i++], done: false }) : pull());
        return {
          next,
          return(v) {
            if (typeof it.return === "function") it.return();
            return Promise.resolve({ value: v, done: true });
          },
        };
      },
    };
  }

  // Per-VM state of a base spider instance, made when the crawl starts (start()) or, on
  // the other VMs, at the first callback: fields are read then, so subclass fields work.
  const states = new WeakMap();
  function stateOf(s, make) {
    let st = states.get(s);
    if (!st) { st = make(s); states.set(s, st); }
    return st;
  }
  function* startRequests(urls, callback, who) {
    for (const u of list(urls)) {
      if (isNil(u)) throw new TypeError(who + " holds " + u);
      yield callback ? new Request(String(u), { callback }) : new Request(String(u));
    }
  }

  // ---- CrawlSpider ----

  /** A crawling rule (Scrapy: scrapy.spiders.Rule); a plain object works as well. */
  // new Rule(options), or Scrapy's new Rule(linkExtractor[, callback[, options]]).
  class Rule {
    constructor(options, callback, more) {
      if (!(options instanceof LinkExtractor)) {
        if (arguments.length > 1) throw new TypeError("new Rule(): give (options) or (linkExtractor, callback, options)");
        Object.assign(this, options || {});
        return;
      }
      this.link = options;
      if (arguments.length < 2) return;
      if (callback === undefined) {
        throw new TypeError("new Rule(): the callback (argument 2) is undefined: a misspelled method? Give null for none");
      }
      if (more !== undefined) {
        checkOptions(more, ruleOptions, "new Rule()", ruleHints);
        if ("link" in more || "callback" in more) throw new TypeError("new Rule(): link or callback is given twice");
        Object.assign(this, more);
      }
      this.callback = callback;
    }
  }
  const ruleOptions = ["link", "callback", "cbKwargs", "follow", "processLinks", "processRequest", "errback"];
  const ruleHints = { link_extractor: "link", linkExtractor: "link" };

  function crawlState(s) {
    return stateOf(s, () => ({
      rules: list(s.rules).map((r, i) => {
        if (r === null || typeof r !== "object") throw new TypeError("rules[" + i + "] must be an object { link, callback, follow, ... }");
        checkOptions(r, ruleOptions, "rules[" + i + "]", ruleHints);
        const link = r.link instanceof LinkExtractor ? r.link : new LinkExtractor(r.link || {});
        // The callbacks are kept by name and looked up at each call, so a reload
        // (run --watch) that changes the methods takes effect.
        const callback = isNil(r.callback) ? null : methodName(r.callback, "rules[" + i + "].callback");
        return {
          link,
          callback,
          cbKwargs: r.cbKwargs || {},
          follow: isNil(r.follow) ? callback === null : !!r.follow,
          processLinks: hook(r.processLinks, "rules[" + i + "].processLinks"),
          processRequest: hook(r.processRequest, "rules[" + i + "].processRequest"),
          errback: isNil(r.errback) ? null : methodName(r.errback, "rules[" + i + "].errback"),
        };
      }),
    }));
  }

  // CrawlSpider follows links by rules (Scrapy: scrapy.spiders.CrawlSpider).
  class CrawlSpider extends Spider {
    /** Yields startUrls (read now, so class fields of a subclass work). */
    *start() {
      crawlState(this);
      yield* startRequests(this.startUrls, "_parse", "startUrls");
    }
    /** The items and requests of a start URL's page (none by default). */
    parseStartUrl(response) { return []; } // eslint-disable-line no-unused-vars
    /** Post-processes what a rule's callback produced (Scrapy: process_results). */
    processResults(response, results) { return results; }
    _parse(response, cbKwargs) {
      return this._parseResponse(response, this.parseStartUrl, cbKwargs || {}, true);
    }
    _callback(response, cbKwargs) {
      const i = response.meta.rule;
      const rule = crawlState(this).rules[i];
      if (rule === undefined) {
        // A request made by a rule the spider no longer has (an edited spider, a resumed job).
        throw new TypeError("CrawlSpider: " + response.url + " was extracted by rules[" + i + "], which the spider no longer has (" +
          crawlState(this).rules.length + " rules)");
      }
      const fn = rule.callback === null ? null : this[rule.callback];
      if (rule.callback !== null && typeof fn !== "function") {
        throw new TypeError("CrawlSpider: rules[" + i + "].callback \"" + rule.callback + "\" is no longer a method of spider " + this.name);
      }
      return this._parseResponse(response, fn, Object.assign({}, rule.cbKwargs, cbKwargs), rule.follow);
    }
    _errback(failure) {
      const rule = crawlState(this).rules[failure.request.meta.rule];
      return rule && rule.errback ? this[rule.errback](failure) : undefined;
    }
    _parseResponse(response, callback, cbKwargs, follow) {
      const self = this;
      function* steps() {
        if (callback) {
          const r = collect(callback.call(self, response, cbKwargs));
          // processResults may run after the callback's promise settles: keep it in the
          // callback's scope.
          yield then(r, __jscrawlBindScope((x) => collect(self.processResults(response, x))));
        }
        if (follow) yield self._requestsToFollow(response);
      }
      return stream(steps());
    }
    // _requestsToFollow applies the rules in order: a link one rule kept is not offered to
    // the later ones (Scrapy's seen set, per response).
    _requestsToFollow(response) {
      const out = [];
      if (!isHTMLResponse(handle(response, "CrawlSpider"))) return out;
      const seen = new Set();
      const rules = crawlState(this).rules;
      for (let i = 0; i < rules.length; i++) {
        const rule = rules[i];
        let links = rule.link.extractLinks(response).filter((l) => !seen.has(l.url));
        if (rule.processLinks) links = list(rule.processLinks(links));
        for (const link of links) {
          seen.add(link.url);
          const opts = { callback: "_callback", meta: { rule: i, link_text: link.text } };
          if (rule.errback) opts.errback = "_errback";
          let req;
          try {
            req = new Request(link.url, opts);
          } catch (e) {
            // One unusable link (a processLinks hook's) must not cost the page its other
            // links: skip it, count it in crawlspider/skipped_invalid.
            if (!(e instanceof TypeError)) throw e;
            if (this.crawler) this.crawler.stats.inc("crawlspider/skipped_invalid");
            this.logger.debug("CrawlSpider: rules[" + i + "] skipped link " + JSON.stringify(link.url) + " on " + response.url + ": " + e.message);
            continue;
          }
          if (rule.processRequest) {
            req = rule.processRequest(req, response);
            if (isNil(req) || req === false) continue;
          }
          out.push(req);
        }
      }
      return out;
    }
  }

  // ---- SitemapSpider ----

  function sitemapState(s) {
    return stateOf(s, () => {
      const rules = isNil(s.sitemapRules) ? [["", "parse"]] : list(s.sitemapRules);
      return {
        rules: rules.map((r, i) => {
          if (!Array.isArray(r) || r.length !== 2) throw new TypeError("sitemapRules[" + i + "] must be [regex, callback]");
          if (r[1] === undefined) throw new TypeError("sitemapRules[" + i + "]: the callback is undefined: a misspelled method? Give null for parse");
          return [toRegExp(r[0], "sitemapRules[" + i + "]"), methodName(r[1], "sitemapRules[" + i + "] callback")];
        }),
        follow: (isNil(s.sitemapFollow) ? [""] : list(s.sitemapFollow)).map((x) => toRegExp(x, "sitemapFollow")),
        alternate: !!s.sitemapAlternateLinks,
      };
    });
  }
  const isRobots = (u) => u.split(/[?#]/)[0].endsWith("/robots.txt");

  // SitemapSpider crawls the URLs of sitemaps (Scrapy: scrapy.spiders.SitemapSpider). The
  // sitemaps are parsed in Go as they stream (encoding/xml tokens, gzip on the fly).
  class SitemapSpider extends Spider {
    /** Yields sitemapUrls (read now, with sitemapRules, sitemapFollow, sitemapAlternateLinks). */
    *start() {
      sitemapState(this);
      yield* startRequests(this.sitemapUrls, "_parseSitemap", "sitemapUrls");
    }
    /** Filters the entries of a sitemap or sitemap index (all kept by default). */
    sitemapFilter(entries) { return entries; }
    _parseSitemap(response) {
      const st = sitemapState(this);
      const h = handle(response, "SitemapSpider");
      if (isRobots(response.url)) {
        // robots.txt Sitemap: lines are always followed (sitemapFollow does not apply)
        return robotsSitemaps(h).map((u) => new Request(u, { callback: "_parseSitemap" }));
      }
      const reader = sitemapOpen(h);
      if (reader === null) {
        this.logger.warn("Ignoring invalid sitemap: " + response);
        return [];
      }
      const type = sitemapType(reader);
      const self = this;
      const requests = (entries) => {
        const out = [];
        const add = (loc, callback) => {
          try { out.push(new Request(loc, { callback })); } catch (e) { self.logger.warn("sitemap " + response.url + ": skipping " + JSON.stringify(loc) + ": " + e.message); }
        };
        for (const e of entries) {
          if (isNil(e) || isNil(e.loc)) continue;
          const locs = st.alternate && Array.isArray(e.alternate) ? [e.loc].concat(e.alternate) : [e.loc];
          for (const loc of locs) {
            if (type === "sitemapindex") {
              if (st.follow.some((re) => re.test(loc))) add(loc, "_parseSitemap");
            } else if (type === "urlset") {
              for (const [re, cb] of st.rules) if (re.test(loc)) { add(loc, cb); break; }
            }
          }
        }
        return out;
      };
      const finish = () => {
        const err = sitemapError(reader);
        if (err !== null && sitemapTooLarge(reader)) {
          // as a download over DOWNLOAD_MAXSIZE is cancelled (download/maxsize)
          this.crawler.stats.inc("sitemap/maxsize");
          this.logger.error("Cancelled sitemap " + response.url + " (kept the entries before the limit): " + err);
        } else if (err !== null) {
          this.crawler.stats.inc("sitemap/broken");
          this.logger.warn("Broken sitemap " + response.url + " (kept the entries before the error): " + err);
        }
      };
      if (this.sitemapFilter === SitemapSpider.prototype.sitemapFilter) {
        return stream((function* () {
          for (let b = sitemapNext(reader); b !== null; b = sitemapNext(reader)) yield requests(b);
          finish();
        })());
      }
      const all = [];
      for (let b = sitemapNext(reader); b !== null; b = sitemapNext(reader)) for (const e of b) all.push(e);
      finish();
      return then(collect(this.sitemapFilter(all)), requests);
    }
  }

  // ---- XMLFeedSpider and CSVFeedSpider ----

  function feedState(s, xml) {
    return stateOf(s, () => {
      if (xml) {
        const iterator = isNil(s.iterator) ? "iternodes" : String(s.iterator);
        if (!["iternodes", "xml", "html"].includes(iterator)) throw new TypeError("unsupported iterator \"" + iterator + "\": use \"iternodes\", \"xml\" or \"html\"");
        const namespaces = list(s.namespaces).map((x) => {
          if (!Array.isArray(x) || x.length !== 2) throw new TypeError("namespaces must be [[prefix, uri], ...]");
          return [String(x[0]), String(x[1])];
        });
        return { itertag: isNil(s.itertag) ? "item" : String(s.itertag), namespaces };
      }
      return {
        delimiter: isNil(s.delimiter) ? "," : String(s.delimiter),
        quotechar: isNil(s.quotechar) ? "\"" : String(s.quotechar),
        headers: isNil(s.headers) ? null : list(s.headers).map(String),
      };
    });
  }
  // feedSteps calls parse(item) for each item and processResults on each result.
  function* feedSteps(self, response, items, parse) {
    for (const item of items) {
      const r = collect(parse.call(self, response, item));
      yield then(r, (x) => collect(self.processResults(response, x)));
    }
  }
  function adapted(self, response) {
    const r = self.adaptResponse(response);
    if (!(r instanceof Response)) throw new TypeError("adaptResponse() must return a Response (response.replace({ body }))");
    return r;
  }

  // XMLFeedSpider calls parseNode(response, node) for each itertag element of an XML feed
  // (Scrapy: scrapy.spiders.XMLFeedSpider); node is a Selector on that element.
  class XMLFeedSpider extends Spider {
    *start() {
      feedState(this, true);
      yield* startRequests(this.startUrls, "_parse", "startUrls");
    }
    adaptResponse(response) { return response; }
    processResults(response, results) { return results; }
    parseNode(response, node) { // eslint-disable-line no-unused-vars
      throw new TypeError(this.name + ": define parseNode(response, node) to scrape this XML feed");
    }
    _parse(response) {
      const st = feedState(this, true);
      const r = adapted(this, response);
      const [nodes, err] = feedNodes(handle(r, "XMLFeedSpider"), st.itertag, st.namespaces);
      if (err !== null) this.logger.warn("Broken XML feed " + r.url + " (kept the nodes before the error): " + err);
      if (st.namespaces.length) {
        for (const node of nodes) {
          if (typeof node.registerNamespace === "function") for (const [pfx, uri] of st.namespaces) node.registerNamespace(pfx, uri);
        }
      }
      return stream(feedSteps(this, r, nodes, this.parseNode));
    }
  }

  // CSVFeedSpider calls parseRow(response, row) for each row of a CSV document, row an
  // object keyed by the headers (Scrapy: scrapy.spiders.CSVFeedSpider).
  class CSVFeedSpider extends Spider {
    *start() {
      feedState(this, false);
      yield* startRequests(this.startUrls, "_parse", "startUrls");
    }
    adaptResponse(response) { return response; }
    processResults(response, results) { return results; }
    parseRow(response, row) { // eslint-disable-line no-unused-vars
      throw new TypeError(this.name + ": define parseRow(response, row) to scrape this CSV feed");
    }
    _parse(response) {
      const st = feedState(this, false);
      const r = adapted(this, response);
      const [rows, skipped, err] = csvRows(handle(r, "CSVFeedSpider"), st.delimiter, st.quotechar, st.headers);
      for (const [line, len, want] of skipped) this.logger.warn("ignoring row " + line + " (length: " + len + ", should be: " + want + ")");
      if (err !== null) this.logger.warn("Broken CSV " + r.url + " (kept the rows before the error): " + err);
      return stream(feedSteps(this, r, rows, this.parseRow));
    }
  }

  return { Link, LinkExtractor, Rule, CrawlSpider, SitemapSpider, XMLFeedSpider, CSVFeedSpider };
})
