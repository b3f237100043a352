// The "crawlee" and "@crawlee/cheerio" modules: Crawlee 3's CheerioCrawler, routers,
// Request, log, Dataset and KeyValueStore, on jscrawl's engine. Runs once per VM after
// prelude.js and spiders.js; `n` holds the Go natives (natives.go, crawlee.go), `p` the
// prelude's internals, `h` its helpers. Returns { exports, adapt }: adapt turns a module
// in one of Crawlee's forms (export default router, export default crawler, a script that
// ran a crawler) into a spider object the loader understands. Plain ES2020 with native
// promises: what it calls of the user's code is called synchronously from the callback
// (so the callback's scope is kept), continuations are bound to the scope.
(function (g, n, p, h) {
  "use strict";
  const { takeSlot, primary, fileName, kvGet, kvSet, kvKeys } = n.crawlee;
  const { Response, requestWith } = p;
  const signals = h.signals;
  const isNil = (v) => v === undefined || v === null;
  const bindScope = (fn) => g.__jscrawlBindScope(fn);
  const scopeOut = () => { const s = g.__jscrawlScope(); return s && s.crawleeOut ? s.crawleeOut : null; };
  // The item field that names a named dataset's items (a FEEDS entry with the option
  // dataset selects them; feeds without it get the default dataset's items only).
  const DATASET_FIELD = "__dataset";

  // ---- log (Crawlee's @apify/log, onto the spider's logger) ----
  const LogLevel = Object.freeze({ OFF: 0, ERROR: 1, SOFT_FAIL: 2, WARNING: 3, INFO: 4, DEBUG: 5, PERF: 6 });
  const out = h.logger("crawlee");
  const logState = { level: LogLevel.INFO, once: new Set() };
  const render = (prefix, msg, data) => {
    let s = (prefix ? prefix + ": " : "") + String(msg);
    if (data !== undefined && data !== null && (typeof data !== "object" || Object.keys(data).length)) {
      try { s += " " + JSON.stringify(data); } catch (e) { s += " " + String(data); }
    }
    return s;
  };
  class Log {
    constructor(options) { this.prefix = options && options.prefix ? String(options.prefix) : null; }
    setLevel(level) { logState.level = Number(level); }
    getLevel() { return logState.level; }
    setOptions(o) { if (o && o.level !== undefined) this.setLevel(o.level); if (o && o.prefix !== undefined) this.prefix = o.prefix; }
    getOptions() { return { level: logState.level, prefix: this.prefix }; }
    child(options) { const c = new Log(options); if (this.prefix && c.prefix) c.prefix = this.prefix + ":" + c.prefix; else if (!c.prefix) c.prefix = this.prefix; return c; }
    internal(level, msg, data) {
      if (level > logState.level || level === LogLevel.OFF) return;
      const text = render(this.prefix, msg, data);
      if (level <= LogLevel.ERROR) out.error(text);
      else if (level <= LogLevel.WARNING) out.warn(text);
      else if (level === LogLevel.INFO) out.info(text);
      else out.debug(text);
    }
    error(msg, data) { this.internal(LogLevel.ERROR, msg, data); }
    exception(err, msg, data) {
      const e = err && err.stack ? err.stack : String(err);
      this.internal(LogLevel.ERROR, (msg === undefined ? "" : String(msg) + " ") + e, data);
    }
    softFail(msg, data) { this.internal(LogLevel.SOFT_FAIL, msg, data); }
    warning(msg, data) { this.internal(LogLevel.WARNING, msg, data); }
    warningOnce(msg) { if (!logState.once.has(msg)) { logState.once.add(msg); this.warning(msg); } }
    deprecated(msg) { this.warningOnce(msg); }
    info(msg, data) { this.internal(LogLevel.INFO, msg, data); }
    debug(msg, data) { this.internal(LogLevel.DEBUG, msg, data); }
    perf(msg, data) { this.internal(LogLevel.PERF, msg, data); }
  }
  const log = new Log();

  // ---- Request ----
  const uniqueKeyOf = (url, keepFragment) => {
    const s = String(url).trim();
    const i = s.indexOf("#");
    return keepFragment || i < 0 ? s : s.slice(0, i);
  };
  class Request {
    constructor(options) {
      const o = typeof options === "string" ? { url: options } : options || {};
      if (typeof o.url !== "string" || o.url === "") throw new TypeError("Request: url must be a non-empty string");
      this.id = undefined;
      this.url = o.url;
      this.loadedUrl = o.loadedUrl;
      const key = uniqueKeyOf(o.url, o.keepUrlFragment);
      this.uniqueKey = isNil(o.uniqueKey) ? key : String(o.uniqueKey);
      this.method = String(o.method || "GET").toUpperCase();
      this.payload = isNil(o.payload) ? undefined : o.payload;
      this.noRetry = !!o.noRetry;
      this.retryCount = o.retryCount | 0;
      this.errorMessages = Array.isArray(o.errorMessages) ? o.errorMessages.slice() : [];
      this.headers = Object.assign({}, o.headers);
      this.userData = Object.assign({}, o.userData);
      if (!isNil(o.label)) this.userData.label = o.label;
      this.skipNavigation = !!o.skipNavigation;
      this.handledAt = undefined;
      Object.defineProperty(this, "_customKey", { value: this.uniqueKey !== key, writable: true });
    }
    get label() { return this.userData.label; }
    set label(v) { this.userData.label = v; }
    pushErrorMessage(e) { this.errorMessages.push(e && e.message !== undefined ? String(e.message) : String(e)); }
  }
  const toCrawleeRequest = (r) => (r instanceof Request ? r : new Request(r));

  // toJ makes the jscrawl Request of a Crawlee one: userData in meta.userData, the
  // retry count and uniqueKey in meta.crawlee, parse and failed as callback and errback.
  function toJ(c) {
    const meta = { userData: c.userData, crawlee: { uniqueKey: c.uniqueKey, retryCount: c.retryCount } };
    if (c.noRetry) meta.crawlee.noRetry = true;
    if (c.errorMessages.length) meta.crawlee.errorMessages = c.errorMessages;
    const o = { meta, callback: "parse", errback: "failed" };
    if (c.method !== "GET") o.method = c.method;
    if (Object.keys(c.headers).length) o.headers = c.headers;
    if (!isNil(c.payload)) o.body = c.payload;
    // A uniqueKey of its own makes a request Crawlee would not deduplicate by URL.
    if (c._customKey || c.retryCount > 0) o.dontFilter = true;
    return requestWith(c.url, o);
  }
  const plainHeaders = (hs) => {
    const o = {};
    if (isNil(hs)) return o;
    if (typeof hs.entries === "function") { for (const [k, v] of hs.entries()) o[String(k).toLowerCase()] = v; return o; }
    for (const k of Object.keys(hs)) o[k.toLowerCase()] = hs[k];
    return o;
  };
  // fromJ is the Crawlee Request of a jscrawl one (the request a response answers).
  function fromJ(j, response) {
    const meta = j.meta || {};
    const cr = meta.crawlee || {};
    const redirects = meta.redirectUrls;
    const url = Array.isArray(redirects) && redirects.length ? redirects[0] : j.url;
    const c = new Request({ url, uniqueKey: cr.uniqueKey, method: j.method, headers: j.headers ? j.headers.toJSON() : {},
      payload: isNil(j.body) ? undefined : j.body, userData: meta.userData || {}, retryCount: cr.retryCount || 0, noRetry: cr.noRetry,
      errorMessages: cr.errorMessages });
    c.id = c.uniqueKey;
    if (response) c.loadedUrl = response.url;
    return c;
  }

  // ---- Router ----
  const ROUTER = Symbol("crawlee router");
  const defaultRoute = Symbol("default-route");
  class Router {
    constructor() { this.routes = new Map(); this.middlewares = []; }
    addHandler(label, handler) {
      if (this.routes.has(label)) throw new Error(`Route for label '${String(label)}' is already defined!`);
      this.routes.set(label, handler);
    }
    addDefaultHandler(handler) {
      if (this.routes.has(defaultRoute)) throw new Error("Default route is already defined!");
      this.routes.set(defaultRoute, handler);
    }
    use(middleware) { this.middlewares.push(middleware); }
    getHandler(label) {
      if (!isNil(label) && label !== "" && this.routes.has(label)) return this.routes.get(label);
      if (this.routes.has(defaultRoute)) return this.routes.get(defaultRoute);
      throw new Error(`Route not found for label '${String(label)}'. You must set up a route for this label or a default route. ` +
        "Use `requestHandler`, `router.addHandler` or `router.addDefaultHandler`.");
    }
    // create makes a router that is also its own request handler (router(ctx)).
    static create(routes) {
      const r = new Router();
      const fn = function (ctx) {
        ctx.log.debug("Page opened.", { label: ctx.request.label, url: ctx.request.loadedUrl || ctx.request.url });
        if (r.middlewares.length === 0) return r.getHandler(ctx.request.label)(ctx);
        let chain = Promise.resolve();
        for (const m of r.middlewares) chain = chain.then(bindScope(() => m(ctx)));
        return chain.then(bindScope(() => r.getHandler(ctx.request.label)(ctx)));
      };
      for (const k of ["addHandler", "addDefaultHandler", "use", "getHandler"]) fn[k] = r[k].bind(r);
      Object.defineProperty(fn, ROUTER, { value: r });
      for (const label of Reflect.ownKeys(routes || {})) {
        if (typeof routes[label] === "function") r.addHandler(label, routes[label]);
      }
      return fn;
    }
  }
  const createCheerioRouter = (routes) => Router.create(routes);
  const isRouter = (v) => typeof v === "function" && v[ROUTER] instanceof Router;

  // ---- Key-value stores (Go-held, per crawl: kvs.go) ----
  const stores = new Map();
  const storeOf = (name) => {
    const id = isNil(name) || name === "default" ? "default" : String(name);
    let s = stores.get(id);
    if (!s) { s = new KeyValueStore(id); stores.set(id, s); }
    return s;
  };
  function encodeValue(value, contentType) {
    const bytes = value instanceof ArrayBuffer ? value : ArrayBuffer.isView(value)
      ? value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) : null;
    if (!isNil(contentType)) {
      const ct = String(contentType);
      if (bytes) return [bytes, ct];
      if (typeof value === "string") return [value, ct];
      return [JSON.stringify(value), ct];
    }
    if (bytes) return [bytes, "application/octet-stream"];
    if (typeof value === "string") return [value, "text/plain; charset=utf-8"];
    const json = JSON.stringify(value, null, 2);
    if (json === undefined) throw new TypeError("KeyValueStore.setValue: the value cannot be stored as JSON");
    return [json, "application/json; charset=utf-8"];
  }
  function decodeValue(r) {
    const [v, ct] = r;
    if (/^application\/(.+\+)?json\b/i.test(ct) && typeof v === "string") return JSON.parse(v);
    return v;
  }
  class KeyValueStore {
    constructor(id) { this.id = id; this.name = id === "default" ? undefined : id; }
    static open(name) { return Promise.resolve(storeOf(name)); }
    static getValue(key, defaultValue) { return storeOf().getValue(key, defaultValue); }
    static setValue(key, value, options) { return storeOf().setValue(key, value, options); }
    static recordExists(key) { return storeOf().recordExists(key); }
    static getInput() { return storeOf().getValue("INPUT"); }
    getValue(key, defaultValue) {
      try {
        const r = kvGet(this.id, String(key));
        return Promise.resolve(r === null ? (defaultValue === undefined ? null : defaultValue) : decodeValue(r));
      } catch (e) { return Promise.reject(e); }
    }
    setValue(key, value, options) {
      try {
        if (isNil(value)) return kvSet(this.id, String(key), null, "");
        const [data, ct] = encodeValue(value, options && options.contentType);
        return kvSet(this.id, String(key), data, ct);
      } catch (e) { return Promise.reject(e); }
    }
    recordExists(key) {
      try { return Promise.resolve(kvGet(this.id, String(key)) !== null); } catch (e) { return Promise.reject(e); }
    }
    forEachKey(fn, options) {
      let keys = kvKeys(this.id);
      const start = options && options.exclusiveStartKey;
      if (!isNil(start)) keys = keys.filter((k) => k > start);
      let chain = Promise.resolve();
      keys.forEach((k, i) => { chain = chain.then(bindScope(() => fn(k, i, { size: undefined }))); });
      return chain.then(() => undefined);
    }
    drop() { return Promise.all(kvKeys(this.id).map((k) => kvSet(this.id, k, null, ""))).then(() => { stores.delete(this.id); }); }
  }

  // ---- Datasets ----
  // A dataset's items are the ones pushed on this VM (getData and friends read those); each
  // pushed item also goes to the crawl's output: the default dataset's as items, a named
  // dataset's with the field __dataset naming it (feeds select them with the option dataset).
  const datasets = new Map();
  const datasetOf = (name) => {
    const id = isNil(name) || name === "default" ? "default" : String(name);
    let d = datasets.get(id);
    if (!d) { d = new Dataset(id); datasets.set(id, d); }
    return d;
  };
  const csvCell = (v) => {
    if (isNil(v)) return "";
    const s = typeof v === "object" ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  };
  function pushItems(ds, data, sink) {
    const list = Array.isArray(data) ? data : [data];
    for (const it of list) {
      if (it === null || typeof it !== "object" || Array.isArray(it)) throw new TypeError("pushData: an item must be an object, got " + (it === null ? "null" : typeof it));
    }
    const target = sink || scopeOut();
    for (const it of list) {
      ds.items.push(it);
      if (target) target.push(ds.name ? Object.assign({ [DATASET_FIELD]: ds.name }, it) : it);
    }
    if (!target) log.warningOnce("pushData() outside a request handler: its items stay in this VM's dataset (getData) but do not reach the crawl's feeds");
    return Promise.resolve();
  }
  class Dataset {
    constructor(id) { this.id = id; this.name = id === "default" ? undefined : id; this.items = []; Object.defineProperty(this, "items", { enumerable: false }); }
    static open(name) { return Promise.resolve(datasetOf(name)); }
    static pushData(data) { try { return pushItems(datasetOf(), data, null); } catch (e) { return Promise.reject(e); } }
    static getData(options) { return datasetOf().getData(options); }
    static exportToJSON(key, options) { return datasetOf().exportToJSON(key, options); }
    static exportToCSV(key, options) { return datasetOf().exportToCSV(key, options); }
    pushData(data) { try { return pushItems(this, data, null); } catch (e) { return Promise.reject(e); } }
    getData(options) {
      const o = options || {};
      let items = this.items.slice();
      if (o.desc) items.reverse();
      const offset = o.offset | 0;
      const limit = isNil(o.limit) ? items.length : o.limit | 0;
      items = items.slice(offset, offset + limit);
      return Promise.resolve({ items, total: this.items.length, offset, count: items.length, limit, desc: !!o.desc });
    }
    getInfo() { return Promise.resolve({ id: this.id, name: this.name, itemCount: this.items.length }); }
    forEach(fn) {
      let chain = Promise.resolve();
      this.items.slice().forEach((it, i) => { chain = chain.then(bindScope(() => fn(it, i))); });
      return chain.then(() => undefined);
    }
    map(fn) {
      const res = [];
      let chain = Promise.resolve();
      this.items.slice().forEach((it, i) => { chain = chain.then(bindScope(() => fn(it, i))).then((v) => { res.push(v); }); });
      return chain.then(() => res);
    }
    reduce(fn, memo) {
      const items = this.items.slice();
      let chain = Promise.resolve(memo);
      let i = 0;
      if (memo === undefined && items.length) { chain = Promise.resolve(items[0]); i = 1; }
      for (; i < items.length; i++) { const it = items[i], j = i; chain = chain.then(bindScope((acc) => fn(acc, it, j))); }
      return chain;
    }
    exportToJSON(key, options) {
      const store = storeOf(options && options.toKVS);
      return store.setValue(key, this.items.slice());
    }
    exportToCSV(key, options) {
      const cols = [];
      for (const it of this.items) for (const k of Object.keys(it)) if (!cols.includes(k)) cols.push(k);
      const lines = [cols.map(csvCell).join(",")];
      for (const it of this.items) lines.push(cols.map((k) => csvCell(it[k])).join(","));
      return storeOf(options && options.toKVS).setValue(key, lines.join("\r\n") + "\r\n", { contentType: "text/csv" });
    }
    drop() { this.items.length = 0; datasets.delete(this.id); return Promise.resolve(); }
  }

  // ---- CheerioCrawler ----
  const EnqueueStrategy = Object.freeze({ All: "all", SameHostname: "same-hostname", SameDomain: "same-domain", SameOrigin: "same-origin" });
  const crawlers = []; // made on this VM
  let ran = null; // the crawler whose run() the script called
  const runWaiters = [];
  let spiderOf = null; // the spider object of this VM, once adapt made it
  const jsc = () => (spiderOf && spiderOf.crawler) || null; // jscrawl's this.crawler
  const stat = (k) => { const c = jsc(); const v = c ? c.stats.get("crawlee/" + k, 0) : 0; return typeof v === "number" ? v : 0; };
  const statInc = (k) => { const c = jsc(); if (c) c.stats.inc("crawlee/" + k, 1); };

  class CheerioCrawler {
    constructor(options, config) {
      const o = options || {};
      this.options = o;
      this.log = log.child({ prefix: "CheerioCrawler" });
      this.router = Router.create();
      this.requestHandler = o.requestHandler || o.handlePageFunction || this.router;
      this.failedRequestHandler = o.failedRequestHandler || o.handleFailedRequestFunction || null;
      this.errorHandler = o.errorHandler || null;
      this.maxRequestRetries = isNil(o.maxRequestRetries) ? 3 : o.maxRequestRetries | 0;
      this.maxRequestsPerCrawl = isNil(o.maxRequestsPerCrawl) ? 0 : o.maxRequestsPerCrawl | 0;
      this.stats = { state: {} };
      Object.defineProperty(this, "_pending", { value: [], writable: true });
      Object.defineProperty(this, "_started", { value: 0, writable: true });
      crawlers.push(this);
    }
    // addRequests adds requests: inside a request handler to the crawl, else to the
    // start requests of run().
    addRequests(requests, options) {
      try {
        const list = Array.from(requests || [], toCrawleeRequest);
        const sink = scopeOut();
        if (sink) for (const c of list) sink.push(toJ(c));
        else this._pending.push(...list);
        const added = list.map((c) => ({ requestId: c.uniqueKey, uniqueKey: c.uniqueKey, wasAlreadyPresent: false, wasAlreadyHandled: false }));
        return Promise.resolve({ addedRequests: added, waitForAllRequestsToBeAdded: Promise.resolve([]) });
      } catch (e) { return Promise.reject(e); }
    }
    // run starts the crawl (jscrawl run starts it after loading the script): its promise
    // resolves with the final statistics when the crawl ends, on the crawl's first VM only
    // (so code after await crawler.run() runs once).
    run(requests, options) {
      if (requests) { const r = this.addRequests(requests, options); r.catch(() => {}); }
      if (ran !== null && ran !== this) return Promise.reject(new Error("jscrawl runs one CheerioCrawler per script: run() was called on another one already"));
      ran = this;
      if (!primary()) return new Promise(() => {});
      return new Promise((resolve) => runWaiters.push(resolve));
    }
    getData(options) { return Dataset.getData(options); }
    pushData(data, ds) { try { return pushItems(datasetOf(ds), data, null); } catch (e) { return Promise.reject(e); } }
    exportData(path) { return Promise.reject(new Error("crawler.exportData() is not supported: jscrawl run -o FILE writes the items")); }
    stop(reason) { const c = jsc(); if (c) c.engine.closeSpider(reason === undefined ? "finished" : String(reason)); }
    getRequestQueue() { return Promise.reject(new Error("getRequestQueue() is not supported: the engine's scheduler is the queue; use addRequests()")); }
  }

  const finalStatistics = (started) => {
    const finished = stat("requests_finished"), failed = stat("requests_failed");
    return { requestsFinished: finished, requestsFailed: failed, requestsRetries: stat("requests_retries"), requestsTotal: finished + failed,
      crawlerRuntimeMillis: Date.now() - started, retryHistogram: [] };
  };

  // settingsOf maps a crawler's options to jscrawl settings (the spider's customSettings;
  // -s still wins). docs/from-crawlee.md has the table.
  function settingsOf(o) {
    const s = {
      ROBOTSTXT_OBEY: !!o.respectRobotsTxtFile,
      RETRY_TIMES: isNil(o.maxRequestRetries) ? 3 : o.maxRequestRetries | 0,
    };
    // Crawlee hands 4xx pages to the handler (5xx fail and are retried; 401, 403 and 429
    // retire the session and are retried).
    const extra = new Set(o.additionalHttpErrorStatusCodes || []);
    const allowed = [];
    for (let c = 400; c < 500; c++) if (c !== 401 && c !== 403 && c !== 429 && !extra.has(c)) allowed.push(c);
    for (const c of o.ignoreHttpErrorStatusCodes || []) if (!allowed.includes(c)) allowed.push(c | 0);
    s.HTTPERROR_ALLOWED_CODES = allowed;
    if (!isNil(o.maxConcurrency)) { s.CONCURRENT_REQUESTS = o.maxConcurrency | 0; s.CONCURRENT_REQUESTS_PER_DOMAIN = o.maxConcurrency | 0; }
    if (!isNil(o.requestHandlerTimeoutSecs)) s.CALLBACK_TIMEOUT = Number(o.requestHandlerTimeoutSecs);
    if (!isNil(o.navigationTimeoutSecs)) s.DOWNLOAD_TIMEOUT = Number(o.navigationTimeoutSecs);
    if (!isNil(o.maxRequestsPerMinute) && o.maxRequestsPerMinute > 0) {
      s.DOWNLOAD_DELAY = 60 / Number(o.maxRequestsPerMinute);
      s.RANDOMIZE_DOWNLOAD_DELAY = false;
    }
    if (!isNil(o.ignoreSslErrors)) s.DOWNLOAD_VERIFY_TLS = !o.ignoreSslErrors;
    return s;
  }

  // ---- The crawling context ----
  function enqueueLinks(response, sink, o) {
    const opts = o || {};
    if (!response) return Promise.resolve({ processedRequests: [], unprocessedRequests: [] });
    const spec = {};
    for (const k of ["urls", "selector", "include", "globs", "regexps", "exclude", "strategy", "limit", "baseUrl"]) {
      if (!isNil(opts[k])) spec[k] = opts[k];
    }
    if (!isNil(opts.pseudoUrls)) log.warningOnce("enqueueLinks(): pseudoUrls are not supported (deprecated in Crawlee): use globs or regexps");
    let found;
    try { found = response.enqueueLinks(spec); } catch (e) { return Promise.reject(e); }
    const processed = [];
    for (const r of found) {
      let c = { url: r.url };
      if (!isNil(opts.label)) c.label = opts.label;
      if (!isNil(opts.userData)) c.userData = JSON.parse(JSON.stringify(opts.userData));
      if (typeof opts.transformRequestFunction === "function") {
        c = opts.transformRequestFunction(c);
        if (!c) continue; // Crawlee: a falsy result skips the link
      }
      const cr = toCrawleeRequest(c);
      sink.push(toJ(cr));
      processed.push({ requestId: cr.uniqueKey, uniqueKey: cr.uniqueKey, wasAlreadyPresent: false, wasAlreadyHandled: false });
    }
    return Promise.resolve({ processedRequests: processed, unprocessedRequests: [] });
  }

  function sendRequest(creq, overrides) {
    const o = overrides || {};
    const url = String(o.url || creq.url);
    const headers = Object.assign({}, creq.headers, o.headers);
    const init = { method: String(o.method || creq.method).toUpperCase(), headers };
    if (!isNil(o.body)) init.body = o.body;
    else if (!isNil(o.json)) { init.body = JSON.stringify(o.json); headers["content-type"] = "application/json"; }
    else if (!isNil(o.form)) { init.body = new URLSearchParams(o.form).toString(); headers["content-type"] = "application/x-www-form-urlencoded"; }
    return g.fetch(url, init).then((r) => ({ body: r.body, statusCode: r.status, headers: plainHeaders(r.headers), url: r.url }));
  }

  const isJSONType = (t) => /^application\/(.+\+)?json$/i.test(t) || /\+json$/i.test(t);
  function makeContext(crawler, creq, response, sink) {
    const ctx = {
      id: creq.uniqueKey,
      request: creq,
      crawler,
      log: crawler.log,
      session: undefined,
      proxyInfo: undefined,
      enqueueLinks: (o) => enqueueLinks(response, sink, o),
      pushData: (data, ds) => { try { return pushItems(datasetOf(ds), data, sink); } catch (e) { return Promise.reject(e); } },
      addRequests: (reqs) => {
        try {
          const list = Array.from(reqs || [], toCrawleeRequest);
          for (const c of list) sink.push(toJ(c));
          return Promise.resolve({ processedRequests: list.map((c) => ({ requestId: c.uniqueKey, uniqueKey: c.uniqueKey, wasAlreadyPresent: false, wasAlreadyHandled: false })), unprocessedRequests: [] });
        } catch (e) { return Promise.reject(e); }
      },
      sendRequest: (o) => sendRequest(creq, o),
      getKeyValueStore: (name) => KeyValueStore.open(name),
      parseWithCheerio: () => Promise.resolve(response ? response.$ : undefined),
    };
    if (response) {
      const type = String(response.headers.get("content-type") || "").split(";")[0].trim().toLowerCase();
      ctx.response = { statusCode: response.status, statusMessage: "", headers: plainHeaders(response.headers), url: response.url };
      ctx.contentType = { type, encoding: response.encoding };
      let json;
      Object.defineProperties(ctx, {
        // The page's cheerio-like $ (response.$), made on first use.
        $: { get() { return response.$; }, enumerable: true, configurable: true },
        body: { get() { return response.body; }, enumerable: true, configurable: true },
        json: {
          get() {
            if (json === undefined) { json = null; if (isJSONType(type)) { try { json = JSON.parse(response.body); } catch (e) { json = null; } } }
            return json === null ? undefined : json;
          }, enumerable: true, configurable: true,
        },
      });
    }
    return ctx;
  }

  const toError = (e) => (e instanceof Error ? e : new Error(String(e)));

  // handle runs a request's handler (or, with failure, its failedRequestHandler) and
  // resolves with what it pushed and enqueued; a handler that throws is retried
  // (maxRequestRetries) as in Crawlee, then failed.
  function handle(crawler, jreq, response, failure) {
    const creq = fromJ(jreq, response);
    const sink = [];
    const scope = g.__jscrawlScope();
    if (scope) scope.crawleeOut = sink;
    if (creq.retryCount === 0 && !takeSlot(crawler.maxRequestsPerCrawl)) {
      crawler.log.warningOnce(`Crawler reached the maxRequestsPerCrawl limit of ${crawler.maxRequestsPerCrawl} requests and will shut down soon. Requests that are in progress will be allowed to finish.`);
      return sink;
    }
    const ctx = makeContext(crawler, creq, response, sink);
    const done = (what) => {
      statInc(what);
      const max = crawler.maxRequestsPerCrawl;
      if (max > 0 && stat("requests_finished") + stat("requests_failed") >= max) crawler.stop("finished");
      return sink;
    };
    const fail = (err) => {
      crawler.log.error(`Request failed and reached maximum retries. ${failure ? err.name + ": " + err.message : err.stack || err.message}`,
        { id: creq.id, url: creq.url, method: creq.method, uniqueKey: creq.uniqueKey });
      if (!crawler.failedRequestHandler) return done("requests_failed");
      let r;
      try { r = crawler.failedRequestHandler(ctx, err); } catch (e) { r = Promise.reject(e); }
      return Promise.resolve(r).then(() => done("requests_failed"), (e) => {
        crawler.log.exception(toError(e), "failedRequestHandler threw:");
        return done("requests_failed");
      });
    };
    if (failure) {
      const err = new Error(failure.error && failure.error.message !== undefined ? failure.error.message : "download failed");
      err.name = (failure.error && failure.error.name) || "Error";
      creq.pushErrorMessage(err);
      return fail(err);
    }
    let r;
    try { r = crawler.requestHandler(ctx); } catch (e) { r = Promise.reject(e); }
    return Promise.resolve(r).then(() => done("requests_finished"), bindScope((e) => {
      const err = toError(e);
      creq.pushErrorMessage(err);
      if (creq.noRetry || creq.retryCount >= crawler.maxRequestRetries) return fail(err);
      creq.retryCount++;
      crawler.log.warning(`Reclaiming failed request back to the list or queue. ${err.message}`, { id: creq.id, url: creq.url, retryCount: creq.retryCount });
      statInc("requests_retries");
      const retry = () => { sink.push(toJ(creq)); return sink; };
      if (!crawler.errorHandler) return retry();
      let er;
      try { er = crawler.errorHandler(ctx, err); } catch (x) { er = Promise.reject(x); }
      return Promise.resolve(er).then(retry, (x) => { crawler.log.exception(toError(x), "errorHandler threw:"); return retry(); });
    }));
  }

  const startList = (v) => {
    if (isNil(v)) return [];
    if (typeof v === "string") return v.split(",").map((s) => s.trim()).filter((s) => s !== "");
    return Array.from(v);
  };

  // makeSpider is the spider of a crawler: start requests from startUrls (an -a argument
  // replaces them) and what the script added, one callback and one errback that run the
  // crawler's handlers.
  function makeSpider(crawler, startUrls) {
    const spider = {
      name: crawler.options.name ? String(crawler.options.name) : fileName(),
      customSettings: settingsOf(crawler.options),
      startUrls,
      *start() {
        for (const u of startList(this.startUrls)) yield toJ(toCrawleeRequest(u));
        for (const c of crawler._pending) yield toJ(c);
      },
      parse(response) { return handle(crawler, response.request, response, null); },
      failed(failure) { return handle(crawler, failure.request, failure.response || null, failure); },
    };
    spiderOf = spider;
    return spider;
  }

  // The script form: bundle.go wraps a script with top-level await into an async function
  // whose promise it gives here.
  const script = { promise: null, error: undefined, settled: false };
  Object.defineProperty(g, "__jscrawlScript", {
    value: (promise) => {
      script.promise = promise.then(() => { script.settled = true; }, (e) => { script.settled = true; script.error = e; throw e; });
      return script.promise;
    },
  });

  function adapt(mod) {
    const def = mod.default;
    let crawler = null;
    let startUrls = null;
    if (isRouter(def)) {
      crawler = new CheerioCrawler({ requestHandler: def });
      startUrls = mod.startUrls;
    } else if (def instanceof CheerioCrawler) {
      crawler = def;
      startUrls = def.options.startUrls;
    } else if (def === undefined && ran !== null) {
      crawler = ran;
      startUrls = ran.options.startUrls;
    } else if (def === undefined && script.promise !== null) {
      if (script.error !== undefined) throw script.error;
      if (crawlers.length && !script.settled) {
        throw new Error("the script's top level is waiting on something other than crawler.run() (a timer, a download?): " +
          "jscrawl starts the crawl when the script calls crawler.run(), so call it before awaiting anything else");
      }
      throw new Error(crawlers.length ? "the script made a CheerioCrawler but did not call crawler.run()" :
        "the script has no default export and made no CheerioCrawler: export default a spider class, a router or a crawler");
    } else {
      return null;
    }
    const spider = makeSpider(crawler, startUrls);
    if (primary()) {
      const started = Date.now();
      // run()'s promise resolves when the crawl ends; the engine waits for the code after
      // it (the script's promise) before it closes.
      signals.connect("spider_closed", () => {
        const stats = finalStatistics(started);
        crawler.log.info("Finished! Total " + stats.requestsTotal + " requests: " + stats.requestsFinished + " succeeded, " + stats.requestsFailed + " failed.",
          { terminal: true });
        for (const w of runWaiters.splice(0)) w(stats);
        if (script.promise) return script.promise.catch((e) => { log.exception(toError(e), "the script failed after crawler.run():"); });
        return undefined;
      });
    }
    return spider;
  }

  class Configuration {
    constructor(options) { this.options = Object.assign({}, options); }
    get(k, d) { return k in this.options ? this.options[k] : d; }
    set(k, v) { this.options[k] = v; }
    static getGlobalConfig() { return globalConfig; }
  }
  const globalConfig = new Configuration();
  const purgeDefaultStorages = () => Promise.resolve();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms === undefined ? 0 : ms));

  const exports = { CheerioCrawler, createCheerioRouter, Router, Dataset, KeyValueStore, log, Log, LogLevel, EnqueueStrategy,
    Request, Configuration, purgeDefaultStorages, sleep };
  return { exports, adapt, DATASET_FIELD };
})
