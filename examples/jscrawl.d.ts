// Type definitions for jscrawl's spider API: the "jscrawl" module and the globals a spider
// sees. Written by `jscrawl types DIR`; keep it next to your spider with the tsconfig.json
// that command writes (no DOM lib: fetch, Request and Response are jscrawl's).

declare module "jscrawl" {
  /** A value that survives JSON: what items, meta and cbKwargs hold. */
  export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

  /** A scraped record: a plain object whose key order is kept in the feeds. */
  export type Item = Record<string, any>;

  /** What a callback may produce: Requests to schedule and items (any plain object, so an
   * interface type works too) to export. */
  export type Output = Request | object;

  /** What a callback may return or yield. */
  export type CallbackResult =
    | Output
    | Output[]
    | null
    | undefined
    | void
    | Promise<Output | Output[] | null | undefined | void>
    | Iterable<Output | Output[]>
    | AsyncIterable<Output | Output[]>;

  /** A spider method, or its name: requests record the name so they stay serializable. */
  export type CallbackRef = string | ((...args: any[]) => unknown);

  /**
   * The options after Scrapy's positional callback: `new Request(url, this.parseItem, { meta })`.
   * Options are spelled camelCase: an unknown key (`cb_kwargs`, `dont_filter`, `call_back`)
   * or a key present with the value `undefined` (`callback: this.parseBok`) throws a
   * TypeError naming it.
   */
  export type RequestOptionsAfterCallback = Omit<RequestOptions, "callback">;

  /** Options of `new Request(url, options)` (Scrapy: Request's keyword arguments). */
  export interface RequestOptions {
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: string | null;
    /** The spider method that parses the response; `parse` when absent. */
    callback?: CallbackRef | null;
    /** The spider method that gets a Failure when the request fails. */
    errback?: CallbackRef | null;
    /** Passed to the callback as its second argument. */
    cbKwargs?: Record<string, JSONValue>;
    /**
     * Travels with the request and its response (`response.meta`). `session` pins the
     * request to the session of that name (SESSION_POOL_ENABLED; see the guide).
     */
    meta?: Record<string, JSONValue> & { session?: string };
    /**
     * Cookies to put in the request's cookie jar before it is sent: `{name: value}`, or a
     * list with a domain (default: the request's host) and path (default "/").
     */
    cookies?: Record<string, string> | RequestCookie[] | null;
    /** Higher runs first. */
    priority?: number;
    /** Skip the duplicate filter. */
    dontFilter?: boolean;
    /**
     * Render the page in headless Chromium: `true`, or options. Kept in `meta.browser`;
     * a browser request and a plain one for the same URL are different requests.
     */
    browser?: boolean | BrowserOptions;
  }

  /** Options of a browser request (the request option `browser`). */
  export interface BrowserOptions {
    /** The page event to wait for: "load" (default), "domcontentloaded" or "networkidle". */
    waitUntil?: "load" | "domcontentloaded" | "networkidle";
    /** A CSS selector that must match before the page is read. */
    waitFor?: string;
    /** Seconds the page may take (default BROWSER_TIMEOUT, 30); then a TimeoutError, retried. */
    timeout?: number;
    /** Resource types not loaded (default ["image", "font", "media"]; [] loads everything). */
    blockResources?: string[];
    /** Capture the viewport as a PNG: `response.screenshot`. */
    screenshot?: boolean;
    /** Keep the page open for the callback as `response.page`. */
    includePage?: boolean;
  }

  /** A cookie of RequestOptions.cookies. */
  export interface RequestCookie {
    name: string;
    value: string;
    domain?: string;
    path?: string;
  }

  /** A request to schedule or download. An invalid or relative URL throws a TypeError. */
  export class Request {
    constructor(url: string, options?: RequestOptions);
    /** Scrapy's positional callback: `new Request(url, this.parseItem)` (null: parse). */
    constructor(url: string, callback: CallbackRef | null, options?: RequestOptionsAfterCallback);
    url: string;
    method: string;
    headers: RequestHeaders;
    body: string | null;
    callback: string | null;
    errback: string | null;
    cbKwargs: Record<string, any>;
    meta: Record<string, any>;
    cookies: Record<string, string> | RequestCookie[] | null;
    priority: number;
    dontFilter: boolean;
    /** A copy with some options changed (Scrapy: Request.replace). */
    replace(options?: RequestOptions & { url?: string }): Request;
  }

  /**
   * A request's headers: Headers-like (names case-insensitive) and also a plain object whose
   * own properties are the headers (`request.headers["X-Tag"] = "1"`). Changes are sent.
   */
  export interface RequestHeaders extends Iterable<[string, string]> {
    [name: string]: any;
    get(name: string): string | null;
    has(name: string): boolean;
    set(name: string, value: string): void;
    append(name: string, value: string): void;
    delete(name: string): void;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    forEach(fn: (value: string, name: string, headers: RequestHeaders) => void): void;
  }

  /** A regular expression: a RegExp, or a string. LinkExtractor and sitemapRules compile
   * strings with JS semantics; selectors' re() and reFirst() read both as Python's re. */
  export type Pattern = RegExp | string;

  /** Prefix → namespace URI bindings for XPath. */
  export type Namespaces = Record<string, string>;
  /** XPath variables for `xpath()`: `$name` in the expression (parsel's keyword arguments). */
  export type XPathVariables = Record<string, string | number | boolean>;

  /** What `new Selector(...)` parses: a string of HTML (default) or XML, or JSON for
   * `jmespath()`. As in parsel, a text that is valid JSON makes a JSON selector whatever
   * the type (except "text", a plain string whose JSON `jmespath()` reads); `css()` and
   * `xpath()` on those throw a TypeError. */
  export interface SelectorInit {
    text: string;
    type?: "html" | "xml" | "json" | "text";
  }

  /** `new Selector({ text, type })` parses a string (parsel: `Selector(text=..., type=...)`);
   * `new Selector(response)` is `response.selector`. */
  export const Selector: {
    new (init: SelectorInit | Response): Selector;
    readonly prototype: Selector;
  };

  /** SelectorLists come from `css()` and `xpath()`; this value is for `instanceof`. */
  export const SelectorList: {
    new (): never;
    readonly prototype: SelectorList;
  };

  /** Options of `new Response(body, init)`. */
  export interface ResponseInit {
    status?: number;
    headers?: Record<string, string | string[]>;
    url?: string;
    /** The request it answers; a middleware's substitute keeps the original when absent. */
    request?: Request;
  }

  /** What an errback gets. `response` is null when nothing was received. */
  export interface Failure {
    request: Request;
    error: { name: string; message: string };
    response: Response | null;
  }

  /** Thrown by a pipeline to drop an item (counted in item_dropped_count). */
  export class DropItem extends Error {
    constructor(reason?: string);
  }

  /**
   * Thrown (or rejected) by a spider_idle handler to keep the spider open; spider_idle is
   * sent again 5 seconds later (Scrapy: DontCloseSpider).
   */
  export class DontCloseSpider extends Error {
    constructor(reason?: string);
  }

  /** Options of fetch(). */
  export interface FetchInit {
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: string | null;
    meta?: Record<string, JSONValue>;
    /** Render the page in headless Chromium (see RequestOptions.browser). */
    browser?: boolean | BrowserOptions;
    /** Aborting it cancels the download and rejects with its reason. */
    signal?: AbortSignal;
    /** Skip robots.txt for this download (sets meta.dontObeyRobotstxt). */
    dontObeyRobotstxt?: boolean;
    /**
     * A service request, not a page of the crawl (sets meta.dontCount): straight to the
     * http(s) handler, outside the middlewares, slots and stats; see crawler.http.
     */
    dontCount?: boolean;
  }

  /**
   * `this.crawler.http`: a client for the services a pipeline talks to (a database's HTTP
   * API, a sink). Its requests skip robots.txt, the downloader middlewares (retries,
   * redirects, cookies, cache, proxy pool: only meta.proxy), the download slots and the crawl's stats
   * (counted in http_client/* instead); http and https only, DOWNLOAD_TIMEOUT and
   * DOWNLOAD_MAXSIZE still apply. A 3xx is the response.
   */
  export interface HttpClient {
    /** fetch(input, init) with dontCount: true. */
    fetch(input: string | Request, init?: FetchInit): Promise<Response>;
  }

  /** Downloads inline through the engine's downloader (not the scheduler). */
  export function fetch(input: string | Request, init?: FetchInit): Promise<Response>;

  /** Resolves after ms milliseconds. */
  export function sleep(ms: number): Promise<void>;

  /** The signals a handler can connect to (Scrapy's names). */
  export type SignalName =
    | "engine_started"
    | "spider_opened"
    | "spider_idle"
    | "spider_closed"
    | "item_scraped"
    | "item_dropped"
    | "item_error"
    | "request_scheduled"
    | "request_dropped"
    | "response_received"
    | "spider_error";

  /** The one argument of a signal handler; fields are set as the signal has them. */
  export interface SignalEvent {
    spider: any;
    item?: Item;
    response?: Response;
    request?: Request;
    reason?: string;
    error?: { name: string; message: string };
  }

  /** What each signal's event holds, besides `spider`. */
  export interface SignalEvents {
    engine_started: {};
    spider_opened: {};
    spider_idle: {};
    spider_closed: { reason: string };
    item_scraped: { item: Item; response?: Response };
    item_dropped: { item: Item; response?: Response; error: { name: string; message: string } };
    item_error: { item: Item; response?: Response; error: { name: string; message: string } };
    request_scheduled: { request: Request };
    request_dropped: { request: Request };
    response_received: { response: Response; request: Request };
    spider_error: { error: { name: string; message: string }; response?: Response };
  }

  /** What a callback sees of the session that served its response (`response.session`). */
  export interface ResponseSession {
    name: string;
    /** Downloads the session served, this one included. */
    usageCount: number;
    /** +1 per failed download, -0.5 per success; the session retires at SESSION_MAX_ERRORS. */
    errorScore: number;
    retired: boolean;
    /** The response is a block (a blocked status or isBlocked) of a pinned session (meta.session): it was not rotated. */
    blocked: boolean;
  }

  /** A session of the pool, as `crawler.sessions.list()` shows it. */
  export interface SessionInfo {
    name: string;
    usageCount: number;
    errorScore: number;
    createdAt: Date;
    /** The proxy of its last download, credentials masked ("" for none). */
    proxy: string;
    /** Its HTTP_IMPERSONATE profile ("" for none). */
    profile: string;
    /** Created for meta.session. */
    pinned: boolean;
    retired: boolean;
  }

  /** `this.crawler`: the running crawl as a spider sees it. */
  export interface Crawler {
    settings: Settings;
    stats: Stats;
    signals: Signals;
    engine: CrawlerEngine;
    /** Downloads inline, like fetch(), from a Request. */
    download(request: Request, options?: { signal?: AbortSignal }): Promise<Response>;
    /** A client for services, outside the crawl's robots.txt, slots and stats. */
    http: HttpClient;
    /** The session pool's sessions (SESSION_POOL_ENABLED). */
    sessions: Sessions;
  }

  /**
   * A base class for spiders written in TypeScript: it types `this.crawler` and
   * `this.logger`, which the engine sets. Extending it is optional.
   */
  export abstract class Spider {
    abstract name: string;
    allowedDomains?: string[];
    startUrls?: string[];
    /** Settings for this spider; known keys are type-checked (see SettingsMap). */
    customSettings?: SettingsMap & Record<string, unknown>;
    crawler: Crawler;
    logger: Logger;
    /**
     * The job's state (Scrapy's spider.state): a plain JSON object saved with each commit of a
     * job (`--jobdir`) and restored before setup() and opened() run; {} in a new job (or the
     * value of a class field `state = {...}`). Functions, Symbols, BigInts, Maps, Sets and
     * cycles cannot be saved. With JS_VMS > 1 the first VM's is saved (see the guide).
     */
    state: Record<string, any>;
    /** true in a run that resumes a job (`--jobdir`), false in a new job or without one. */
    readonly resumed: boolean;
    /** Called after the -a arguments are set and before spider_opened: connect signals here. */
    setup?(crawler: Crawler): void | Promise<void>;
    start?(): CallbackResult;
    parse?(response: Response, cbKwargs: Record<string, any>): CallbackResult;
    /**
     * With SESSION_POOL_ENABLED, called for every response whose status is not in
     * SESSION_BLOCKED_STATUS_CODES: truthy means the site blocked the session (a 200 with a
     * challenge page), which then retires and the request runs on another one.
     */
    isBlocked?(response: Response): unknown | Promise<unknown>;
    opened?(): void | Promise<void>;
    closed?(reason: string): void | Promise<void>;
  }

  /**
   * A downloader middleware (`export const downloaderMiddlewares = [...]`): an object or a class
   * constructed with no arguments. Hooks may be async. processRequest runs in array order,
   * processResponse and processException in reverse (Scrapy's order).
   */
  export interface DownloaderMiddleware {
    /** Its place among the built-ins (RetryMiddleware is 550); 543 when absent. */
    order?: number;
    /** undefined: go on (changes to the request are sent); a Response: skip the download;
     * a Request: schedule it instead. */
    processRequest?(request: Request, spider: any): Request | Response | void | null | Promise<Request | Response | void | null>;
    /** Return the response (or another), or a Request to schedule instead. */
    processResponse?(request: Request, response: Response, spider: any): Request | Response | void | null | Promise<Request | Response | void | null>;
    /** undefined: the error goes on; a Response: recovered; a Request: schedule it instead. */
    processException?(request: Request, error: Error, spider: any): Request | Response | void | null | Promise<Request | Response | void | null>;
  }

  /**
   * A spider middleware (`export const spiderMiddlewares = [...]`): an object or a class
   * constructed with no arguments. processStart runs in array order, processSpiderOutput in
   * reverse (Scrapy's order); both get an async iterable and return one, usually an
   * `async *` method that iterates it with `for await`.
   */
  export interface SpiderMiddleware {
    /** Its place among the built-in output filters (OffsiteMiddleware 500, RefererMiddleware
     * 700, UrlLengthMiddleware 800, DepthMiddleware 900); 543 when absent. */
    order?: number;
    processStart?(start: AsyncIterable<Output>, spider: any): AsyncIterable<Output | Output[]>;
    processSpiderOutput?(response: Response | null, result: AsyncIterable<Output>, spider: any): AsyncIterable<Output | Output[]>;
    /** An error from the callback or an earlier stage: return an iterable of outputs to
     * handle it (they pass the later stages only), or nothing to let it go on. */
    processSpiderException?(response: Response | null, error: any, spider: any): Iterable<Output> | AsyncIterable<Output> | Promise<Output[]> | void | null;
  }

  /** An item pipeline: an object or a class constructed with no arguments. */
  export interface Pipeline {
    open?(spider: any): void | Promise<void>;
    /** Return the item (or a new one), undefined to keep it, null or throw DropItem to drop it. */
    processItem?(item: Item, spider: any): Item | null | undefined | void | Promise<Item | null | undefined | void>;
    close?(spider: any): void | Promise<void>;
  }
}

// Globals every spider sees (the same objects as the module's exports).
declare const Request: typeof import("jscrawl").Request;
type Request = import("jscrawl").Request;
declare const DropItem: typeof import("jscrawl").DropItem;
declare function fetch(input: string | import("jscrawl").Request, init?: import("jscrawl").FetchInit): Promise<import("jscrawl").Response>;
declare function sleep(ms: number): Promise<void>;

declare function setTimeout(fn: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function clearTimeout(id: number | undefined): void;
declare function setInterval(fn: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function clearInterval(id: number | undefined): void;
declare function setImmediate(fn: (...args: any[]) => void, ...args: any[]): number;
declare function clearImmediate(id: number | undefined): void;
declare function queueMicrotask(fn: () => void): void;

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: any;
  onabort: ((event: { type: "abort"; target: AbortSignal }) => void) | null;
  addEventListener(type: "abort", fn: (event: { type: "abort"; target: AbortSignal }) => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", fn: (event: { type: "abort"; target: AbortSignal }) => void): void;
  throwIfAborted(): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  abort(reason?: any): AbortSignal;
  timeout(ms: number): AbortSignal;
  any(signals: Iterable<AbortSignal>): AbortSignal;
};
declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: any): void;
}

declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
};

/** The WHATWG URL Standard's URL, as browsers and Node have it. */
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string | URL, base?: string | URL): boolean;
  static parse(url: string | URL, base?: string | URL): URL | null;
  href: string;
  readonly origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
  /** Live: changing it changes search, and the other way round. */
  readonly searchParams: URLSearchParams;
  toString(): string;
  toJSON(): string;
}
declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams);
  readonly size: number;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  sort(): void;
  forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: any): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}

// Following links and the base spiders (jsapi/spiders.js).
declare module "jscrawl" {

  /** A link found by a LinkExtractor (Scrapy: scrapy.link.Link). */
  export class Link {
    constructor(url: string, text?: string, fragment?: string, nofollow?: boolean);
    /** Absolute; with its #fragment, as Scrapy's, unless keepFragments: false or canonicalize. */
    url: string;
    /** The element's text, trimmed, white space collapsed. */
    text: string;
    /** "" from a LinkExtractor, as Scrapy's (the fragment is in url). */
    fragment: string;
    /** The element's rel lists nofollow. */
    nofollow: boolean;
  }

  /** Options of `new LinkExtractor(...)` (Scrapy's LinkExtractor arguments). */
  export interface LinkExtractorOptions {
    /** Keep only URLs matching one of these (matched against the absolute URL). */
    allow?: Pattern | Pattern[];
    /** Drop URLs matching one of these. */
    deny?: Pattern | Pattern[];
    /** Keep only these hosts and their subdomains. */
    allowDomains?: string | string[];
    denyDomains?: string | string[];
    /** Look for links only inside the elements these CSS selectors match. */
    restrictCss?: string | string[];
    /** Look for links only inside the elements these XPath expressions match (needs XPath support). */
    restrictXpaths?: string | string[];
    /** Keep only links whose text matches one of these. */
    restrictText?: Pattern | Pattern[];
    /** Elements to look at (default ["a", "area"]; "*": all; []: none). */
    tags?: string | string[];
    /** Attributes holding the URL (default ["href"]; "*": all; []: none). */
    attrs?: string | string[];
    /** Elements never looked at, even with tags "*" (Scrapy 2.17: deny_tags). */
    denyTags?: string | string[];
    /** Attributes never looked at, even with attrs "*" (Scrapy 2.17: deny_attrs). */
    denyAttrs?: string | string[];
    /** Canonicalize URLs (sorted query, no fragment...); default false. */
    canonicalize?: boolean;
    /** Drop duplicate URLs; default true. */
    unique?: boolean;
    /** Rewrites each value (already absolute); null or false drops it. A function or a spider method name. */
    processValue?: ((value: string) => string | null | undefined | false) | string;
    /** Keep #fragments in URLs; default true as in Scrapy (false with canonicalize). */
    keepFragments?: boolean;
    /** Extensions (without dot) to skip; default Scrapy's IGNORED_EXTENSIONS (images, archives, pdf...). */
    denyExtensions?: string[];
  }

  /** Extracts links from responses (Scrapy: LinkExtractor); the work runs in Go. */
  export class LinkExtractor {
    constructor(options?: LinkExtractorOptions);
    extractLinks(response: Response): Link[];
    /** Whether a URL passes allow, deny, allowDomains and denyDomains. */
    matches(url: string): boolean;
  }

  /** Options of `response.followAll({ css, xpath, ...requestOptions })`. */
  export interface FollowAllOptions extends RequestOptions {
    /** The links to follow: elements (their href, else src), or ::attr() values. Default: every a[href]. */
    css?: string;
    /** As css, with XPath (needs XPath support). */
    xpath?: string;
  }

  /** Which links enqueueLinks keeps, by where they point (Crawlee's EnqueueStrategy). */
  export type EnqueueStrategy = "same-hostname" | "same-domain" | "same-origin" | "all";

  /** Options of `response.enqueueLinks(...)` (Crawlee's enqueueLinks). */
  export interface EnqueueLinksOptions {
    /** Use these URLs (relative is fine) instead of the page's links. */
    urls?: string[];
    /** The link elements (default "a"); their href is followed. */
    selector?: string;
    /** Crawlee 4: keep URLs matching one of these patterns (a string is a glob); combined
     * with strategy (both must hold). Globs match as minimatch's with { nocase: true }, as in
     * Crawlee: `*` within a path segment, `**` across, `?`, `[abc]`, `{a,b}`, `{1..3}`,
     * extglobs `?(a|b)` `*(…)` `+(…)` `@(…)` `!(…)`, `\` escapes. An empty list is refused. */
    include?: (string | RegExp | { glob: string } | { regexp: RegExp })[] | string | RegExp;
    /** Crawlee 3's names, kept: globs and regexps add to include. */
    globs?: (string | { glob: string })[] | string;
    regexps?: (RegExp | { regexp: RegExp })[] | RegExp;
    /** Drop URLs matching one of these globs or regexps. */
    exclude?: (string | RegExp | { glob: string } | { regexp: RegExp })[] | string | RegExp;
    /** Default "same-hostname". */
    strategy?: EnqueueStrategy;
    /** Goes to request.meta.label. */
    label?: string;
    /** Merged into request.meta. */
    userData?: Record<string, JSONValue>;
    callback?: CallbackRef | null;
    errback?: CallbackRef | null;
    cbKwargs?: Record<string, JSONValue>;
    meta?: Record<string, JSONValue>;
    priority?: number;
    headers?: Record<string, string | string[]>;
    dontFilter?: boolean;
    /** Changes each Request: return it (or a replacement, or options to change) or a falsy value to skip it. */
    transformRequestFunction?: (request: Request) => Request | RequestOptions | null | undefined | false;
    /** At most this many requests. */
    limit?: number;
    /** Resolve relative links against this instead of the page's URL (or its <base href>). */
    baseUrl?: string;
  }

  interface Response {
    /** Requests for the links a CSS or XPath selection points to, with request options. */
    followAll(options: FollowAllOptions): Request[];
    /** `followAll({ css }, this.parseItem)`, as Scrapy's `follow_all(css=..., callback=...)`. */
    followAll(options: Omit<FollowAllOptions, "callback">, callback: CallbackRef | null, more?: RequestOptionsAfterCallback): Request[];
    /** Crawlee-style: Requests for the page's links, filtered by strategy, include
     * (or globs and regexps) and exclude (fragments dropped, duplicates removed). Yield them. */
    enqueueLinks(options?: EnqueueLinksOptions): Request[];
  }

  /** A CrawlSpider rule (Scrapy: Rule). `new Rule({...})` or a plain object. */
  export interface RuleOptions {
    /** The links this rule extracts: a LinkExtractor or its options (default: all links). */
    link?: LinkExtractor | LinkExtractorOptions;
    /** Parses the pages of the links (a spider method or its name); it gets (response, cbKwargs). */
    callback?: CallbackRef | null;
    cbKwargs?: Record<string, JSONValue>;
    /** Follow the links of those pages with the rules too; default: true without a callback, false with one. */
    follow?: boolean;
    /** Filters or changes the links (a function or a spider method name). */
    processLinks?: ((links: Link[]) => Link[]) | string;
    /** Changes or drops (null) each Request (a function or a spider method name). */
    processRequest?: ((request: Request, response: Response) => Request | null | undefined) | string;
    /** Gets the Failure of a request this rule made. */
    errback?: CallbackRef | null;
  }
  export class Rule {
    constructor(options: RuleOptions);
    /** Scrapy's positional form: `new Rule(new LinkExtractor({ allow }), "parseItem", { follow: true })`. */
    constructor(link: LinkExtractor, callback?: CallbackRef | null, options?: Omit<RuleOptions, "link" | "callback">);
  }
  export interface Rule extends RuleOptions {}

  /**
   * Follows links by rules (Scrapy: CrawlSpider). Each page's links go to the first rule that
   * extracts them. Fields (rules, startUrls) are read when the crawl starts.
   */
  export abstract class CrawlSpider extends Spider {
    rules?: readonly (RuleOptions | Rule)[];
    /** Parses the responses of startUrls (and of requests without a callback); none by default. */
    parseStartUrl(response: Response, cbKwargs: Record<string, any>): CallbackResult;
    /** Changes what a rule's callback (or parseStartUrl) produced (Scrapy: process_results). */
    processResults(response: Response, results: Output[]): CallbackResult;
  }

  /** One entry of a sitemap (a page) or of a sitemap index (a sitemap); absent fields are undefined. */
  export interface SitemapEntry {
    loc: string;
    lastmod?: string;
    changefreq?: string;
    priority?: string;
    /** hrefs of <xhtml:link rel="alternate"> children. */
    alternate?: string[];
  }

  /**
   * Crawls the pages sitemaps list (Scrapy: SitemapSpider): sitemapUrls may be sitemaps,
   * sitemap indexes (read recursively) or robots.txt URLs (their Sitemap: lines are always
   * followed); gzipped sitemaps are read too. Parsing streams in Go. Fields are read when the
   * crawl starts. A broken sitemap yields what parsed and counts sitemap/broken.
   */
  export abstract class SitemapSpider extends Spider {
    sitemapUrls?: string[];
    /** [regex, callback] pairs: the first that matches a URL gets it (default [["", "parse"]]). */
    sitemapRules?: readonly (readonly [Pattern, CallbackRef])[];
    /** Which sitemaps of an index to read (regexes; default all). */
    sitemapFollow?: readonly Pattern[];
    /** Follow <xhtml:link rel="alternate"> URLs too (default false). */
    sitemapAlternateLinks?: boolean;
    /** Filters the entries of each sitemap and sitemap index (all kept by default). */
    sitemapFilter(entries: SitemapEntry[]): Iterable<SitemapEntry> | Promise<Iterable<SitemapEntry>>;
  }

  /**
   * Calls parseNode for each itertag element of an XML feed (RSS, Atom...) (Scrapy:
   * XMLFeedSpider). node is a Selector on the element: names are lower case and keep their
   * prefix (`node.css("dc\\:creator::text")`).
   */
  export abstract class XMLFeedSpider extends Spider {
    /** "iternodes" (default), "xml" or "html": all stream the same way. */
    iterator?: "iternodes" | "xml" | "html";
    /** The element to iterate (default "item"); "prefix:name" uses namespaces. */
    itertag?: string;
    /** [[prefix, uri], ...] */
    namespaces?: readonly (readonly [string, string])[];
    abstract parseNode(response: Response, node: Selector): CallbackResult;
    /** Changes the response before parsing (Scrapy: adapt_response). */
    adaptResponse(response: Response): Response;
    /** Changes what parseNode produced for one node. */
    processResults(response: Response, results: Output[]): CallbackResult;
  }

  /** Calls parseRow for each row of a CSV document (Scrapy: CSVFeedSpider). */
  export abstract class CSVFeedSpider extends Spider {
    /** Default ",". */
    delimiter?: string;
    /** Default '"'. */
    quotechar?: string;
    /** The column names; default: the first row. Rows of another length are skipped (logged). */
    headers?: string[];
    abstract parseRow(response: Response, row: Record<string, string>): CallbackResult;
    adaptResponse(response: Response): Response;
    processResults(response: Response, results: Output[]): CallbackResult;
  }

  /**
   * One case of a spider module's `export const tests: SpiderTest[]`, which `jscrawl test`
   * runs: it replays `__snapshots__/<spider name>/<name>.warc.gz` and compares the items
   * with `<name>.items.jsonl` (`jscrawl test --record` writes both).
   */
  export interface SpiderTest {
    /** Names the case and its snapshot files: letters, digits, ".", "_" and "-". */
    name: string;
    /** Spider arguments, as -a NAME=VALUE (over the command line's). */
    args?: Record<string, string | number | boolean>;
    /** Settings of the case (over customSettings and -s). */
    settings?: SettingsMap & Record<string, unknown>;
    /** The item field that matches an item with its snapshot (default "url"; without it, items match by position). */
    testKey?: string;
  }
}

// Code generated by jsapi/internal/dtsgen from jsapi's Go source; DO NOT EDIT.
// Regenerate with: go generate ./jsapi

declare module "jscrawl" {
  /** The crawl's settings (defaults < customSettings < -s). */
  export interface Settings {
    /** Returns the setting as it is, or `def` when it is not set. */
    get<K extends keyof SettingsMap>(key: K, def?: SettingsMap[K]): SettingsMap[K];
    get(key: string, def?: unknown): any;
    /** Returns the setting as an integer, or `def` when it is not set. */
    getInt(key: string, def?: number): number;
    /** Returns the setting as a number, or `def` when it is not set. */
    getFloat(key: string, def?: number): number;
    /** Returns the setting as a boolean, or `def` when it is not set. */
    getBool(key: string, def?: boolean): boolean;
    /** Returns the setting as an array, or `def` when it is not set. */
    getList(key: string, def?: unknown[]): unknown[];
    /** Returns the setting as an object, or `def` when it is not set. */
    getDict(key: string, def?: Record<string, unknown>): Record<string, unknown>;
  }

  /** The crawl's stats, dumped at the end with Scrapy's key names. */
  export interface Stats {
    /** Returns a stat's value, or `def` (undefined) when it has none. */
    get(key: string, def?: unknown): any;
    /** Adds `n` (1) to a stat. */
    inc(key: string, n?: number): void;
    /** Sets a stat to a JSON-like value. */
    set(key: string, value: JSONValue): void;
    /** Raises a stat to `value` (Scrapy: max_value). */
    max(key: string, value: number): void;
    /** Lowers a stat to `value` (Scrapy: min_value). */
    min(key: string, value: number): void;
    /** Returns every stat, as an object. */
    getStats(): Record<string, any>;
  }

  /** `this.crawler.engine`: the running crawl's engine (Scrapy: ExecutionEngine). */
  export interface CrawlerEngine {
    /**
     * Schedules a request from anywhere, as a callback's output would be (Scrapy:
     * engine.crawl).
     */
    crawl(request: Request): void;
    /** Ends the crawl gracefully; the reason ("cancelled") becomes finish_reason. */
    closeSpider(reason?: string): void;
  }

  /** Response headers; names are case-insensitive. */
  export interface Headers extends Iterable<[string, string]> {
    /** Returns the values of the header name joined with ", ", or null (WHATWG Headers). */
    get(name: string): string | null;
    /** Reports whether the header name is present. */
    has(name: string): boolean;
    /** Replaces the values of the header name with value. */
    set(name: string, value: string): void;
    /** Adds value to the values of the header name. */
    append(name: string, value: string): void;
    /** Removes the header name. */
    delete(name: string): void;
    /** Returns every value of the header name, in order. */
    getAll(name: string): string[];
    /** Iterates over [name, value] pairs, names lowercased and sorted. */
    entries(): IterableIterator<[string, string]>;
    /** Iterates over the names, lowercased and sorted. */
    keys(): IterableIterator<string>;
    /** Calls fn(value, name, headers) for each header, as entries() lists them. */
    forEach(fn: (value: string, name: string, headers: Headers) => void): void;
    /** Returns the headers as an object of lowercased names to values (JSON.stringify's). */
    toJSON(): Record<string, string>;
  }

  /** A downloaded page (Scrapy: Response). An HTTP error status is a Response too. */
  export class Response {
    /** Builds a response, WHATWG-style (a downloader middleware may return one). */
    constructor(body?: string | null, init?: ResponseInit);
    /** A copy with some parts changed (Scrapy: Response.replace). */
    replace(changes: { body?: string; status?: number; headers?: Record<string, string | string[]>; url?: string; request?: Request }): Response;
    /** The URL (an own property: JSON.stringify and spread show it). */
    readonly url: string;
    /** The HTTP status (an own property). */
    readonly status: number;
    /** The body decoded to text, as a promise. */
    text(): Promise<string>;
    /** The body parsed as JSON, as a promise. */
    json<T = any>(): Promise<T>;
    /**
     * Every `<script type="application/ld+json">` block parsed, arrays spread and `@graph`
     * nodes flattened into the list (each with the block's `@context` unless it has one).
     * Invalid blocks are skipped and counted in the `jsonld/invalid` stat.
     */
    jsonLd(): Record<string, any>[];
    /** Requests for links, skipping those `follow` skips, invalid URLs and elements without href. */
    followAll(targets: Iterable<string | Selector | Request | null | undefined> | null | undefined, options?: RequestOptions): Request[];
    /** Scrapy's positional callback: `response.followAll(links, this.parseAuthor)` (null: parse). */
    followAll(targets: Iterable<string | Selector | Request | null | undefined> | null | undefined, callback: CallbackRef | null, options?: RequestOptionsAfterCallback): Request[];
    /** The request the response answers, made on first use. */
    readonly request: Request;
    /** The request's meta. */
    readonly meta: Record<string, any>;
    /** The response headers, a live view. */
    readonly headers: Headers;
    /**
     * The body decoded to text (charset from a BOM, the header, `<meta charset>`, else
     * sniffed).
     */
    readonly body: string;
    /**
     * The encoding `body` was decoded with, a WHATWG name such as "utf-8" or
     * "shift_jis" (Scrapy: response.encoding).
     */
    readonly encoding: string;
    /**
     * The HTTP version, "HTTP/1.1" or "HTTP/2.0"; "" for file: and data: URLs
     * (Scrapy: response.protocol).
     */
    readonly protocol: string;
    /**
     * Says how the response was obtained: ["cached"] when the HTTP cache served it
     * (Scrapy: response.flags).
     */
    readonly flags: string[];
    /**
     * The session of the session pool that served the response; null without
     * SESSION_POOL_ENABLED.
     */
    readonly session: ResponseSession | null;
    /** The PNG of a browser request with `screenshot: true`; null otherwise. */
    readonly screenshot: Uint8Array | null;
    /** The open page of a browser request with `includePage: true`; undefined otherwise. */
    readonly page: Page | undefined;
    /**
     * The root Selector of the document (parsel: response.selector); the
     * namespaces registered on it serve `xpath()`.
     */
    readonly selector: Selector;
    /** Selects with CSS from the root (see `Selector.css`). */
    css(query: string): SelectorList;
    /**
     * Selects with XPath 1.0 from the root element (see `Selector.xpath`), with the
     * namespaces registered on `response.selector`. An XML response (an XML Content-Type, or
     * none and an XML declaration) is parsed as XML: its namespaces need a prefix
     * (`response.selector.registerNamespace("s", uri)`) or `removeNamespaces()`.
     */
    xpath(expr: string, namespaces?: Namespaces | null, variables?: XPathVariables): SelectorList;
    /**
     * Runs a JMESPath expression on the body parsed as JSON (parsed once per
     * response) and returns a plain value (`null` when nothing matches; object keys sorted).
     * Throws a TypeError when the body is not JSON or the expression is invalid.
     */
    jmespath(expr: string): any;
    /** The URL relative links resolve against: the URL, or the page's `<base href>`. */
    readonly baseUrl: string;
    /**
     * Resolves a URL against baseUrl (the page's `<base href>` when it has one), as
     * Scrapy.
     */
    urljoin(href: string): string;
    /**
     * Makes a Request for a link: a URL (relative is fine), an `<a>` Selector or a
     * Request. A link that cannot be downloaded (an empty or `#...` href, `mailto:`, `tel:`,
     * `javascript:`, or a scheme DOWNLOAD_SCHEMES does not enable, such as `data:`) gives
     * `undefined` (counted in `follow/skipped_scheme`); yielding `undefined` yields nothing.
     */
    follow(target: Request, options?: RequestOptions): Request;
    follow(target: Request, callback: CallbackRef | null, options?: RequestOptionsAfterCallback): Request;
    follow(target: string | Selector | Request, options?: RequestOptions): Request | undefined;
    follow(target: string | Selector | Request, callback: CallbackRef | null, options?: RequestOptionsAfterCallback): Request | undefined;
    /** Returns "<status url>". */
    toString(): string;
  }

  /** `this.logger`: writes to the crawl log tagged with the spider's name. */
  export interface Logger {
    /** Logs at the warn level (Python's logging name of `warn`). */
    warning(...args: unknown[]): void;
    /** The spider's name. */
    readonly name: string;
    /** Logs at the debug level (shown with LOG_LEVEL=DEBUG). */
    debug(...args: unknown[]): void;
    /** Logs at the info level. */
    info(...args: unknown[]): void;
    /** Logs at the warn level. */
    warn(...args: unknown[]): void;
    /** Logs at the error level. */
    error(...args: unknown[]): void;
  }

  /**
   * A browser page kept open for the callback (the browser option `includePage`). It is
   * closed when the callback ends, also when it fails. Times are in milliseconds.
   */
  export interface Page {
    /** The page's current URL. */
    url(): string;
    /** Clicks the first element the CSS selector matches. */
    click(selector: string): Promise<void>;
    /** Types text into the first field the selector matches, replacing its value. */
    fill(selector: string, text: string): Promise<void>;
    /** Waits until the selector matches (default timeout: the request's). */
    waitForSelector(selector: string, options?: { timeout?: number }): Promise<void>;
    /**
     * Scrolls to the bottom up to `times` times (10), waiting `delay` ms (500) between;
     * stops when the page stops growing.
     */
    scroll(options?: { times?: number; delay?: number }): Promise<void>;
    /**
     * Runs a function in the page (its source text) with JSON arguments; resolves to
     * its JSON result.
     */
    evaluate<T = any>(fn: string | ((...args: any[]) => any), ...args: JSONValue[]): Promise<T>;
    /** Resolves to the current DOM as HTML. */
    content(): Promise<string>;
    /** Resolves to a PNG of the viewport. */
    screenshot(): Promise<Uint8Array>;
    /** Loads another URL in the page, waiting as the request's `waitUntil` says. */
    goto(url: string): Promise<void>;
    /** Resolves to a fresh Response over the current DOM (without the page). */
    response(): Promise<Response>;
    /** Returns "<Page url>". */
    toString(): string;
  }

  /**
   * One match of a CSS or XPath query (parsel: Selector): an element, a text node, an
   * attribute value, or a string, number or boolean computed by an XPath expression.
   */
  export interface Selector {
    /** `get()` (parsel's old name). */
    extract(): string;
    /** `get()` (for spiders written against parsel's SelectorList). */
    extractFirst(): string;
    /** `get()`, parsel's spelling. */
    extract_first(): string;
    /** `reFirst()`, parsel's spelling. */
    re_first(pattern: Pattern): string | null;
    re_first<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
    /** Selects inside this element (parsel: `::text`, `*::text`, `::attr(name)`). */
    css(query: string): SelectorList;
    /**
     * Evaluates an XPath 1.0 expression from this element (relative: `./a/@href`;
     * absolute: `//a`). Text nodes and attributes come back as selectors whose `get()` is their
     * string; numbers and booleans as parsel writes them (`"2.0"`, `"1"`/`"0"`).
     * `namespaces` adds prefixes for this call only; `variables` binds `$name`
     * (`sel.xpath("//a[@id=$id]", null, { id: "top" })`, parsel's `xpath(q, id="top")`).
     * Throws a TypeError (`XPath error: ... in <expr>`) when the expression is invalid or
     * uses a variable not given.
     */
    xpath(expr: string, namespaces?: Namespaces | null, variables?: XPathVariables): SelectorList;
    /**
     * Binds `prefix` for this selector's `xpath()` and the selectors it
     * produces from now on.
     */
    registerNamespace(prefix: string, uri: string): void;
    /**
     * Drops every namespace of the whole XML document, so `//loc` matches a
     * sitemap's `<loc>`.
     */
    removeNamespaces(): void;
    /**
     * Runs a JMESPath expression on the JSON this selector holds (a JSON text given
     * to `new Selector`, a `<script>` block's text or a text/attribute value) and returns the
     * JSON value; `null` when it holds no JSON or nothing matches.
     */
    jmespath(expr: string): any;
    /**
     * The element's outer HTML (or XML) as lxml writes it (`<img src="a.jpg">`), or
     * the text, attribute value or computed string.
     */
    get(): string;
    /** `[get()]` (parsel: a Selector's getall()). */
    getall(): string[];
    /**
     * Returns the matches of `pattern` in `get()` with Python's `re` semantics, as parsel:
     * `\w`, `\d`, `\s` and `\b` are Unicode-aware, `(?P<name>...)` names a group. Each whole
     * match, or the values of its groups when it has some (an unmatched group gives `""`), or
     * only the first match's group named `extract` when there is one. A RegExp's source is
     * read the same way; flags other than i, m and s are ignored. Character references other
     * than `&lt;` and `&amp;` are replaced unless `replaceEntities` is false.
     */
    re(pattern: Pattern, replaceEntities?: boolean): string[];
    /** Returns the first string `re()` gives, or `def` (default `null`). */
    reFirst(pattern: Pattern): string | null;
    reFirst<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
    /**
     * The element's attributes (empty for text and attributes; XML namespace
     * declarations left out). A getter.
     */
    readonly attrib: Record<string, string>;
  }

  /** The matches of a CSS or XPath query, in document order. */
  export interface SelectorList extends Omit<ReadonlyArray<Selector>, "slice" | "filter" | "map"> {
    /** `getall()` (parsel's old name). */
    extract(): string[];
    /** `get()` (parsel's old name, as Scrapy spiders write it). */
    extractFirst(): string | null;
    extractFirst<D>(def: D): string | D;
    /** `get()`, parsel's spelling. */
    extract_first(): string | null;
    extract_first<D>(def: D): string | D;
    /** `reFirst()`, parsel's spelling. */
    re_first(pattern: Pattern): string | null;
    re_first<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
    /** A SelectorList of the selectors `fn` keeps. */
    filter(fn: (s: Selector, i: number, list: SelectorList) => unknown): SelectorList;
    /** A SelectorList when `fn` gives Selectors, else an array. */
    map(fn: (s: Selector, i: number, list: SelectorList) => Selector): SelectorList;
    map<U>(fn: (s: Selector, i: number, list: SelectorList) => U): U[];
    /** Returns the first match as a string, or `def` (default `null`) when there is none. */
    get(): string | null;
    get<D>(def: D): string | D;
    /** Returns every selector's `get()`, in order. */
    getall(): string[];
    /** `re()` of each selector, concatenated. */
    re(pattern: Pattern, replaceEntities?: boolean): string[];
    /** Returns the first string `re()` gives over the list, or `def` (default `null`). */
    reFirst(pattern: Pattern): string | null;
    reFirst<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
    /** Returns a SelectorList of part of this one (parsel: `sel[1:]`). */
    slice(start?: number, end?: number): SelectorList;
    /** `css()` of each element, concatenated. */
    css(query: string): SelectorList;
    /** `xpath()` of each element, concatenated. */
    xpath(expr: string, namespaces?: Namespaces | null, variables?: XPathVariables): SelectorList;
    /** The first element's attributes, `{}` for an empty list. A getter. */
    readonly attrib: Record<string, string>;
  }

  /** `this.crawler.sessions`: the session pool (SESSION_POOL_ENABLED; Crawlee: SessionPool). */
  export interface Sessions {
    /** Returns every session, retired ones included, oldest first ([] without the pool). */
    list(): SessionInfo[];
    /**
     * Retires the named session, its cookies and proxy with it: true if it was usable.
     * A name never used is recorded as retired, so a request pinned to it fails.
     */
    retire(name: string): boolean;
  }

  /**
   * `this.crawler.signals`: handlers of the crawl's signals (Scrapy: crawler.signals), each
   * called with one event object and `this` the spider.
   */
  export interface Signals {
    /**
     * Runs handler each time the signal is sent; an async handler's promise is awaited
     * for engine_started, spider_opened, spider_closed and item_* only (Scrapy's deferrable
     * signals). An unknown signal name is a TypeError naming the known ones.
     */
    connect<N extends SignalName>(name: N, handler: (event: SignalEvents[N] & { spider: any }) => void | Promise<void>): void;
    /** Removes handler from the signal's handlers (the first time it was connected). */
    disconnect<N extends SignalName>(name: N, handler: (event: SignalEvents[N] & { spider: any }) => void | Promise<void>): void;
  }
}

// Generated from jscrawl's settings table.
declare module "jscrawl" {
  /** The settings jscrawl knows, with their types (defaults < customSettings < -s). */
  export interface SettingsMap {
    /** log every AutoThrottle delay change (boolean). */
    AUTOTHROTTLE_DEBUG?: boolean;
    /** adapt each slot's delay to the server's latency (boolean). */
    AUTOTHROTTLE_ENABLED?: boolean;
    /** highest delay AutoThrottle sets (number of seconds). */
    AUTOTHROTTLE_MAX_DELAY?: number;
    /** AutoThrottle's first delay per slot (number of seconds). */
    AUTOTHROTTLE_START_DELAY?: number;
    /** downloads AutoThrottle aims to have in flight per slot (number). */
    AUTOTHROTTLE_TARGET_CONCURRENCY?: number;
    /** access key of s3:// feeds (default: the AWS environment variables and config files) (string). Operator only: a spider's customSettings may not set it (-s AWS_ACCESS_KEY_ID=VALUE). */
    AWS_ACCESS_KEY_ID?: string;
    /** endpoint of s3:// feeds, for an S3-compatible server (an IP address gets path-style addressing) (string). Operator only: a spider's customSettings may not set it (-s AWS_ENDPOINT_URL=VALUE). */
    AWS_ENDPOINT_URL?: string;
    /** region of s3:// feeds (default: AWS_REGION, the AWS config, else us-east-1) (string). Operator only: a spider's customSettings may not set it (-s AWS_REGION_NAME=VALUE). */
    AWS_REGION_NAME?: string;
    /** secret key of s3:// feeds (string). Operator only: a spider's customSettings may not set it (-s AWS_SECRET_ACCESS_KEY=VALUE). */
    AWS_SECRET_ACCESS_KEY?: string;
    /** session token of s3:// feeds (temporary credentials) (string). Operator only: a spider's customSettings may not set it (-s AWS_SESSION_TOKEN=VALUE). */
    AWS_SESSION_TOKEN?: string;
    /** the bot's name (string). */
    BOT_NAME?: string;
    /** pages Chromium renders at once for browser requests (open pages count) (integer). */
    BROWSER_CONCURRENCY?: number;
    /** the Chromium binary for browser requests (default: chromium, chromium-browser or google-chrome on PATH) (string). Operator only: a spider's customSettings may not set it (-s BROWSER_EXECUTABLE=VALUE). */
    BROWSER_EXECUTABLE?: string;
    /** browser requests one tab renders one after another, cleared between them, before a new tab and incognito context replace it (1: a new one for every request) (integer). */
    BROWSER_PAGE_REUSE?: number;
    /** seconds a browser request may take to load (its timeout option overrides it) (number of seconds). */
    BROWSER_TIMEOUT?: number;
    /** close the spider after this many items (0: never) (integer). */
    CLOSESPIDER_ITEMCOUNT?: number;
    /** close the spider after this many responses (0: never) (integer). */
    CLOSESPIDER_PAGECOUNT?: number;
    /** close the spider after this many seconds (0: never) (number of seconds). */
    CLOSESPIDER_TIMEOUT?: number;
    /** close the spider after this many errors (0: never) (integer). */
    CLOSESPIDER_ERRORCOUNT?: number;
    /** log the cookies sent and received (DEBUG) (boolean). */
    COOKIES_DEBUG?: boolean;
    /** keep cookies in a cookie jar per spider (meta.cookiejar: another jar) (boolean). */
    COOKIES_ENABLED?: boolean;
    /** items processed by the pipelines at once (integer). */
    CONCURRENT_ITEMS?: number;
    /** downloads at once, over all domains (integer). */
    CONCURRENT_REQUESTS?: number;
    /** downloads at once per download slot (host) (integer). */
    CONCURRENT_REQUESTS_PER_DOMAIN?: number;
    /** downloads at once per server IP address: above 0, download slots are per IP (as SLOT_BY=ip) and this replaces CONCURRENT_REQUESTS_PER_DOMAIN as their concurrency (0: SLOT_BY decides) (integer). */
    CONCURRENT_REQUESTS_PER_IP?: number;
    /** headers added to every request that lacks them (object). */
    DEFAULT_REQUEST_HEADERS?: Record<string, unknown>;
    /** maximum depth of a followed request (0: no limit) (integer). */
    DEPTH_LIMIT?: number;
    /** priority adjustment per depth level (integer). */
    DEPTH_PRIORITY?: number;
    /** count requests per depth (request_depth_count/N) (boolean). */
    DEPTH_STATS_VERBOSE?: boolean;
    /** keep the addresses of resolved host names in memory, shared by all downloads (false: every new connection looks its host up) (boolean). */
    DNSCACHE_ENABLED?: boolean;
    /** host names the DNS cache holds; the least recently used goes first (integer). */
    DNSCACHE_SIZE?: number;
    /** seconds one DNS lookup may take before the download fails with DNSLookupError (number of seconds). */
    DNS_TIMEOUT?: number;
    /** seconds between downloads from the same slot (number of seconds). */
    DOWNLOAD_DELAY?: number;
    /** URL scheme → download handler name (HTTPDownloadHandler, FileDownloadHandler, DataURIDownloadHandler), or null to disable the scheme (object). In customSettings: checked (no file scheme; paths inside the working folder). */
    DOWNLOAD_HANDLERS?: Record<string, unknown>;
    /** largest response body in bytes (0: no limit) (integer). In customSettings: tighter than the default only. */
    DOWNLOAD_MAXSIZE?: number;
    /** bytes of response bodies received at once; downloads wait for room (0: no limit) (integer). In customSettings: tighter than the default only. */
    DOWNLOAD_MEMORY_BUDGET?: number;
    /** URL schemes a spider may request (list). In customSettings: checked (no file scheme; paths inside the working folder). */
    DOWNLOAD_SCHEMES?: unknown[];
    /** host glob → {concurrency, delay, randomizeDelay} for matching slots (object). */
    DOWNLOAD_SLOTS?: Record<string, unknown>;
    /** seconds a download may take in all (number of seconds). */
    DOWNLOAD_TIMEOUT?: number;
    /** verify TLS certificates (false: accept any) (boolean). */
    DOWNLOAD_VERIFY_TLS?: boolean;
    /** response size in bytes that logs a warning (0: never) (integer). */
    DOWNLOAD_WARNSIZE?: number;
    /** log every filtered duplicate, not just the first (boolean). */
    DUPEFILTER_DEBUG?: boolean;
    /** a feed that cannot be written (a full disk): stop closes the spider (finish_reason feed_error, exit code 1), ignore leaves the feed out and goes on (string). */
    FEED_ERRORS?: string;
    /** batchItemCount of every file or S3 feed that sets none (0: one file) (integer). */
    FEED_EXPORT_BATCH_ITEM_COUNT?: number;
    /** feed URI → {format, overwrite, fields, ...} (object). In customSettings: checked (no file scheme; paths inside the working folder). */
    FEEDS?: Record<string, unknown>;
    /** rfc2616 policy: store responses even without a cache directive (boolean). */
    HTTPCACHE_ALWAYS_STORE?: boolean;
    /** HTTP cache folder, relative to the working folder (string). In customSettings: a relative path inside the working folder. */
    HTTPCACHE_DIR?: string;
    /** cache responses on disk and serve them again (HttpCacheMiddleware) (boolean). */
    HTTPCACHE_ENABLED?: boolean;
    /** seconds a cached response stays fresh (0: forever) (integer). */
    HTTPCACHE_EXPIRATION_SECS?: number;
    /** statuses never cached (list). */
    HTTPCACHE_IGNORE_HTTP_CODES?: unknown[];
    /** ignore requests that are not cached instead of downloading them (boolean). */
    HTTPCACHE_IGNORE_MISSING?: boolean;
    /** URL schemes never cached (list). */
    HTTPCACHE_IGNORE_SCHEMES?: unknown[];
    /** dummy (cache everything) or rfc2616 (HTTP caching rules, RFC 9111) (string). */
    HTTPCACHE_POLICY?: string;
    /** pass responses of every status to callbacks (boolean). */
    HTTPERROR_ALLOW_ALL?: boolean;
    /** non-2xx statuses passed to callbacks (list). */
    HTTPERROR_ALLOWED_CODES?: unknown[];
    /** domain (and subdomains) that gets HTTP_USER's credentials; null: the first request's, "": every domain (string). Operator only: a spider's customSettings may not set it (-s HTTP_AUTH_DOMAIN=VALUE). */
    HTTP_AUTH_DOMAIN?: string;
    /** HTTP Basic auth password (string). Operator only: a spider's customSettings may not set it (-s HTTP_PASS=VALUE). */
    HTTP_PASS?: string;
    /** use meta.proxy, PROXY_LIST and the http_proxy, https_proxy and no_proxy environment variables (boolean). Operator only: a spider's customSettings may not set it (-s HTTPPROXY_ENABLED=VALUE). */
    HTTPPROXY_ENABLED?: boolean;
    /** present a browser on http(s) downloads: its TLS ClientHello, HTTP/2 settings, User-Agent and navigation headers in its order: a built-in profile (chrome, firefox, safari, safari_ios, opera, or a version such as chrome_131), a profile.json from `jscrawl fingerprint capture`, or a comma-separated list of them (sessions take them in turn; "": Go's own client) (string). In customSettings: a relative path inside the working folder. */
    HTTP_IMPERSONATE?: string;
    /** proxies downloads rotate over (http://, https://, socks5://, socks5h://, with credentials), or the path of a file with one a line; meta.proxy still wins for one request (list). Operator only: a spider's customSettings may not set it (-s PROXY_LIST=VALUE). */
    PROXY_LIST?: unknown[];
    /** how a download picks from PROXY_LIST: round_robin, random, or per_session (each session keeps one proxy; round_robin without SESSION_POOL_ENABLED) (string). */
    PROXY_ROTATION?: string;
    /** seconds a proxy of PROXY_LIST that failed to connect or refused a download stays benched the first time, doubled each further time in a row (number of seconds). */
    PROXY_BENCH_DELAY?: number;
    /** longest a benched proxy stays out (number of seconds). */
    PROXY_BENCH_MAX_DELAY?: number;
    /** download through a pool of sessions, each with its own cookie jar, proxy and fingerprint profile, retired when a site blocks it (boolean). */
    SESSION_POOL_ENABLED?: boolean;
    /** sessions the pool holds at once (Crawlee: maxPoolSize) (integer). */
    SESSION_POOL_SIZE?: number;
    /** downloads one session serves before it retires (0: no limit; Crawlee: maxUsageCount) (integer). */
    SESSION_MAX_USAGE?: number;
    /** errors a session may collect before it retires: a connection error or timeout adds 1, a success takes 0.5 off (Crawlee: maxErrorScore, errorScoreDecrement) (integer). */
    SESSION_MAX_ERRORS?: number;
    /** statuses that mean a site blocked the session: it retires and the request runs again on another one (list). */
    SESSION_BLOCKED_STATUS_CODES?: unknown[];
    /** times one request moves to another session after a block before it fails with SessionBlockedError (Crawlee: maxSessionRotations) (integer). */
    SESSION_MAX_ROTATIONS?: number;
    /** HTTP Basic auth user name (string). Operator only: a spider's customSettings may not set it (-s HTTP_USER=VALUE). */
    HTTP_USER?: string;
    /** name of a shared crawl (--crawl-id): every Redis key of it starts with jscrawl:<CRAWL_ID>: (empty: the spider's name) (string). */
    CRAWL_ID?: string;
    /** redis://[:PASSWORD@]HOST:PORT/DB (rediss:// for TLS) of a frontier that many workers share (--frontier; empty: none) (string). Operator only: a spider's customSettings may not set it (-s FRONTIER=VALUE). */
    FRONTIER?: string;
    /** seconds a worker's lease on a request of a shared frontier lasts unless renewed; an expired lease goes to another worker (number of seconds). Operator only: a spider's customSettings may not set it (-s FRONTIER_LEASE_TIMEOUT=VALUE). */
    FRONTIER_LEASE_TIMEOUT?: number;
    /** seconds a worker retries an unreachable Redis frontier before it exits with an error (number of seconds). Operator only: a spider's customSettings may not set it (-s FRONTIER_RETRY_TIMEOUT=VALUE). */
    FRONTIER_RETRY_TIMEOUT?: number;
    /** seconds a callback may run synchronously before it is interrupted (number of seconds). In customSettings: tighter than the default only. */
    JS_CALLBACK_TIMEOUT?: number;
    /** seconds of wall-clock time a callback, errback, start() step, pipeline call or JS middleware hook may take, awaited time included, before it fails with a TimeoutError (Crawlee: requestHandlerTimeoutSecs; 0: no limit) (number of seconds). In customSettings: tighter than the default only. */
    CALLBACK_TIMEOUT?: number;
    /** MiB one call of an allocating built-in (repeat, padStart, padEnd, join, fill, new ArrayBuffer, typed arrays) may ask for; past it the call throws a RangeError (integer). In customSettings: tighter than the default only. */
    JS_MAX_ALLOCATION_MB?: number;
    /** after each Go garbage collection, the soft memory limit becomes the live heap and the runtime's other memory plus the larger of this many MiB and GC_HEADROOM_PERCENT of the live heap, so garbage cannot pile up past it (0: a fixed limit, twice DOWNLOAD_MEMORY_BUDGET + 512 MiB; GOMEMLIMIT overrides both) (integer). Operator only: a spider's customSettings may not set it (-s GC_HEADROOM_MB=VALUE). */
    GC_HEADROOM_MB?: number;
    /** percent of the live heap the heap may grow by between collections, when above GC_HEADROOM_MB (integer). Operator only: a spider's customSettings may not set it (-s GC_HEADROOM_PERCENT=VALUE). */
    GC_HEADROOM_PERCENT?: number;
    /** deepest nesting of arrays and objects that JSON.parse, response.json() and JSON.stringify accept (1 to 10000); deeper text is a SyntaxError, a deeper value a RangeError (integer). In customSettings: tighter than the default only. */
    JSON_MAX_DEPTH?: number;
    /** JS VMs, each with its own spider instance (integer). */
    JS_VMS?: number;
    /** folder of a job that survives stops and crashes and resumes where it stopped (--jobdir; empty: none) (string). In customSettings: a relative path inside the working folder. */
    JOBDIR?: string;
    /** seconds between the commits of a job's progress (one fsync each) (number of seconds). */
    JOBDIR_COMMIT_INTERVAL?: number;
    /** write the log to this file only (empty: stderr) (string). In customSettings: a relative path inside the working folder. */
    LOG_FILE?: string;
    /** text (Scrapy's lines) or json (one object per record) (string). */
    LOG_FORMAT?: string;
    /** DEBUG, INFO, WARNING or ERROR (string). */
    LOG_LEVEL?: string;
    /** seconds between progress lines (number of seconds). */
    LOGSTATS_INTERVAL?: number;
    /** watch the process's memory (resident set size): MEMUSAGE_WARNING_MB and MEMUSAGE_LIMIT_MB (boolean). In customSettings: tighter than the default only. */
    MEMUSAGE_ENABLED?: boolean;
    /** MiB of process memory at which running callbacks are interrupted and the spider closes with memusage_exceeded, exit 1 (0: no limit) (integer). In customSettings: tighter than the default only. */
    MEMUSAGE_LIMIT_MB?: number;
    /** MiB of process memory that logs one warning (0: none) (integer). */
    MEMUSAGE_WARNING_MB?: number;
    /** seconds between memory checks (number of seconds). In customSettings: tighter than the default only. */
    MEMUSAGE_CHECK_INTERVAL_SECONDS?: number;
    /** follow <meta http-equiv="refresh"> redirects (boolean). */
    METAREFRESH_ENABLED?: boolean;
    /** tags (such as noscript) whose meta refresh is ignored (list). */
    METAREFRESH_IGNORE_TAGS?: unknown[];
    /** longest meta refresh delay followed (number of seconds). */
    METAREFRESH_MAXDELAY?: number;
    /** wait 0.5–1.5 × DOWNLOAD_DELAY (boolean). */
    RANDOMIZE_DOWNLOAD_DELAY?: boolean;
    /** follow HTTP redirects (boolean). */
    REDIRECT_ENABLED?: boolean;
    /** redirects followed per request (integer). */
    REDIRECT_MAX_TIMES?: number;
    /** priority of a redirected request relative to the original (integer). */
    REDIRECT_PRIORITY_ADJUST?: number;
    /** set the Referer header of followed requests (boolean). */
    REFERER_ENABLED?: boolean;
    /** Referer policy: no-referrer, same-origin, origin, strict-origin, unsafe-url, ... (string). */
    REFERRER_POLICY?: string;
    /** retry failed downloads (boolean). */
    RETRY_ENABLED?: boolean;
    /** seconds before the first retry, doubled for each further one (±50% jitter) (number of seconds). */
    RETRY_BACKOFF_BASE?: number;
    /** longest wait before a retry, Retry-After included (number of seconds). */
    RETRY_BACKOFF_MAX?: number;
    /** statuses that are retried (list). */
    RETRY_HTTP_CODES?: unknown[];
    /** retries per request, after the first try (integer). */
    RETRY_TIMES?: number;
    /** longest robots.txt Crawl-delay (or Request-rate interval) honoured (number of seconds). */
    ROBOTSTXT_CRAWL_DELAY_MAX?: number;
    /** obey robots.txt (boolean). */
    ROBOTSTXT_OBEY?: boolean;
    /** user agent matched against robots.txt groups (empty: the product tokens of the User-Agent header or USER_AGENT) (string). */
    ROBOTSTXT_USER_AGENT?: string;
    /** what a download slot stands for: host (the host name, or meta.downloadSlot) or ip (the server's IP address once the DNS cache knows it, so host names of one machine share its politeness) (string). */
    SLOT_BY?: string;
    /** seconds a graceful stop (the first Ctrl-C or SIGTERM, a CLOSESPIDER_* limit) waits for downloads in flight before aborting them (0: no limit) (number of seconds). In customSettings: tighter than the default only. */
    SHUTDOWN_TIMEOUT?: number;
    /** order within one priority: lifo (depth-first, as Scrapy) or fifo (string). */
    SCHEDULER_MEMORY_QUEUE?: string;
    /** requests the scheduler holds in memory (or 10× as many fingerprints) before it spills its queue and seen-set to a temporary store under TMPDIR (0: never) (integer). In customSettings: tighter than the default only. */
    SCHEDULER_MEMORY_MAX?: number;
    /** built-in downloader middleware name → order number, or null to disable it (object). */
    DOWNLOADER_MIDDLEWARES?: Record<string, unknown>;
    /** built-in spider middleware name → order number, or null to disable it (object). */
    SPIDER_MIDDLEWARES?: Record<string, unknown>;
    /** stat name → condition such as ">= 100", checked at the end (exit code 99 when one fails) (object). */
    THRESHOLDS?: Record<string, unknown>;
    /** longest URL followed (integer). */
    URLLENGTH_LIMIT?: number;
    /** User-Agent header (string). */
    USER_AGENT?: string;
    /** with REPLAY_FILES, download a request the archives lack instead of failing it with NotInArchive (--replay-fallback) (boolean). */
    REPLAY_FALLBACK?: boolean;
    /** WARC files that serve every http(s) download instead of the network (--replay; a rotated file is read with its -00001, ... parts) (list). In customSettings: a relative path inside the working folder. */
    REPLAY_FILES?: unknown[];
    /** WARC file to record every http(s) download to, a request and a response record each (--warc; a name ending .gz gzips each record; empty: none) (string). In customSettings: a relative path inside the working folder. */
    WARC_FILE?: string;
    /** a WARC file that cannot be written (a full disk): stop closes the spider (finish_reason warc_error, exit code 1), ignore goes on without recording (string). */
    WARC_ERRORS?: string;
    /** bytes of a WARC file on disk before the next one starts (crawl-00001.warc.gz, ...; 0: no limit) (integer). */
    WARC_MAX_SIZE?: number;
  }
}
