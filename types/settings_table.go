package types

import "strings"

// This file is the table of settings: each setting's kind, default, description and rules
// (its range or choices, what a spider may do with it), and the lookups over it.

// Kind is the type of a setting's value.
type Kind int

// The kinds of setting values.
const (
	KindAny      Kind = iota
	KindInt           // integer; "-s K=3"
	KindFloat         // number; "-s K=0.5"
	KindBool          // true/false/1/0
	KindString        // text
	KindDuration      // seconds as a number; "-s K=2.5"
	KindList          // JSON array or comma-separated text
	KindMap           // JSON object
)

func (k Kind) String() string {
	return [...]string{"any", "integer", "number", "boolean", "string", "number of seconds", "list", "object"}[k]
}

// Def declares a known setting: its key, kind, default value and a one-line description,
// with the rules Set and the spider sandbox apply to its values.
type Def struct {
	Key     string
	Kind    Kind
	Default any
	// Range bounds a numeric setting's values (the zero Range: none). A number of seconds
	// without one must be >= 0 (ValueRange). DEPTH_PRIORITY and REDIRECT_PRIORITY_ADJUST
	// have none: they may be negative.
	Range Range
	// Choices lists the values a text setting may take, compared without regard to case;
	// Set refuses others (nil: any text).
	Choices []string
	// Access says what a spider's own settings may do with the setting. Every entry says
	// it (a test refuses one without), so a new setting cannot be added without saying who
	// may set it.
	Access Access
	// ZeroIsNoLimit marks a SpiderTightens ceiling whose 0 means "no limit": a spider may
	// set any positive value not above the default there (or any positive value where the
	// default is 0), never 0.
	ZeroIsNoLimit bool
	// Flag names the command-line flag that sets the setting, where one does, for the
	// errors that tell an operator how to pass it.
	Flag string
	// Why says why an OperatorOnly setting is the operator's, for the error that refuses it
	// in a spider.
	Why string
	Doc string
}

// Defs lists every setting jscrawl knows, with Scrapy's defaults where Scrapy has the key.
var Defs = []Def{
	{Key: AutoThrottleDebug, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "log every AutoThrottle delay change"},
	{Key: AutoThrottleEnabled, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "adapt each slot's delay to the server's latency"},
	{Key: AutoThrottleMaxDelay, Kind: KindDuration, Default: 60.0, Access: SpiderSets, Doc: "highest delay AutoThrottle sets"},
	{Key: AutoThrottleStartDelay, Kind: KindDuration, Default: 5.0, Access: SpiderSets, Doc: "AutoThrottle's first delay per slot"},
	{Key: AutoThrottleTargetConcurrency, Kind: KindFloat, Default: 1.0, Range: Above(0), Access: SpiderSets, Doc: "downloads AutoThrottle aims to have in flight per slot"},
	{Key: AWSAccessKeyID, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it is a credential", Doc: "access key of s3:// feeds (default: the AWS environment variables and config files)"},
	{Key: AWSEndpointURL, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it says where the S3 credentials are sent", Doc: "endpoint of s3:// feeds, for an S3-compatible server (an IP address gets path-style addressing)"},
	{Key: AWSRegionName, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it belongs to the operator's S3 account, with its credentials", Doc: "region of s3:// feeds (default: AWS_REGION, the AWS config, else us-east-1)"},
	{Key: AWSSecretAccessKey, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it is a credential", Doc: "secret key of s3:// feeds"},
	{Key: AWSSessionToken, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it is a credential", Doc: "session token of s3:// feeds (temporary credentials)"},
	{Key: BotName, Kind: KindString, Default: "jscrawl", Access: SpiderSets, Doc: "the bot's name"},
	{Key: BrowserConcurrency, Kind: KindInt, Default: 4, Access: SpiderSets, Doc: "pages Chromium renders at once for browser requests (open pages count)"},
	{Key: BrowserExecutable, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it names a program to start", Doc: "the Chromium binary for browser requests (default: chromium, chromium-browser or google-chrome on PATH)"},
	{Key: BrowserPageReuse, Kind: KindInt, Default: 100, Access: SpiderSets, Doc: "browser requests one tab renders one after another, cleared between them, before a new tab and incognito context replace it (1: a new one for every request)"},
	{Key: BrowserTimeout, Kind: KindDuration, Default: 30.0, Access: SpiderSets, Doc: "seconds a browser request may take to load (its timeout option overrides it)"},
	{Key: CloseSpiderItemCount, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "close the spider after this many items (0: never)"},
	{Key: CloseSpiderPageCount, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "close the spider after this many responses (0: never)"},
	{Key: CloseSpiderTimeout, Kind: KindDuration, Default: 0.0, Access: SpiderSets, Doc: "close the spider after this many seconds (0: never)"},
	{Key: CloseSpiderErrorCount, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "close the spider after this many errors (0: never)"},
	{Key: CookiesDebug, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "log the cookies sent and received (DEBUG)"},
	{Key: CookiesEnabled, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "keep cookies in a cookie jar per spider (meta.cookiejar: another jar)"},
	{Key: ConcurrentItems, Kind: KindInt, Default: 100, Range: AtLeast(1), Access: SpiderSets, Doc: "items processed by the pipelines at once"},
	{Key: ConcurrentRequests, Kind: KindInt, Default: 16, Range: AtLeast(1), Access: SpiderSets, Doc: "downloads at once, over all domains"},
	{Key: ConcurrentRequestsPerDomain, Kind: KindInt, Default: 8, Range: AtLeast(1), Access: SpiderSets, Doc: "downloads at once per download slot (host)"},
	{Key: ConcurrentRequestsPerIP, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "downloads at once per server IP address: above 0, download slots are per IP (as SLOT_BY=ip) and this replaces CONCURRENT_REQUESTS_PER_DOMAIN as their concurrency (0: SLOT_BY decides)"},
	{Key: DefaultRequestHeaders, Kind: KindMap, Default: map[string]any{
		"Accept":          "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"Accept-Language": "en",
	}, Access: SpiderSets, Doc: "headers added to every request that lacks them"},
	{Key: DepthLimit, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "maximum depth of a followed request (0: no limit)"},
	{Key: DepthPriority, Kind: KindInt, Default: 0, Access: SpiderSets, Doc: "priority adjustment per depth level"},
	{Key: DepthStatsVerbose, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "count requests per depth (request_depth_count/N)"},
	{Key: DNSCacheEnabled, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "keep the addresses of resolved host names in memory, shared by all downloads (false: every new connection looks its host up)"},
	{Key: DNSCacheSize, Kind: KindInt, Default: 10000, Range: AtLeast(1), Access: SpiderSets, Doc: "host names the DNS cache holds; the least recently used goes first"},
	{Key: DNSTimeout, Kind: KindDuration, Default: 60.0, Range: Above(0), Access: SpiderSets, Doc: "seconds one DNS lookup may take before the download fails with DNSLookupError"},
	{Key: DownloadConnectTo, Kind: KindList, Default: []any{}, Access: OperatorOnly, Why: "it sends the crawl's connections to other addresses than its URLs' hosts", Doc: "\"host:port=ip:port\" rules: a download's new connection to host:port (or to host at any port, for a bare host) dials ip:port instead, its URL, TLS server name and Host header unchanged (curl's --connect-to); the http(s) download handler only"},
	{Key: DownloadDelay, Kind: KindDuration, Default: 0.0, Access: SpiderSets, Doc: "seconds between downloads from the same slot"},
	// Access: not FileDownloadHandler.
	{Key: DownloadHandlers, Kind: KindMap, Default: map[string]any{}, Access: SpiderChecked, Doc: "URL scheme → download handler name (HTTPDownloadHandler, FileDownloadHandler, DataURIDownloadHandler), or null to disable the scheme"},
	{Key: DownloadMaxSize, Kind: KindInt, Default: 1 << 30, Range: AtLeast(0), Access: SpiderTightens, ZeroIsNoLimit: true, Doc: "largest response body in bytes (0: no limit)"},
	{Key: DownloadMemoryBudget, Kind: KindInt, Default: 512 << 20, Range: AtLeast(0), Access: SpiderTightens, ZeroIsNoLimit: true, Doc: "bytes of response bodies received at once; downloads wait for room (0: no limit)"},
	// Access: not file.
	{Key: DownloadSchemes, Kind: KindList, Default: []any{"http", "https"}, Access: SpiderChecked, Doc: "URL schemes a spider may request"},
	{Key: DownloadSlots, Kind: KindMap, Default: map[string]any{}, Access: SpiderSets, Doc: "host glob → {concurrency, delay, randomizeDelay} for matching slots"},
	{Key: DownloadTimeout, Kind: KindDuration, Default: 180.0, Access: SpiderSets, Doc: "seconds a download may take in all"},
	{Key: DownloadVerifyTLS, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "verify TLS certificates (false: accept any)"},
	{Key: DownloadWarnSize, Kind: KindInt, Default: 32 << 20, Range: AtLeast(0), Access: SpiderSets, Doc: "response size in bytes that logs a warning (0: never)"},
	{Key: DupeFilterDebug, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "log every filtered duplicate, not just the first"},
	{Key: FeedErrors, Kind: KindString, Default: "stop", Choices: []string{"stop", "ignore"}, Access: SpiderSets, Doc: "a feed that cannot be written (a full disk) or a value a table column cannot take: stop closes the spider (finish_reason feed_error, exit code 1), ignore leaves the feed (for a refused value: the item) out and goes on"},
	{Key: FeedExportBatchItemCount, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "batchItemCount of every file or S3 feed that sets none (0: one file)"},
	// Access: targets are SpiderPath.
	{Key: Feeds, Kind: KindMap, Default: map[string]any{}, Access: SpiderChecked, Flag: "-o FILE", Doc: "feed URI → {format, overwrite, fields, ...}"},
	{Key: HTTPCacheAlwaysStore, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "rfc2616 policy: store responses even without a cache directive"},
	{Key: HTTPCacheDir, Kind: KindString, Default: ".jscrawl/httpcache", Access: SpiderPath, Doc: "HTTP cache folder, relative to the working folder"},
	{Key: HTTPCacheEnabled, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "cache responses on disk and serve them again (HttpCacheMiddleware)"},
	{Key: HTTPCacheExpirationSecs, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "seconds a cached response stays fresh (0: forever)"},
	{Key: HTTPCacheIgnoreHTTPCodes, Kind: KindList, Default: []any{}, Access: SpiderSets, Doc: "statuses never cached"},
	{Key: HTTPCacheIgnoreMissing, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "ignore requests that are not cached instead of downloading them"},
	{Key: HTTPCacheIgnoreSchemes, Kind: KindList, Default: []any{"file"}, Access: SpiderSets, Doc: "URL schemes never cached"},
	{Key: HTTPCachePolicy, Kind: KindString, Default: "dummy", Choices: []string{"dummy", "rfc2616", "rfc9111"}, Access: SpiderSets, Doc: "dummy (cache everything) or rfc2616 (HTTP caching rules, RFC 9111)"},
	{Key: HTTPErrorAllowAll, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "pass responses of every status to callbacks"},
	{Key: HTTPErrorAllowedCodes, Kind: KindList, Default: []any{}, Access: SpiderSets, Doc: "non-2xx statuses passed to callbacks"},
	{Key: HTTPAuthDomain, Kind: KindString, Default: nil, Access: OperatorOnly, Why: "it says where HTTP_USER's credentials are sent", Doc: "domain (and subdomains) that gets HTTP_USER's credentials; null: the first request's, \"\": every domain"},
	{Key: HTTPPass, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it is a credential", Doc: "HTTP Basic auth password"},
	{Key: HTTPProxyEnabled, Kind: KindBool, Default: true, Access: OperatorOnly, Why: "it switches the operator's proxies (http_proxy, https_proxy) on or off", Doc: "use meta.proxy, PROXY_LIST and the http_proxy, https_proxy and no_proxy environment variables"},
	// Access: a profile name, or a profile.json inside the working folder.
	{Key: HTTPImpersonate, Kind: KindString, Default: "", Access: SpiderPath, Doc: "present a browser on http(s) downloads: its TLS ClientHello, HTTP/2 settings, User-Agent and navigation headers in its order: a built-in profile (chrome, firefox, safari, safari_ios, opera, or a version such as chrome_131), a profile.json from `jscrawl fingerprint capture`, or a comma-separated list of them (sessions take them in turn; \"\": Go's own client)"},
	// Access: the operator's proxies and their credentials.
	{Key: ProxyList, Kind: KindList, Default: []any{}, Access: OperatorOnly, Why: "it names the operator's proxies and their credentials (a spider's own proxy goes in meta.proxy)", Doc: "proxies downloads rotate over (http://, https://, socks5://, socks5h://, with credentials), or the path of a file with one a line; meta.proxy still wins for one request"},
	{Key: ProxyRotation, Kind: KindString, Default: "round_robin", Choices: []string{"round_robin", "random", "per_session"}, Access: SpiderSets, Doc: "how a download picks from PROXY_LIST: round_robin, random, or per_session (each session keeps one proxy; round_robin without SESSION_POOL_ENABLED)"},
	{Key: ProxyBenchDelay, Kind: KindDuration, Default: 30.0, Range: AtLeast(0), Access: SpiderSets, Doc: "seconds a proxy of PROXY_LIST that failed to connect or refused a download stays benched the first time, doubled each further time in a row"},
	{Key: ProxyBenchMaxDelay, Kind: KindDuration, Default: 600.0, Range: AtLeast(0), Access: SpiderSets, Doc: "longest a benched proxy stays out"},
	{Key: SessionPoolEnabled, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "download through a pool of sessions, each with its own cookie jar, proxy and fingerprint profile, retired when a site blocks it"},
	{Key: SessionPoolSize, Kind: KindInt, Default: 1000, Range: AtLeast(1), Access: SpiderSets, Doc: "sessions the pool holds at once (Crawlee: maxPoolSize)"},
	{Key: SessionMaxUsage, Kind: KindInt, Default: 50, Range: AtLeast(0), Access: SpiderSets, Doc: "downloads one session serves before it retires (0: no limit; Crawlee: maxUsageCount)"},
	{Key: SessionMaxErrors, Kind: KindInt, Default: 3, Range: AtLeast(1), Access: SpiderSets, Doc: "errors a session may collect before it retires: a connection error or timeout adds 1, a success takes 0.5 off (Crawlee: maxErrorScore, errorScoreDecrement)"},
	{Key: SessionBlockedStatusCodes, Kind: KindList, Default: []any{401, 403, 429}, Access: SpiderSets, Doc: "statuses that mean a site blocked the session: it retires and the request runs again on another one"},
	{Key: SessionMaxRotations, Kind: KindInt, Default: 10, Range: AtLeast(0), Access: SpiderSets, Doc: "times one request moves to another session after a block before it fails with SessionBlockedError (Crawlee: maxSessionRotations)"},
	{Key: HTTPUser, Kind: KindString, Default: "", Access: OperatorOnly, Why: "it is a credential", Doc: "HTTP Basic auth user name"},
	// Access: a namespace in the operator's frontier, like the spider's name.
	{Key: CrawlID, Kind: KindString, Default: "", Access: SpiderSets, Flag: "--crawl-id NAME", Doc: "name of a shared crawl (--crawl-id): every Redis key of it starts with jscrawl:<CRAWL_ID>: (empty: the spider's name)"},
	{Key: Frontier, Kind: KindString, Default: "", Access: OperatorOnly, Flag: "--frontier URL", Why: "it names a network service and its password", Doc: "redis://[:PASSWORD@]HOST:PORT/DB (rediss:// for TLS) of a frontier that many workers share (--frontier; empty: none)"},
	{Key: FrontierLeaseTimeout, Kind: KindDuration, Default: 60.0, Range: Above(0), Access: OperatorOnly, Why: "it belongs to the shared crawl, the same for every worker", Doc: "seconds a worker's lease on a request of a shared frontier lasts unless renewed; an expired lease goes to another worker"},
	{Key: FrontierRetryTimeout, Kind: KindDuration, Default: 300.0, Range: Above(0), Access: OperatorOnly, Why: "it belongs to the shared crawl, the same for every worker", Doc: "seconds a worker retries an unreachable Redis frontier before it exits with an error"},
	// Access: what interrupts a runaway callback.
	{Key: JSCallbackTimeout, Kind: KindDuration, Default: 60.0, Access: SpiderTightens, ZeroIsNoLimit: true, Doc: "seconds a callback may run synchronously before it is interrupted"},
	// Access: what ends a callback that never settles.
	{Key: CallbackTimeout, Kind: KindDuration, Default: 180.0, Access: SpiderTightens, ZeroIsNoLimit: true, Doc: "seconds of wall-clock time a callback, errback, start() step, pipeline call or JS middleware hook may take, awaited time included, before it fails with a TimeoutError (Crawlee: requestHandlerTimeoutSecs; 0: no limit)"},
	// Access: what keeps a built-in from exhausting memory.
	{Key: JSMaxAllocationMB, Kind: KindInt, Default: 512, Range: AtLeast(1), Access: SpiderTightens, Doc: "MiB one call of an allocating built-in (repeat, padStart, padEnd, join, fill, new ArrayBuffer, typed arrays) may ask for; past it the call throws a RangeError"},
	{Key: GCHeadroomMB, Kind: KindInt, Default: 32, Range: AtLeast(0), Access: OperatorOnly, Why: "it sizes the process's memory", Doc: "after each Go garbage collection, the soft memory limit becomes the live heap and the runtime's other memory plus the larger of this many MiB and GC_HEADROOM_PERCENT of the live heap, so garbage cannot pile up past it (0: a fixed limit, twice DOWNLOAD_MEMORY_BUDGET + 512 MiB; GOMEMLIMIT overrides both)"},
	{Key: GCHeadroomPercent, Kind: KindInt, Default: 50, Range: AtLeast(1), Access: OperatorOnly, Why: "it sizes the process's memory", Doc: "percent of the live heap the heap may grow by between collections, when above GC_HEADROOM_MB"},
	// Access: what keeps goja's recursive JSON code off the Go stack limit.
	{Key: JSONMaxDepth, Kind: KindInt, Default: 1000, Range: Between(1, MaxJSONDepth), Access: SpiderTightens, Doc: "deepest nesting of arrays and objects that JSON.parse, response.json() and JSON.stringify accept (1 to 10000); deeper text is a SyntaxError, a deeper value a RangeError"},
	{Key: JSVMs, Kind: KindInt, Default: 1, Range: AtLeast(1), Access: SpiderSets, Doc: "JS VMs, each with its own spider instance"},
	{Key: JobDir, Kind: KindString, Default: "", Access: SpiderPath, Flag: "--jobdir DIR", Doc: "folder of a job that survives stops and crashes and resumes where it stopped (--jobdir; empty: none)"},
	{Key: JobDirCommitInterval, Kind: KindDuration, Default: 1.0, Range: Above(0), Access: SpiderSets, Doc: "seconds between the commits of a job's progress (one fsync each)"},
	{Key: LogFile, Kind: KindString, Default: "", Access: SpiderPath, Doc: "write the log to this file only (empty: stderr)"},
	{Key: LogFormat, Kind: KindString, Default: "text", Access: SpiderSets, Doc: "text (Scrapy's lines) or json (one object per record)"},
	{Key: LogLevel, Kind: KindString, Default: "INFO", Access: SpiderSets, Doc: "DEBUG, INFO, WARNING or ERROR"},
	{Key: LogStatsInterval, Kind: KindDuration, Default: 60.0, Access: SpiderSets, Doc: "seconds between progress lines"},
	{Key: MemUsageEnabled, Kind: KindBool, Default: true, Access: SpiderTightens, Doc: "watch the process's memory (resident set size): MEMUSAGE_WARNING_MB and MEMUSAGE_LIMIT_MB"},
	{Key: MemUsageLimitMB, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderTightens, ZeroIsNoLimit: true, Doc: "MiB of process memory at which running callbacks are interrupted and the spider closes with memusage_exceeded, exit 1 (0: no limit)"},
	{Key: MemUsageWarningMB, Kind: KindInt, Default: 0, Range: AtLeast(0), Access: SpiderSets, Doc: "MiB of process memory that logs one warning (0: none)"},
	{Key: MemUsageCheckInterval, Kind: KindDuration, Default: 1.0, Range: Above(0), Access: SpiderTightens, Doc: "seconds between memory checks"},
	{Key: MetaRefreshEnabled, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "follow <meta http-equiv=\"refresh\"> redirects"},
	{Key: MetaRefreshIgnoreTags, Kind: KindList, Default: []any{}, Access: SpiderSets, Doc: "tags (such as noscript) whose meta refresh is ignored"},
	{Key: MetaRefreshMaxDelay, Kind: KindDuration, Default: 100.0, Access: SpiderSets, Doc: "longest meta refresh delay followed"},
	{Key: RandomizeDownloadDelay, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "wait 0.5–1.5 × DOWNLOAD_DELAY"},
	{Key: RedirectEnabled, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "follow HTTP redirects"},
	{Key: RedirectMaxTimes, Kind: KindInt, Default: 20, Range: AtLeast(0), Access: SpiderSets, Doc: "redirects followed per request"},
	{Key: RedirectPriorityAdjust, Kind: KindInt, Default: 2, Access: SpiderSets, Doc: "priority of a redirected request relative to the original"},
	{Key: RefererEnabled, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "set the Referer header of followed requests"},
	{Key: ReferrerPolicy, Kind: KindString, Default: "scrapy-default", Access: SpiderSets, Doc: "Referer policy: no-referrer, same-origin, origin, strict-origin, unsafe-url, ..."},
	{Key: RetryEnabled, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "retry failed downloads"},
	{Key: RetryBackoffBase, Kind: KindDuration, Default: 1.0, Access: SpiderSets, Doc: "seconds before the first retry, doubled for each further one (±50% jitter)"},
	{Key: RetryBackoffMax, Kind: KindDuration, Default: 60.0, Access: SpiderSets, Doc: "longest wait before a retry, Retry-After included"},
	{Key: RetryHTTPCodes, Kind: KindList, Default: []any{500, 502, 503, 504, 522, 524, 408, 429}, Access: SpiderSets, Doc: "statuses that are retried"},
	{Key: RetryTimes, Kind: KindInt, Default: 2, Range: AtLeast(0), Access: SpiderSets, Doc: "retries per request, after the first try"},
	{Key: RobotsTxtCrawlDelayMax, Kind: KindDuration, Default: 60.0, Access: SpiderSets, Doc: "longest robots.txt Crawl-delay (or Request-rate interval) honoured"},
	{Key: RobotsTxtObey, Kind: KindBool, Default: true, Access: SpiderSets, Doc: "obey robots.txt"},
	{Key: RobotsTxtUserAgent, Kind: KindString, Default: "", Access: SpiderSets, Doc: "user agent matched against robots.txt groups (empty: the product tokens of the User-Agent header or USER_AGENT)"},
	{Key: SlotBy, Kind: KindString, Default: "host", Choices: []string{"host", "ip"}, Access: SpiderSets, Doc: "what a download slot stands for: host (the host name, or meta.downloadSlot) or ip (the server's IP address once the DNS cache knows it, so host names of one machine share its politeness)"},
	{Key: ShutdownTimeout, Kind: KindDuration, Default: 30.0, Access: SpiderTightens, ZeroIsNoLimit: true, Doc: "seconds a graceful stop (the first Ctrl-C or SIGTERM, a CLOSESPIDER_* limit) waits for downloads in flight before aborting them (0: no limit)"},
	{Key: SchedulerMemoryQueue, Kind: KindString, Default: "lifo", Choices: []string{"lifo", "fifo"}, Access: SpiderSets, Doc: "order within one priority: lifo (depth-first, as Scrapy) or fifo"},
	// Access: 0 would hold every request in memory.
	{Key: SchedulerMemoryMax, Kind: KindInt, Default: 100000, Range: AtLeast(0), Access: SpiderTightens, ZeroIsNoLimit: true, Doc: "requests the scheduler holds in memory (or 10× as many fingerprints) before it spills its queue and seen-set to a temporary store under TMPDIR (0: never)"},
	{Key: DownloaderMiddlewares, Kind: KindMap, Default: map[string]any{}, Access: SpiderSets, Doc: "built-in downloader middleware name → order number, or null to disable it"},
	{Key: SpiderMiddlewares, Kind: KindMap, Default: map[string]any{}, Access: SpiderSets, Doc: "built-in spider middleware name → order number, or null to disable it"},
	{Key: Thresholds, Kind: KindMap, Default: map[string]any{}, Access: SpiderSets, Doc: "stat name → condition such as \">= 100\", checked at the end (exit code 99 when one fails)"},
	{Key: URLLengthLimit, Kind: KindInt, Default: 2083, Range: AtLeast(0), Access: SpiderSets, Doc: "longest URL followed"},
	{Key: UserAgent, Kind: KindString, Default: "jscrawl/" + Version + " (+https://github.com/jscrawl/jscrawl)", Access: SpiderSets, Doc: "User-Agent header"},
	{Key: ReplayFallback, Kind: KindBool, Default: false, Access: SpiderSets, Doc: "with REPLAY_FILES, download a request the archives lack instead of failing it with NotInArchive (--replay-fallback)"},
	{Key: ReplayFiles, Kind: KindList, Default: []any{}, Access: SpiderPath, Flag: "--replay FILE", Doc: "WARC files that serve every http(s) download instead of the network (--replay; a rotated file is read with its -00001, ... parts)"},
	{Key: WARCFile, Kind: KindString, Default: "", Access: SpiderPath, Flag: "--warc FILE", Doc: "WARC file to record every http(s) download to, a request and a response record each (--warc; a name ending .gz gzips each record; empty: none)"},
	{Key: WARCErrors, Kind: KindString, Default: "stop", Choices: []string{"stop", "ignore"}, Access: SpiderSets, Doc: "a WARC file that cannot be written (a full disk): stop closes the spider (finish_reason warc_error, exit code 1), ignore goes on without recording"},
	{Key: WARCMaxSize, Kind: KindInt, Default: 1 << 30, Range: AtLeast(0), Access: SpiderSets, Doc: "bytes of a WARC file on disk before the next one starts (crawl-00001.warc.gz, ...; 0: no limit)"},
}

// defIndex finds the entry of Defs by key.
var defIndex = func() map[string]*Def {
	m := make(map[string]*Def, len(Defs))
	for i := range Defs {
		m[Defs[i].Key] = &Defs[i]
	}
	return m
}()

// Lookup returns the entry of Defs for key, and false for a key jscrawl does not know.
func Lookup(key string) (Def, bool) {
	if d, ok := defIndex[key]; ok {
		return *d, true
	}
	return Def{}, false
}

// Default returns key's default (Defs), or nil for an undeclared key.
func Default(key string) any {
	if d, ok := defIndex[key]; ok {
		return d.Default
	}
	return nil
}

// ValueRange returns the range d's values must lie in, if they have one: d.Range, or
// [0, ∞) for a number of seconds without one.
func (d Def) ValueRange() (Range, bool) {
	switch {
	case d.Range.bounded():
		return d.Range, true
	case d.Kind == KindDuration:
		return AtLeast(0), true
	}
	return Range{}, false
}

// RangeOf returns the range of key's values, if it has one (Def.ValueRange); an unknown
// key has none.
func RangeOf(key string) (Range, bool) {
	if d, ok := defIndex[key]; ok {
		return d.ValueRange()
	}
	return Range{}, false
}

// Nearest returns the known setting closest to an unknown key, for a "did you mean"
// hint: the one at the smallest edit distance (letters swapped, missing, added or changed,
// ignoring case), if that distance is at most 2, else "".
func Nearest(key string) string {
	best, bestD := "", 3
	k := strings.ToUpper(key)
	for _, d := range Defs {
		if dist := editDistance(k, d.Key); dist < bestD {
			best, bestD = d.Key, dist
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: insertions,
// deletions, substitutions and transpositions of adjacent bytes.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
