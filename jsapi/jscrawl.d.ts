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

// Crawlee's names on jscrawl (jsapi/crawlee.js): "crawlee" and "@crawlee/cheerio" are the
// same built-in module. See docs/from-crawlee.md.
declare module "crawlee" {
  export type Dictionary = Record<string, any>;
  export enum LogLevel { OFF = 0, ERROR = 1, SOFT_FAIL = 2, WARNING = 3, INFO = 4, DEBUG = 5, PERF = 6 }
  /** Crawlee's log, written to the crawl log under the spider's name. */
  export class Log {
    constructor(options?: { prefix?: string });
    setLevel(level: LogLevel): void;
    getLevel(): LogLevel;
    child(options: { prefix?: string }): Log;
    debug(message: string, data?: Dictionary): void;
    info(message: string, data?: Dictionary): void;
    warning(message: string, data?: Dictionary): void;
    warningOnce(message: string): void;
    error(message: string, data?: Dictionary): void;
    exception(error: Error, message?: string, data?: Dictionary): void;
    softFail(message: string, data?: Dictionary): void;
    perf(message: string, data?: Dictionary): void;
    deprecated(message: string): void;
  }
  export const log: Log;
  export const EnqueueStrategy: { readonly All: "all"; readonly SameHostname: "same-hostname"; readonly SameDomain: "same-domain"; readonly SameOrigin: "same-origin" };
  export type EnqueueStrategy = "all" | "same-hostname" | "same-domain" | "same-origin";
  export interface RequestOptions<UserData extends Dictionary = Dictionary> {
    url: string; uniqueKey?: string; method?: string; payload?: string; headers?: Record<string, string>;
    userData?: UserData; label?: string; noRetry?: boolean; keepUrlFragment?: boolean;
  }
  export class Request<UserData extends Dictionary = Dictionary> {
    constructor(options: RequestOptions<UserData> | string);
    id?: string; url: string; loadedUrl?: string; uniqueKey: string; method: string; payload?: string;
    headers: Record<string, string>; userData: UserData; label?: string; retryCount: number; noRetry: boolean;
    errorMessages: string[];
    pushErrorMessage(error: unknown): void;
  }
  export interface EnqueueLinksOptions {
    urls?: string[]; selector?: string; globs?: (string | { glob: string })[]; include?: (string | RegExp)[]; exclude?: (string | RegExp)[];
    regexps?: RegExp[]; strategy?: EnqueueStrategy; label?: string; userData?: Dictionary; baseUrl?: string; limit?: number;
    transformRequestFunction?: (request: RequestOptions) => RequestOptions | false | null | undefined;
  }
  export interface ProcessedRequest { requestId: string; uniqueKey: string; wasAlreadyPresent: boolean; wasAlreadyHandled: boolean }
  export interface BatchAddRequestsResult { processedRequests: ProcessedRequest[]; unprocessedRequests: RequestOptions[] }
  export interface CheerioCrawlingContext<UserData extends Dictionary = Dictionary> {
    id: string;
    request: Request<UserData>;
    /** The page's cheerio-compatible document (response.$). */
    $: any;
    body: string;
    json: any;
    contentType: { type: string; encoding: string };
    response: { statusCode: number; statusMessage: string; headers: Record<string, string>; url: string };
    crawler: CheerioCrawler;
    log: Log;
    enqueueLinks(options?: EnqueueLinksOptions): Promise<BatchAddRequestsResult>;
    pushData(data: Dictionary | Dictionary[], datasetIdOrName?: string): Promise<void>;
    addRequests(requests: (string | RequestOptions | Request)[]): Promise<BatchAddRequestsResult>;
    sendRequest(overrides?: { url?: string; method?: string; headers?: Record<string, string>; body?: string; json?: unknown; form?: Record<string, string> }):
      Promise<{ body: string; statusCode: number; headers: Record<string, string>; url: string }>;
    getKeyValueStore(name?: string): Promise<KeyValueStore>;
    parseWithCheerio(): Promise<any>;
  }
  export type RequestHandler = (context: CheerioCrawlingContext) => unknown;
  export interface RouterHandler extends RequestHandler {
    addHandler(label: string, handler: RequestHandler): void;
    addDefaultHandler(handler: RequestHandler): void;
    use(middleware: RequestHandler): void;
    getHandler(label?: string): RequestHandler;
  }
  export class Router {
    static create(routes?: Record<string, RequestHandler>): RouterHandler;
  }
  export function createCheerioRouter(routes?: Record<string, RequestHandler>): RouterHandler;
  export interface CheerioCrawlerOptions {
    name?: string;
    startUrls?: (string | RequestOptions | Request)[];
    requestHandler?: RequestHandler;
    failedRequestHandler?: (context: CheerioCrawlingContext, error: Error) => unknown;
    errorHandler?: (context: CheerioCrawlingContext, error: Error) => unknown;
    maxRequestsPerCrawl?: number; maxRequestRetries?: number; maxConcurrency?: number; minConcurrency?: number;
    maxRequestsPerMinute?: number; requestHandlerTimeoutSecs?: number; navigationTimeoutSecs?: number;
    respectRobotsTxtFile?: boolean; ignoreSslErrors?: boolean; additionalMimeTypes?: string[];
    ignoreHttpErrorStatusCodes?: number[]; additionalHttpErrorStatusCodes?: number[];
    [option: string]: unknown;
  }
  export interface FinalStatistics { requestsFinished: number; requestsFailed: number; requestsRetries: number; requestsTotal: number; crawlerRuntimeMillis: number; retryHistogram: number[] }
  export class CheerioCrawler {
    constructor(options?: CheerioCrawlerOptions, config?: Configuration);
    readonly router: RouterHandler;
    readonly log: Log;
    addRequests(requests: (string | RequestOptions | Request)[]): Promise<{ addedRequests: ProcessedRequest[]; waitForAllRequestsToBeAdded: Promise<unknown> }>;
    run(requests?: (string | RequestOptions | Request)[]): Promise<FinalStatistics>;
    getData(options?: { offset?: number; limit?: number; desc?: boolean }): Promise<DatasetContent>;
    pushData(data: Dictionary | Dictionary[], datasetIdOrName?: string): Promise<void>;
    stop(reason?: string): void;
  }
  export interface DatasetContent { items: Dictionary[]; total: number; offset: number; count: number; limit: number; desc: boolean }
  export class Dataset {
    readonly id: string; readonly name?: string;
    static open(name?: string): Promise<Dataset>;
    static pushData(data: Dictionary | Dictionary[]): Promise<void>;
    static getData(options?: { offset?: number; limit?: number; desc?: boolean }): Promise<DatasetContent>;
    static exportToJSON(key: string, options?: { toKVS?: string }): Promise<void>;
    static exportToCSV(key: string, options?: { toKVS?: string }): Promise<void>;
    pushData(data: Dictionary | Dictionary[]): Promise<void>;
    getData(options?: { offset?: number; limit?: number; desc?: boolean }): Promise<DatasetContent>;
    getInfo(): Promise<{ id: string; name?: string; itemCount: number }>;
    forEach(fn: (item: Dictionary, index: number) => unknown): Promise<void>;
    map<T>(fn: (item: Dictionary, index: number) => T | Promise<T>): Promise<T[]>;
    reduce<T>(fn: (memo: T, item: Dictionary, index: number) => T | Promise<T>, memo?: T): Promise<T>;
    exportToJSON(key: string, options?: { toKVS?: string }): Promise<void>;
    exportToCSV(key: string, options?: { toKVS?: string }): Promise<void>;
    drop(): Promise<void>;
  }
  export class KeyValueStore {
    readonly id: string; readonly name?: string;
    static open(name?: string): Promise<KeyValueStore>;
    static getValue<T = unknown>(key: string, defaultValue?: T): Promise<T | null>;
    static setValue(key: string, value: unknown, options?: { contentType?: string }): Promise<void>;
    static recordExists(key: string): Promise<boolean>;
    static getInput<T = unknown>(): Promise<T | null>;
    getValue<T = unknown>(key: string, defaultValue?: T): Promise<T | null>;
    setValue(key: string, value: unknown, options?: { contentType?: string }): Promise<void>;
    recordExists(key: string): Promise<boolean>;
    forEachKey(fn: (key: string, index: number, info: { size?: number }) => unknown, options?: { exclusiveStartKey?: string }): Promise<void>;
    drop(): Promise<void>;
  }
  export class Configuration {
    constructor(options?: Dictionary);
    get(key: string, defaultValue?: unknown): unknown;
    set(key: string, value: unknown): void;
    static getGlobalConfig(): Configuration;
  }
  export function purgeDefaultStorages(): Promise<void>;
  export function sleep(ms?: number): Promise<void>;
}

declare module "@crawlee/cheerio" {
  export * from "crawlee";
}
