// The jscrawl JS API: classes that spiders see. Runs once per VM; `n` holds the Go natives
// (natives.go).
// Returns the module exports plus hidden helpers for Go.
(function (g, n) {
  "use strict";
  // The Go natives, one object per class (bind.go); a name the class lacks throws here,
  // when the VM is set up.
  const { newResponse, responseProto, handleOf, text: responseText, jsonLdTexts } = n.response;
  const { headersOf, headersProto } = n.headers;
  const { checkURL, urljoin, urljoinAt, join: joinURL, follow: followURL } = n.urls;
  const { parseSelector, selectorHref, selectorProto, listProto, listFrom } = n.selectors;
  const { download: startDownload, statInc, userLocation } = n.crawl;
  const { newLogger } = n.logger;
  const { outputFilters } = n.output;
  const { signals: signalsObject, handlers: signalHandlers } = n.signals;
  const { closePage, pageProto } = n.page;
  const callbackNames = new Map(); // function -> spider method name
  let spider = null;

  function methodName(fn, what) {
    if (fn === undefined || fn === null) return null;
    if (typeof fn === "string") {
      if (spider && typeof spider[fn] !== "function") {
        throw new TypeError(what + " \"" + fn + "\" is not a method of spider " + spider.name);
      }
      return fn;
    }
    if (typeof fn !== "function") throw new TypeError(what + " must be a spider method or its name, got " + typeof fn);
    const known = callbackNames.get(fn);
    if (known) return known;
    if (spider) {
      for (let o = spider; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
        for (const k of Object.getOwnPropertyNames(o)) {
          if (k === "constructor") continue;
          const d = Object.getOwnPropertyDescriptor(o, k);
          if (d && d.value === fn) { callbackNames.set(fn, k); return k; }
        }
      }
    }
    throw new TypeError(what + " " + (fn.name ? "\"" + fn.name + "\" " : "") +
      "is not a method of the spider: pass a spider method (this.parseItem) or its name, so the request stays serializable");
  }

  // ---- Options given the Scrapy way ----
  // jscrawl spells every option camelCase. A key jscrawl does not know is refused, naming
  // jscrawl's spelling when it is the same word (cb_kwargs, dont_filter, call_back,
  // Callback), and a key present with the value undefined (callback: this.parseBok, a
  // misspelled method) is refused rather than read as absent: both would otherwise fall
  // back to a default without a word. The messages name the spider's file:line.
  const requestKeys = ["method", "headers", "body", "callback", "errback", "cbKwargs", "meta", "browser", "cookies", "priority", "dontFilter"];
  const squash = (k) => k.replace(/[_-]/g, "").toLowerCase();
  const at = () => { const l = userLocation(); return l ? " (at " + l + ")" : ""; };
  // checkOptions throws a TypeError for an unknown key of o, or one whose value is
  // undefined. hints maps other spellings to jscrawl's (Scrapy's link_extractor: link).
  function checkOptions(o, known, who, hints) {
    if (o === null || typeof o !== "object" || Array.isArray(o)) {
      throw new TypeError(who + ": options must be an object, got " + typeName(o) + at());
    }
    for (const k of Object.keys(o)) {
      if (!known.includes(k)) {
        const name = (hints && hints[k]) || known.find((x) => squash(x) === squash(k));
        throw new TypeError(who + ": unknown option \"" + k + "\"" + at() + (name
          ? ": jscrawl spells it \"" + name + "\"" : " (options: " + known.join(", ") + ")"));
      }
      if (o[k] === undefined) {
        throw new TypeError(who + ": option \"" + k + "\" is undefined" + at() +
          ": a misspelled method or variable? Leave the key out (or give null) for the default");
      }
    }
  }
  // requestOptions reads the arguments after a URL (n counts them with it): options, or
  // Scrapy's positional callback (a spider method or its name), optionally followed by
  // options. Returns the options (undefined: none).
  function requestOptions(a, b, n, who, known) {
    if (n < 2 || a === null && n === 2) return undefined;
    if (a === undefined) {
      throw new TypeError(who + ": argument 2 (the callback or the options) is undefined" + at() +
        ": a misspelled method? Leave it out (or give null) to parse with parse()");
    }
    if (typeof a === "function" || typeof a === "string") {
      if (n < 3) return { callback: a };
      checkOptions(b, known, who);
      if (Object.prototype.hasOwnProperty.call(b, "callback")) {
        throw new TypeError(who + ": the callback is given twice, as argument 2 and as the option callback" + at());
      }
      return Object.assign({ callback: a }, b);
    }
    if (a === null) {
      checkOptions(b, known, who);
      return b;
    }
    if (n > 2) {
      throw new TypeError(who + ": too many arguments" + at() + ": give (url, options) or (url, callback, options)");
    }
    checkOptions(a, known, who);
    return a;
  }

  // browserOption checks the request option browser (true or an options object) and
  // returns the JSON-safe value meta.browser keeps.
  const browserKeys = ["waitUntil", "waitFor", "timeout", "blockResources", "screenshot", "includePage"];
  const waitUntils = ["load", "domcontentloaded", "networkidle"];
  function browserOption(v) {
    if (v === true) return true;
    if (typeof v !== "object" || Array.isArray(v)) {
      throw new TypeError("browser: want true or an options object { " + browserKeys.join(", ") + " }, got " + typeName(v));
    }
    const out = {};
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (!browserKeys.includes(k)) throw new TypeError(`browser: unknown option "${k}" (known: ${browserKeys.join(", ")})`);
      if (x === undefined || x === null) continue;
      switch (k) {
        case "waitUntil":
          if (!waitUntils.includes(x)) throw new TypeError(`browser.waitUntil: want "load", "domcontentloaded" or "networkidle", got ${typeName(x)}`);
          out[k] = x;
          break;
        case "waitFor":
          if (typeof x !== "string") throw new TypeError("browser.waitFor: want a CSS selector, got " + typeName(x));
          out[k] = x;
          break;
        case "timeout":
          if (typeof x !== "number" || !(x >= 0)) throw new TypeError("browser.timeout: want seconds (a number >= 0), got " + String(x));
          out[k] = x;
          break;
        case "blockResources":
          if (!Array.isArray(x)) throw new TypeError("browser.blockResources: want an array of resource types, got " + typeName(x));
          out[k] = x.map(String);
          break;
        default:
          out[k] = !!x;
      }
    }
    return out;
  }

  // Request keeps only what was given as own properties; defaults live on the prototype and
  // headers/meta/cbKwargs objects are made on first use, so response.follow(href) is cheap.
  let checked = null; // a URL response.follow() has joined and checked already
  class Request {
    // new Request(url, options), or Scrapy's new Request(url, callback[, options]). The
    // rest parameter counts the arguments (an explicit undefined is refused): goja builds
    // an arguments object on every call, which costs more.
    constructor(url, ...rest) {
      initRequest(this, url, rest.length === 0 ? undefined : requestOptions(rest[0], rest[1], rest.length + 1, "new Request()", requestKeys));
    }
    replace(opts) {
      if (opts !== undefined && opts !== null) checkOptions(opts, replaceKeys, "request.replace()");
      const o = Object.assign({ method: this.method, headers: this.headers, body: this.body,
        callback: this.callback, errback: this.errback, cbKwargs: this.cbKwargs, meta: this.meta,
        cookies: this.cookies, priority: this.priority, dontFilter: this.dontFilter }, opts || {});
      const url = o.url || this.url;
      delete o.url;
      return requestWith(url, o);
    }
    toString() { return "<" + this.method + " " + this.url + ">"; }
  }
  const RequestProto = Request.prototype;
  const replaceKeys = requestKeys.concat(["url"]);
  // initRequest sets up r, a Request, from its URL and checked options o (undefined: none).
  function initRequest(r, url, o) {
    r.url = url === checked && url !== null ? url : checkURL(url, "Request");
    checked = null;
    if (!o) return;
    if (o.method) r.method = `${o.method}`.toUpperCase(); // a Symbol throws, as in fetch()
    if (o.headers) r.headers = o.headers; // the setter makes it a RequestHeaders
    if (o.body !== undefined && o.body !== null) {
      if (typeof o.body === "symbol") throw new TypeError("Request(): body must be a string or bytes, got a Symbol");
      r.body = o.body;
    }
    if (o.callback !== undefined && o.callback !== null) r.callback = methodName(o.callback, "callback");
    if (o.errback !== undefined && o.errback !== null) r.errback = methodName(o.errback, "errback");
    if (o.cbKwargs) r.cbKwargs = o.cbKwargs;
    if (o.meta) r.meta = o.meta;
    if (o.browser !== undefined && o.browser !== null && o.browser !== false) {
      r.meta = Object.assign({}, o.meta, { browser: browserOption(o.browser) });
    }
    if (o.cookies) r.cookies = o.cookies;
    if (o.priority) r.priority = Number(o.priority) | 0;
    if (o.dontFilter) r.dontFilter = true;
  }
  // requestWith is new Request(url, o) for options o that are checked already (or none),
  // without the constructor's argument checks.
  function requestWith(url, o) {
    const r = Object.create(RequestProto);
    initRequest(r, url, o === null ? undefined : o);
    return r;
  }
  Object.assign(Request.prototype, { method: "GET", body: null, callback: null, errback: null, cookies: null, priority: 0, dontFilter: false });

  // RequestHeaders is a request's headers: Headers-like (get, set, has, delete, append,
  // iterable; names case-insensitive) and also a plain object whose own properties are the
  // headers, so request.headers["X-Tag"] = "1" works too. Changes are sent.
  const findKey = (obj, name) => {
    const lower = String(name).toLowerCase();
    for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return k;
    return undefined;
  };
  const headerMethods = {
    get(name) {
      const k = findKey(this, name);
      if (k === undefined) return null;
      const v = this[k];
      return Array.isArray(v) ? v.join(", ") : String(v);
    },
    has(name) { return findKey(this, name) !== undefined; },
    set(name, value) {
      const k = findKey(this, name);
      if (k !== undefined && k !== name) delete this[k];
      this[String(name)] = String(value);
    },
    append(name, value) {
      const k = findKey(this, name);
      if (k === undefined) { this[String(name)] = String(value); return; }
      this[k] = [].concat(this[k], String(value));
    },
    delete(name) { const k = findKey(this, name); if (k !== undefined) delete this[k]; },
    entries() { return Object.keys(this).map((k) => [k.toLowerCase(), this.get(k)])[Symbol.iterator](); },
    keys() { return Object.keys(this).map((k) => k.toLowerCase())[Symbol.iterator](); },
    forEach(fn) { for (const k of Object.keys(this)) fn(this.get(k), k.toLowerCase(), this); },
    toJSON() { return Object.assign({}, this); },
    [Symbol.iterator]() { return this.entries(); },
  };
  const requestHeadersProto = {};
  for (const k of Reflect.ownKeys(headerMethods)) {
    Object.defineProperty(requestHeadersProto, k, { value: headerMethods[k], writable: true, configurable: true });
  }
  const toRequestHeaders = (h) => {
    const out = Object.create(requestHeadersProto); // always a copy: replace() must not share
    if (h === undefined || h === null) return out;
    if (h instanceof Headers) {
      for (const k of h.keys()) { const all = h.getAll(k); out[k] = all.length === 1 ? all[0] : all; }
      return out;
    }
    // Values become strings now, as WHATWG Headers' (a Symbol throws here, at the caller).
    const str = (v) => (v === undefined || v === null ? v : `${v}`);
    for (const k of Object.keys(h)) out[k] = Array.isArray(h[k]) ? h[k].map(str) : str(h[k]);
    return out;
  };

  for (const k of ["headers", "meta", "cbKwargs"]) {
    const wrap = k === "headers" ? toRequestHeaders : (v) => v;
    const own = (self, v) => { Object.defineProperty(self, k, { value: v, writable: true, enumerable: true, configurable: true }); return v; };
    Object.defineProperty(Request.prototype, k, {
      get() { return own(this, wrap(k === "headers" ? undefined : {})); },
      set(v) { own(this, wrap(v)); },
      configurable: true,
    });
  }

  class DropItem extends Error {
    constructor(reason) { super(reason === undefined ? "" : String(reason)); this.name = "DropItem"; }
  }

  // DontCloseSpider, thrown (or rejected) by a spider_idle handler, keeps the spider open:
  // spider_idle is sent again a few seconds later (Scrapy: DontCloseSpider).
  class DontCloseSpider extends Error {
    constructor(reason) { super(reason === undefined ? "" : String(reason)); this.name = "DontCloseSpider"; }
  }

  // Headers is Go-backed (headers.go): this function gives it a name and instanceof.
  function Headers() { throw new TypeError("Headers come from response.headers"); }
  Headers.prototype = headersProto();
  Object.defineProperty(Headers.prototype, "constructor", { value: Headers, writable: true, configurable: true });

  // Selector and SelectorList are Go-backed (see selectors.go); these functions give them
  // names and instanceof, and new Selector({ text, type }) parses a string (parsel's
  // Selector(text=..., type=...)); new Selector(response) is response.selector.
  function Selector(init) {
    if (new.target && init !== null && typeof init === "object") {
      if (init instanceof Response) return init.selector;
      if (typeof init.text === "string") return parseSelector(init.text, init.type === undefined ? "html" : String(init.type));
    }
    throw new TypeError("Selectors come from response.css() and response.xpath(), or new Selector({ text, type })");
  }
  Selector.prototype = selectorProto();
  function SelectorList() { throw new TypeError("SelectorLists come from response.css() and response.xpath()"); }
  SelectorList.prototype = listProto();

  // re(), reFirst() and re_first() are Go natives (Python's re semantics, see selectors.go).
  // filter() and map() keep a SelectorList when what they give are Selectors (a slice of a
  // parsel SelectorList is one); Array.prototype's would make a plain array.
  const arrayProto = Array.prototype;
  for (const k of ["filter", "map"]) {
    const base = arrayProto[k];
    Object.defineProperty(SelectorList.prototype, k, {
      value: function (...args) {
        const out = base.apply(this, args);
        return listFrom(out) ?? out;
      },
      writable: true, configurable: true,
    });
  }

  // flattenLd appends the JSON-LD nodes of a parsed block to out: arrays are spread and an
  // "@graph" gives its nodes, each with the block's "@context" unless it has its own.
  function flattenLd(v, out, context) {
    if (Array.isArray(v)) { for (const x of v) flattenLd(x, out, context); return; }
    if (v === null || typeof v !== "object") return;
    if (v["@graph"] !== undefined) {
      flattenLd(v["@graph"], out, v["@context"] !== undefined ? v["@context"] : context);
      return;
    }
    if (context !== undefined && v["@context"] === undefined) v = Object.assign({ "@context": context }, v);
    out.push(v);
  }

  const typeName = (v) => (v === null ? "null" : typeof v === "bigint" ? "BigInt " + v + "n"
    : typeof v === "symbol" ? "Symbol" : typeof v === "object" ? "an object" : typeof v + " " + String(v));

  // followRequest makes response.follow's Request, or returns undefined for a link that
  // cannot be downloaded (mailto:, tel:, javascript:, "#", ...: see the native join). all
  // (followAll) also skips invalid URLs and elements without href, as Scrapy's follow_all.
  function followRequest(resp, target, opts, all, h) {
    // The common case, a string href and no options, in one native call (a string is
    // neither a Request nor a Selector).
    if (typeof target === "string") {
      if (opts === undefined && !all && h !== undefined) {
        const url = followURL(h, target, resp.url);
        // What new Request(url) makes (the URL as its one own property), without the
        // constructor call.
        return url === null ? undefined : { __proto__: RequestProto, url };
      }
    } else if (target instanceof Request) {
      return opts ? target.replace(opts) : target;
    } else if (target instanceof Selector) {
      target = selectorHref(target, all);
      if (target === null) return undefined;
    }
    if (typeof target !== "string") {
      const s = target !== null && typeof target === "object" ? String(target) : "";
      if (s === "" || s.startsWith("[object ")) throw new TypeError("response.follow() needs a URL, a Request or a Selector, got " + typeName(target));
      target = s; // a URL object
    }
    const url = joinURL(resp.baseUrl, target, resp.url, all, h);
    if (url === null) return undefined;
    checked = url;
    return requestWith(url, opts);
  }

  // Response is Go-backed (jsresponse.go): this function gives it a name, instanceof and
  // new Response(body, { status, headers, url, request }), WHATWG-style (a downloader
  // middleware may return one instead of downloading); the methods below are in JS.
  function Response(body, init) {
    if (new.target === undefined) throw new TypeError("Class constructor Response cannot be invoked without 'new'");
    const i = init || {};
    if (i.request !== undefined && i.request !== null && !(i.request instanceof Request)) {
      throw new TypeError("new Response(): request must be a Request");
    }
    const r = newResponse(body === undefined || body === null ? "" : String(body),
      i.status === undefined ? 200 : Number(i.status), i.headers || {}, i.url || "", i.request || null);
    if (new.target !== Response) Object.setPrototypeOf(r, new.target.prototype);
    return r;
  }
  Response.prototype = responseProto();
  const hidden = (o, k, v) => Object.defineProperty(o, k, { value: v, writable: true, configurable: true });
  hidden(Response.prototype, "constructor", Response);
  hidden(Response, "handleOf", handleOf);
  const responseJS = {
    replace(changes) {
      const c = changes || {};
      return new Response(c.body !== undefined ? c.body : this.body, {
        status: c.status !== undefined ? c.status : this.status,
        headers: c.headers !== undefined ? c.headers : this.headers.toJSON(),
        url: c.url !== undefined ? c.url : this.url,
        request: c.request !== undefined ? c.request : this.request,
      });
    },
    async text() { return responseText(handleOf(this)); },
    async json() { return JSON.parse(responseText(handleOf(this))); },
    jsonLd() {
      const out = [];
      const [texts, first] = jsonLdTexts(handleOf(this));
      for (const text of texts) {
        let v;
        try {
          v = JSON.parse(text);
        } catch (e) {
          if (first) statInc("jsonld/invalid");
          continue;
        }
        flattenLd(v, out, undefined);
      }
      return out;
    },
    // followAll(targets, options), or Scrapy's followAll(targets, callback[, options]).
    followAll(targets, opts, more) {
      const out = [];
      opts = arguments.length < 2 ? undefined : requestOptions(opts, more, arguments.length, "response.followAll()", requestKeys);
      if (targets === undefined || targets === null) return out;
      const h = handleOf(this);
      for (const t of targets) {
        if (t === null || t === undefined) continue;
        const r = followRequest(this, t, opts, true, h);
        if (r !== undefined) out.push(r);
      }
      return out;
    },
  };
  for (const k of Object.keys(responseJS)) hidden(Response.prototype, k, responseJS[k]);
  // followSlow is response.follow(target, options) and Scrapy's follow(target, callback[,
  // options]) when the Go method's fast path (a string href alone) does not apply.
  function followSlow(target, ...rest) {
    const o = rest.length === 0 ? undefined : requestOptions(rest[0], rest[1], rest.length + 1, "response.follow()", requestKeys);
    return followRequest(this, target, o, false, handleOf(this));
  }

  // Page is Go-backed (page.go): the browser page a response of a request with
  // includePage keeps open; this function gives it a name. It closes when the callback that
  // received the response ends.
  function Page() { throw new TypeError("a Page comes from response.page (the browser option includePage)"); }
  Page.prototype = pageProto();
  hidden(Page.prototype, "constructor", Page);
  // pageScoped ties a page call's [promise, cancel] to the running callback; with parse,
  // the promise resolves to its JSON text parsed (page.evaluate).
  function pageScoped(pair, parse) {
    const p = scoped(pair[0], pair[1], __jscrawlScope(), null);
    return parse ? p.then((r) => JSON.parse(r)) : p;
  }

  function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

  // fetchFlags are fetch's own options: each sets the meta key of its name to true.
  const fetchFlags = ["dontObeyRobotstxt", "dontCount"];
  function fetch(input, init) {
    let req;
    const i = init || {};
    // fetch's init is WHATWG's: the Request options it knows are read, the others ignored,
    // but for a Scrapy spelling of one of jscrawl's (dont_obey_robotstxt, dont_filter).
    for (const k of Object.keys(i)) {
      if (k.includes("_")) {
        const name = requestKeys.concat(fetchFlags).find((x) => squash(x) === squash(k));
        if (name) throw new TypeError("fetch(): option \"" + k + "\" is Scrapy's spelling" + at() + ": jscrawl spells it \"" + name + "\"");
      }
    }
    const picked = (keys) => {
      const o = {};
      for (const k of keys) if (i[k] !== undefined) o[k] = i[k];
      return o;
    };
    let flags = null;
    for (const k of fetchFlags) if (i[k]) (flags || (flags = {}))[k] = true;
    if (input instanceof Request) {
      let o = init ? picked(requestKeys) : null;
      if (flags) {
        o = o || {};
        o.meta = Object.assign({}, o.meta !== undefined ? o.meta : input.meta, flags); // init.meta replaces the request's, as replace() does
      }
      req = o ? input.replace(o) : input;
    } else {
      const o = Object.assign(picked(["method", "headers", "body", "meta", "browser"]), { dontFilter: true });
      if (flags) o.meta = Object.assign({}, o.meta, flags);
      req = requestWith(checkURL(input, "fetch"), o);
    }
    return download(req, i.signal);
  }

  // crawlerHTTP is this.crawler.http: a client for the services a pipeline talks to,
  // outside the crawl's robots.txt, middlewares, slots and stats (fetch with dontCount).
  const crawlerHTTP = Object.freeze({
    fetch(input, init) { return fetch(input, Object.assign({}, init, { dontCount: true })); },
  });

  // scoped ties asynchronous Go work ([promise, cancel]) to the running callback: a
  // callback that fails cancels what it still awaits (see runtime's scopes); an
  // AbortSignal cancels it too and rejects with the signal's reason.
  function scoped(started, cancel, scope, signal) {
    let promise = started;
    if (scope) {
      (scope.cancels || (scope.cancels = new Set())).add(cancel);
      const forget = () => scope.cancels.delete(cancel);
      promise = started.then((r) => { forget(); return r; }, (e) => { forget(); throw e; });
    }
    if (!signal) return promise;
    const onAbort = () => cancel();
    signal.addEventListener("abort", onAbort, { once: true });
    return promise.then(
      (r) => { signal.removeEventListener("abort", onAbort); return r; },
      (e) => { signal.removeEventListener("abort", onAbort); throw signal.aborted ? signal.reason : e; });
  }

  // download runs an inline download; an AbortSignal cancels it (the Go request context)
  // and rejects with the signal's reason. A browser page the response keeps (includePage)
  // is closed when the callback's scope ends.
  function download(req, signal) {
    if (signal !== undefined && signal !== null && !(signal instanceof AbortSignal)) {
      throw new TypeError("signal must be an AbortSignal");
    }
    if (signal && signal.aborted) return Promise.reject(signal.reason);
    // The scope's tag tells the control endpoint which callback awaits the download.
    const scope = __jscrawlScope();
    const [started, cancel] = startDownload(req, scope ? scope.tag : 0);
    const promise = scoped(started, cancel, scope, signal);
    const b = Object.prototype.hasOwnProperty.call(req, "meta") && req.meta ? req.meta.browser : undefined;
    if (!b || !b.includePage) return promise;
    return promise.then((r) => {
      const h = Response.handleOf(r);
      if (scope) (scope.finals || (scope.finals = new Set())).add(() => closePage(h));
      return r;
    });
  }

  function crawlerDownload(req, opts) {
    if (!(req instanceof Request)) throw new TypeError("crawler.download() needs a Request: new Request(url, {...})");
    return download(req, opts && opts.signal);
  }

  // Signals: this.crawler.signals is Go-backed (signals.go), handlers by signal name, each
  // called with one event object; async ones are awaited by the engine (Scrapy:
  // signals.connect and the deferred signals).
  const signals = signalsObject();
  function dispatchSignal(name, ev) {
    const list = signalHandlers(name); // a copy: a handler may connect or disconnect
    if (list === null) return undefined;
    const results = [];
    for (const h of list) {
      try { results.push(h.call(spider, ev)); } catch (e) { results.push(Promise.reject(e)); }
    }
    // Settles once every handler's promise has (Scrapy's DeferredList), rejected with the
    // first failure; a DontCloseSpider comes first, so the spider is kept open.
    return Promise.allSettled(results).then((rs) => {
      const bad = rs.filter((r) => r.status === "rejected").map((r) => r.reason);
      if (bad.length) throw bad.find((e) => e instanceof DontCloseSpider) || bad[0];
    });
  }

  // Spider is an optional base class (TypeScript spiders extend it for typed this.crawler
  // and this.logger); the engine sets both on any spider.
  class Spider {}

  // Spider middlewares (export const spiderMiddlewares): processStart(start, spider) in array
  // order, processSpiderOutput(response, result, spider) in reverse order, each getting an
  // async iterable and returning one (usually an async generator), as Scrapy's.
  let spiderMiddlewares = [];
  function toAsyncIterable(result) {
    if (result !== null && typeof result === "object" && typeof result[Symbol.asyncIterator] === "function") return result;
    return {
      [Symbol.asyncIterator]() {
        let items = null;
        let i = 0;
        const ready = Promise.resolve(result).then((v) => {
          if (v === undefined || v === null) items = [];
          else if (Array.isArray(v)) items = v;
          else if (typeof v === "object" && !(v instanceof Request) && typeof v[Symbol.iterator] === "function") items = Array.from(v);
          else items = [v];
        });
        return { next: () => ready.then(() => (i < items.length ? { value: items[i++], done: false } : { value: undefined, done: true })) };
      },
    };
  }
  function chain(hook, list, apply) {
    const mws = list.filter((m) => typeof m[hook] === "function");
    if (mws.length === 0) return undefined;
    return (result) => apply(mws, toAsyncIterable(result));
  }
  const wrapStart = () => chain("processStart", spiderMiddlewares, (mws, it) => {
    for (const m of mws) it = m.processStart(it, spider);
    return it;
  });
  // wrapOutput chains processSpiderOutput in reverse order, with processSpiderException
  // (Scrapy's SpiderMiddlewareManager): an error that reaches a stage from below (the
  // callback or an earlier stage) is offered to that stage's processSpiderException; if it
  // returns an iterable, that replaces the stage's output and passes the later stages only.
  // An error a stage raises itself goes to the later stages.
  const asyncIter = (it) => it[Symbol.asyncIterator]();
  // The stages of the spider output chain that run here, spider side first: the engine's
  // plan (engine.OutputPlan) made of spider middlewares and runs of built-in Go output
  // filters, which one native call per output runs (outputFilters).
  let outputStages = [];
  const goStage = (stage) => ({
    processSpiderOutput(response, result) {
      const h = response instanceof Response ? Response.handleOf(response) : null;
      const filter = (v) => (v instanceof Request ? outputFilters(stage, v, h) : v);
      return {
        [Symbol.asyncIterator]() {
          const it = asyncIter(result);
          const next = () => Promise.resolve(it.next()).then((r) => {
            if (r.done) return r;
            if (Array.isArray(r.value)) return { value: r.value.map(filter).filter((v) => v !== null), done: false };
            const v = filter(r.value);
            return v === null ? next() : { value: v, done: false };
          });
          return { next };
        },
      };
    },
  });
  const wrapOutput = (response) => {
    const stages = outputStages;
    if (stages.length === 0) return undefined;
    // tap records the errors that come out of a stage's input.
    const tap = (iterable, seen) => ({
      [Symbol.asyncIterator]() {
        let inner = null;
        const fail = (e) => { seen.add(e); throw e; };
        return {
          next: () => {
            try {
              if (inner === null) inner = asyncIter(iterable);
              return Promise.resolve(inner.next()).catch(fail);
            } catch (e) {
              return Promise.resolve().then(() => fail(e));
            }
          },
        };
      },
    });
    const guard = (iterable, i, seen) => ({
      [Symbol.asyncIterator]() {
        let inner = null;
        let replaced = false;
        const onError = (e) => {
          const h = stages[i].processSpiderException;
          if (replaced || !seen.has(e) || typeof h !== "function") throw e;
          const out = h.call(stages[i], response, e, spider);
          if (out === undefined || out === null) throw e;
          replaced = true;
          inner = asyncIter(pass(toAsyncIterable(out), i + 1));
          return inner.next();
        };
        return {
          next: () => {
            try {
              if (inner === null) inner = asyncIter(iterable);
              return Promise.resolve(inner.next()).catch(onError);
            } catch (e) {
              seen.add(e); // raised while starting the stage: treat as coming from below
              return Promise.resolve().then(() => onError(e));
            }
          },
        };
      },
    });
    const pass = (it, from) => {
      for (let i = from; i < stages.length; i++) {
        const seen = new Set();
        const input = tap(it, seen);
        const out = typeof stages[i].processSpiderOutput === "function"
          ? stages[i].processSpiderOutput(response, input, spider) : input;
        it = guard(out, i, seen);
      }
      return it;
    };
    return (result) => pass(toAsyncIterable(result), 0);
  };

  // ---- this.state and this.resumed (a job's state: Scrapy's spider.state) ----

  const isStateObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const kindOf = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object"
    : typeof v === "undefined" ? "undefined" : "a " + typeof v);
  // Values JSON.stringify would turn into {} silently, losing what they hold.
  const lossy = [Map, Set, WeakMap, WeakSet, Promise, RegExp];
  const identifier = /^[A-Za-z_$][\w$]*$/;
  class StateError extends Error {}

  // checkState throws a StateError naming the first value in v that JSON cannot keep (a
  // function, a Symbol, a BigInt, a Map or another object JSON would turn into {}, a cycle)
  // and its path (state.a.b[2]). It walks what JSON.stringify would: toJSON() results, own
  // enumerable properties. Paths are built only for the error.
  function checkState(v) {
    const objs = []; // the objects walked into, outermost first
    const keys = []; // keys[i]: the key inside objs[i] being walked
    const seg = (holder, key) => (Array.isArray(holder) ? "[" + key + "]" : identifier.test(key) ? "." + key : "[" + JSON.stringify(key) + "]");
    const path = (n) => { let p = "state"; for (let i = 0; i < n; i++) p += seg(objs[i], keys[i]); return p; };
    const bad = (what, why) => { throw new StateError(what + " at " + path(keys.length) + (why ? " (" + why + ")" : "")); };
    function check(x, converted) {
      switch (typeof x) {
        case "function": bad("a function"); break;
        case "bigint": bad("a BigInt"); break;
        case "symbol": bad("a Symbol"); break;
        case "object": if (x !== null) break; return;
        default: return;
      }
      if (!converted && typeof x.toJSON === "function") {
        check(x.toJSON(keys.length ? String(keys[keys.length - 1]) : ""), true);
        return;
      }
      for (const c of lossy) if (x instanceof c) bad("a " + c.name, "JSON has no " + c.name + ": use an object or an array");
      const i = objs.indexOf(x);
      if (i >= 0) throw new StateError("a cycle at " + path(keys.length) + " (it refers back to " + path(i) + ")");
      objs.push(x);
      // Plain loops with the leaf test inline: this runs at every commit.
      const arr = Array.isArray(x);
      const ks = arr ? null : Object.keys(x);
      const n = arr ? x.length : ks.length;
      for (let j = 0; j < n; j++) {
        const k = arr ? j : ks[j];
        const y = x[k];
        const t = typeof y;
        if (t === "string" || t === "number" || t === "boolean" || t === "undefined" || y === null) continue;
        keys.push(k); check(y, false); keys.pop();
      }
      objs.pop();
    }
    check(v, false);
  }

  // stateJSON returns [JSON of s.state, null], or [null, what cannot be saved]: s.state must
  // be an object that checkState accepts. toJSON() is honoured and undefined properties are
  // left out, as JSON.stringify does.
  function stateJSON(s) {
    const v = s.state;
    if (!isStateObject(v)) return [null, "this.state must be an object, got " + kindOf(v)];
    try {
      checkState(v);
      const json = JSON.stringify(v);
      if (json === undefined || json[0] !== "{") return [null, "this.state.toJSON() must return an object"];
      return [json, null];
    } catch (e) {
      if (e instanceof StateError) return [null, e.message];
      return [null, "reading this.state: " + (e && e.message !== undefined ? e.message : String(e))];
    }
  }

  // setJobState gives s its job's state: the saved JSON text, or, with null (a new job or no
  // job), the state the spider set itself (a class field state = {...}) or {}; and resumed.
  // Both are own, non-enumerable properties. A state that is not an object is left alone
  // without a job (the spider's own field named state) and reported with one (strict).
  function setJobState(s, text, resumed, strict) {
    if (text !== null) {
      const v = JSON.parse(text);
      if (!isStateObject(v)) throw new TypeError("the saved state is " + kindOf(v) + ", not an object");
      Object.defineProperty(s, "state", { value: v, writable: true, enumerable: false, configurable: true });
    } else if (s.state === undefined || s.state === null) {
      Object.defineProperty(s, "state", { value: {}, writable: true, enumerable: false, configurable: true });
    } else if (strict && !isStateObject(s.state)) {
      throw new TypeError("this.state is " + kindOf(s.state) + ": a job saves this.state, which must be an object (rename the spider's own field)");
    }
    Object.defineProperty(s, "resumed", { value: !!resumed, writable: true, enumerable: false, configurable: true });
  }

  // methodNames lists the names of s's methods: own properties and those of its classes
  // (base spiders included) whose value is a function; getters are not called.
  function methodNames(s) {
    const out = [];
    for (let o = s; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
      for (const k of Object.getOwnPropertyNames(o)) {
        if (k === "constructor") continue;
        const d = Object.getOwnPropertyDescriptor(o, k);
        if (d && typeof d.value === "function") out.push(k);
      }
    }
    return out;
  }

  const exports = { Request, Response, Selector, SelectorList, Headers, DropItem, DontCloseSpider, Spider, sleep, fetch };
  for (const k of ["Request", "DropItem", "sleep", "fetch"]) {
    Object.defineProperty(g, k, { value: exports[k], writable: true, configurable: true });
  }
  return {
    exports,
    setSpider(s) {
      spider = s;
      // Spider methods opened() and closed(reason) are shortcuts for the two signals.
      if (typeof s.opened === "function") signals.connect("spider_opened", () => s.opened());
      if (typeof s.closed === "function") signals.connect("spider_closed", (ev) => s.closed(ev.reason));
    },
    signals,
    dispatchSignal,
    setSpiderMiddlewares(list) { spiderMiddlewares = list; outputStages = []; },
    // setOutputPlan sets the output stages from the engine's plan, spider side first: each
    // { mw } is spiderMiddlewares[mw], each { go } the Go filters of the plan's stage go.
    setOutputPlan(plan) {
      outputStages = plan.map((s) => (s.mw !== undefined ? spiderMiddlewares[s.mw] : goStage(s.go)));
    },
    stateJSON,
    setJobState,
    methodNames,
    wrapStart,
    wrapOutput,
    crawlerDownload,
    crawlerHTTP,
    pageScoped,
    follow: followSlow,
    makeRequest(url, o) { return requestWith(url, o); },
    requestHeadersProto,
    requestProto: Request.prototype,
    // for spiders.js (link following and the base spiders)
    internals: { Request, Response, Spider, methodName, spider: () => spider, hasMiddlewares: () => spiderMiddlewares.length > 0,
      checkOptions, requestOptions, requestKeys, requestWith },
    logger: newLogger, // this.logger (logger.go)
  };
})
