package types

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting keys, verbatim from Scrapy where Scrapy has them.
const (
	BotName                     = "BOT_NAME"
	BrowserConcurrency          = "BROWSER_CONCURRENCY"
	BrowserExecutable           = "BROWSER_EXECUTABLE"
	BrowserPageReuse            = "BROWSER_PAGE_REUSE"
	BrowserTimeout              = "BROWSER_TIMEOUT"
	CloseSpiderItemCount        = "CLOSESPIDER_ITEMCOUNT"
	CloseSpiderPageCount        = "CLOSESPIDER_PAGECOUNT"
	CloseSpiderTimeout          = "CLOSESPIDER_TIMEOUT"
	CloseSpiderErrorCount       = "CLOSESPIDER_ERRORCOUNT"
	CookiesDebug                = "COOKIES_DEBUG"
	CookiesEnabled              = "COOKIES_ENABLED"
	ConcurrentItems             = "CONCURRENT_ITEMS"
	ConcurrentRequests          = "CONCURRENT_REQUESTS"
	ConcurrentRequestsPerDomain = "CONCURRENT_REQUESTS_PER_DOMAIN"
	DefaultRequestHeaders       = "DEFAULT_REQUEST_HEADERS"
	DepthLimit                  = "DEPTH_LIMIT"
	DepthPriority               = "DEPTH_PRIORITY"
	DepthStatsVerbose           = "DEPTH_STATS_VERBOSE"
	DNSCacheEnabled             = "DNSCACHE_ENABLED"
	DNSCacheSize                = "DNSCACHE_SIZE"
	DNSTimeout                  = "DNS_TIMEOUT"
	DownloadDelay               = "DOWNLOAD_DELAY"
	DownloadHandlers            = "DOWNLOAD_HANDLERS"
	DownloadMaxSize             = "DOWNLOAD_MAXSIZE"
	DownloadMemoryBudget        = "DOWNLOAD_MEMORY_BUDGET"
	DownloadSchemes             = "DOWNLOAD_SCHEMES"
	DownloadTimeout             = "DOWNLOAD_TIMEOUT"
	DownloadVerifyTLS           = "DOWNLOAD_VERIFY_TLS"
	DownloadWarnSize            = "DOWNLOAD_WARNSIZE"
	DupeFilterDebug             = "DUPEFILTER_DEBUG"
	FeedErrors                  = "FEED_ERRORS"
	FeedExportBatchItemCount    = "FEED_EXPORT_BATCH_ITEM_COUNT"
	Feeds                       = "FEEDS"
	HTTPCacheAlwaysStore        = "HTTPCACHE_ALWAYS_STORE"
	HTTPCacheDir                = "HTTPCACHE_DIR"
	HTTPCacheEnabled            = "HTTPCACHE_ENABLED"
	HTTPCacheExpirationSecs     = "HTTPCACHE_EXPIRATION_SECS"
	HTTPCacheIgnoreHTTPCodes    = "HTTPCACHE_IGNORE_HTTP_CODES"
	HTTPCacheIgnoreMissing      = "HTTPCACHE_IGNORE_MISSING"
	HTTPCacheIgnoreSchemes      = "HTTPCACHE_IGNORE_SCHEMES"
	HTTPCachePolicy             = "HTTPCACHE_POLICY"
	HTTPErrorAllowAll           = "HTTPERROR_ALLOW_ALL"
	HTTPErrorAllowedCodes       = "HTTPERROR_ALLOWED_CODES"
	HTTPAuthDomain              = "HTTP_AUTH_DOMAIN"
	HTTPPass                    = "HTTP_PASS"
	HTTPProxyEnabled            = "HTTPPROXY_ENABLED"
	HTTPImpersonate             = "HTTP_IMPERSONATE"
	ProxyList                   = "PROXY_LIST"
	ProxyRotation               = "PROXY_ROTATION"
	ProxyBenchDelay             = "PROXY_BENCH_DELAY"
	ProxyBenchMaxDelay          = "PROXY_BENCH_MAX_DELAY"
	SessionPoolEnabled          = "SESSION_POOL_ENABLED"
	SessionPoolSize             = "SESSION_POOL_SIZE"
	SessionMaxUsage             = "SESSION_MAX_USAGE"
	SessionMaxErrors            = "SESSION_MAX_ERRORS"
	SessionBlockedStatusCodes   = "SESSION_BLOCKED_STATUS_CODES"
	SessionMaxRotations         = "SESSION_MAX_ROTATIONS"
	HTTPUser                    = "HTTP_USER"
	CrawlID                     = "CRAWL_ID"
	Frontier                    = "FRONTIER"
	FrontierLeaseTimeout        = "FRONTIER_LEASE_TIMEOUT"
	FrontierRetryTimeout        = "FRONTIER_RETRY_TIMEOUT"
	JSCallbackTimeout           = "JS_CALLBACK_TIMEOUT"
	JSONMaxDepth                = "JSON_MAX_DEPTH"
	CallbackTimeout             = "CALLBACK_TIMEOUT"
	JSMaxAllocationMB           = "JS_MAX_ALLOCATION_MB"
	GCHeadroomMB                = "GC_HEADROOM_MB"
	GCHeadroomPercent           = "GC_HEADROOM_PERCENT"
	JSVMs                       = "JS_VMS"
	JobDir                      = "JOBDIR"
	JobDirCommitInterval        = "JOBDIR_COMMIT_INTERVAL"
	LogFile                     = "LOG_FILE"
	LogFormat                   = "LOG_FORMAT"
	LogLevel                    = "LOG_LEVEL"
	LogStatsInterval            = "LOGSTATS_INTERVAL"
	MemUsageEnabled             = "MEMUSAGE_ENABLED"
	MemUsageLimitMB             = "MEMUSAGE_LIMIT_MB"
	MemUsageWarningMB           = "MEMUSAGE_WARNING_MB"
	MemUsageCheckInterval       = "MEMUSAGE_CHECK_INTERVAL_SECONDS"
	MetaRefreshEnabled          = "METAREFRESH_ENABLED"
	MetaRefreshIgnoreTags       = "METAREFRESH_IGNORE_TAGS"
	MetaRefreshMaxDelay         = "METAREFRESH_MAXDELAY"
	RandomizeDownloadDelay      = "RANDOMIZE_DOWNLOAD_DELAY"
	RedirectEnabled             = "REDIRECT_ENABLED"
	RedirectMaxTimes            = "REDIRECT_MAX_TIMES"
	RedirectPriorityAdjust      = "REDIRECT_PRIORITY_ADJUST"
	RefererEnabled              = "REFERER_ENABLED"
	ReferrerPolicy              = "REFERRER_POLICY"
	RetryEnabled                = "RETRY_ENABLED"
	RetryHTTPCodes              = "RETRY_HTTP_CODES"
	RetryTimes                  = "RETRY_TIMES"
	RobotsTxtObey               = "ROBOTSTXT_OBEY"
	ShutdownTimeout             = "SHUTDOWN_TIMEOUT"
	SchedulerMemoryQueue        = "SCHEDULER_MEMORY_QUEUE"
	SchedulerMemoryMax          = "SCHEDULER_MEMORY_MAX"
	DownloaderMiddlewares       = "DOWNLOADER_MIDDLEWARES"
	SpiderMiddlewares           = "SPIDER_MIDDLEWARES"
	Thresholds                  = "THRESHOLDS"
	URLLengthLimit              = "URLLENGTH_LIMIT"
	UserAgent                   = "USER_AGENT"
)

// Setting keys of politeness: download slots, AutoThrottle, robots.txt and retries.
const (
	AutoThrottleDebug             = "AUTOTHROTTLE_DEBUG"
	AutoThrottleEnabled           = "AUTOTHROTTLE_ENABLED"
	AutoThrottleMaxDelay          = "AUTOTHROTTLE_MAX_DELAY"
	AutoThrottleStartDelay        = "AUTOTHROTTLE_START_DELAY"
	AutoThrottleTargetConcurrency = "AUTOTHROTTLE_TARGET_CONCURRENCY"
	ConcurrentRequestsPerIP       = "CONCURRENT_REQUESTS_PER_IP"
	DownloadSlots                 = "DOWNLOAD_SLOTS"
	RetryBackoffBase              = "RETRY_BACKOFF_BASE"
	RetryBackoffMax               = "RETRY_BACKOFF_MAX"
	RobotsTxtCrawlDelayMax        = "ROBOTSTXT_CRAWL_DELAY_MAX"
	RobotsTxtUserAgent            = "ROBOTSTXT_USER_AGENT"
	SlotBy                        = "SLOT_BY"
)

// Setting keys of the S3 feed storage (s3://bucket/key feed URIs), Scrapy's names. Unset,
// the standard AWS environment variables and shared config files apply.
const (
	AWSAccessKeyID     = "AWS_ACCESS_KEY_ID"
	AWSSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
	AWSSessionToken    = "AWS_SESSION_TOKEN"
	AWSEndpointURL     = "AWS_ENDPOINT_URL"
	AWSRegionName      = "AWS_REGION_NAME"
)

// Setting keys of record and replay (run --warc, --replay).
const (
	ReplayFallback = "REPLAY_FALLBACK"
	ReplayFiles    = "REPLAY_FILES"
	WARCErrors     = "WARC_ERRORS"
	WARCFile       = "WARC_FILE"
	WARCMaxSize    = "WARC_MAX_SIZE"
)

// Version is jscrawl's version, used in the default USER_AGENT.
const Version = "0.1.0"

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

// Def declares a known setting: its key, kind, default value and a one-line description.
type Def struct {
	Key     string
	Kind    Kind
	Default any
	Doc     string
}

// Defs lists every setting jscrawl knows, with Scrapy's defaults where Scrapy has the key.
var Defs = []Def{
	{AutoThrottleDebug, KindBool, false, "log every AutoThrottle delay change"},
	{AutoThrottleEnabled, KindBool, false, "adapt each slot's delay to the server's latency"},
	{AutoThrottleMaxDelay, KindDuration, 60.0, "highest delay AutoThrottle sets"},
	{AutoThrottleStartDelay, KindDuration, 5.0, "AutoThrottle's first delay per slot"},
	{AutoThrottleTargetConcurrency, KindFloat, 1.0, "downloads AutoThrottle aims to have in flight per slot"},
	{AWSAccessKeyID, KindString, "", "access key of s3:// feeds (default: the AWS environment variables and config files)"},
	{AWSEndpointURL, KindString, "", "endpoint of s3:// feeds, for an S3-compatible server (an IP address gets path-style addressing)"},
	{AWSRegionName, KindString, "", "region of s3:// feeds (default: AWS_REGION, the AWS config, else us-east-1)"},
	{AWSSecretAccessKey, KindString, "", "secret key of s3:// feeds"},
	{AWSSessionToken, KindString, "", "session token of s3:// feeds (temporary credentials)"},
	{BotName, KindString, "jscrawl", "the bot's name"},
	{BrowserConcurrency, KindInt, 4, "pages Chromium renders at once for browser requests (open pages count)"},
	{BrowserExecutable, KindString, "", "the Chromium binary for browser requests (default: chromium, chromium-browser or google-chrome on PATH)"},
	{BrowserPageReuse, KindInt, 100, "browser requests one tab renders one after another, cleared between them, before a new tab and incognito context replace it (1: a new one for every request)"},
	{BrowserTimeout, KindDuration, 30.0, "seconds a browser request may take to load (its timeout option overrides it)"},
	{CloseSpiderItemCount, KindInt, 0, "close the spider after this many items (0: never)"},
	{CloseSpiderPageCount, KindInt, 0, "close the spider after this many responses (0: never)"},
	{CloseSpiderTimeout, KindDuration, 0.0, "close the spider after this many seconds (0: never)"},
	{CloseSpiderErrorCount, KindInt, 0, "close the spider after this many errors (0: never)"},
	{CookiesDebug, KindBool, false, "log the cookies sent and received (DEBUG)"},
	{CookiesEnabled, KindBool, true, "keep cookies in a cookie jar per spider (meta.cookiejar: another jar)"},
	{ConcurrentItems, KindInt, 100, "items processed by the pipelines at once"},
	{ConcurrentRequests, KindInt, 16, "downloads at once, over all domains"},
	{ConcurrentRequestsPerDomain, KindInt, 8, "downloads at once per download slot (host)"},
	{ConcurrentRequestsPerIP, KindInt, 0, "downloads at once per server IP address: above 0, download slots are per IP (as SLOT_BY=ip) and this replaces CONCURRENT_REQUESTS_PER_DOMAIN as their concurrency (0: SLOT_BY decides)"},
	{DefaultRequestHeaders, KindMap, map[string]any{
		"Accept":          "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"Accept-Language": "en",
	}, "headers added to every request that lacks them"},
	{DepthLimit, KindInt, 0, "maximum depth of a followed request (0: no limit)"},
	{DepthPriority, KindInt, 0, "priority adjustment per depth level"},
	{DepthStatsVerbose, KindBool, false, "count requests per depth (request_depth_count/N)"},
	{DNSCacheEnabled, KindBool, true, "keep the addresses of resolved host names in memory, shared by all downloads (false: every new connection looks its host up)"},
	{DNSCacheSize, KindInt, 10000, "host names the DNS cache holds; the least recently used goes first"},
	{DNSTimeout, KindDuration, 60.0, "seconds one DNS lookup may take before the download fails with DNSLookupError"},
	{DownloadDelay, KindDuration, 0.0, "seconds between downloads from the same slot"},
	{DownloadHandlers, KindMap, map[string]any{}, "URL scheme → download handler name (HTTPDownloadHandler, FileDownloadHandler, DataURIDownloadHandler), or null to disable the scheme"},
	{DownloadMaxSize, KindInt, 1 << 30, "largest response body in bytes (0: no limit)"},
	{DownloadMemoryBudget, KindInt, 512 << 20, "bytes of response bodies received at once; downloads wait for room (0: no limit)"},
	{DownloadSchemes, KindList, []any{"http", "https"}, "URL schemes a spider may request"},
	{DownloadSlots, KindMap, map[string]any{}, "host glob → {concurrency, delay, randomizeDelay} for matching slots"},
	{DownloadTimeout, KindDuration, 180.0, "seconds a download may take in all"},
	{DownloadVerifyTLS, KindBool, true, "verify TLS certificates (false: accept any)"},
	{DownloadWarnSize, KindInt, 32 << 20, "response size in bytes that logs a warning (0: never)"},
	{DupeFilterDebug, KindBool, false, "log every filtered duplicate, not just the first"},
	{FeedErrors, KindString, "stop", "a feed that cannot be written (a full disk): stop closes the spider (finish_reason feed_error, exit code 1), ignore leaves the feed out and goes on"},
	{FeedExportBatchItemCount, KindInt, 0, "batchItemCount of every file or S3 feed that sets none (0: one file)"},
	{Feeds, KindMap, map[string]any{}, "feed URI → {format, overwrite, fields, ...}"},
	{HTTPCacheAlwaysStore, KindBool, false, "rfc2616 policy: store responses even without a cache directive"},
	{HTTPCacheDir, KindString, ".jscrawl/httpcache", "HTTP cache folder, relative to the working folder"},
	{HTTPCacheEnabled, KindBool, false, "cache responses on disk and serve them again (HttpCacheMiddleware)"},
	{HTTPCacheExpirationSecs, KindInt, 0, "seconds a cached response stays fresh (0: forever)"},
	{HTTPCacheIgnoreHTTPCodes, KindList, []any{}, "statuses never cached"},
	{HTTPCacheIgnoreMissing, KindBool, false, "ignore requests that are not cached instead of downloading them"},
	{HTTPCacheIgnoreSchemes, KindList, []any{"file"}, "URL schemes never cached"},
	{HTTPCachePolicy, KindString, "dummy", "dummy (cache everything) or rfc2616 (HTTP caching rules, RFC 9111)"},
	{HTTPErrorAllowAll, KindBool, false, "pass responses of every status to callbacks"},
	{HTTPErrorAllowedCodes, KindList, []any{}, "non-2xx statuses passed to callbacks"},
	{HTTPAuthDomain, KindString, nil, "domain (and subdomains) that gets HTTP_USER's credentials; null: the first request's, \"\": every domain"},
	{HTTPPass, KindString, "", "HTTP Basic auth password"},
	{HTTPProxyEnabled, KindBool, true, "use meta.proxy, PROXY_LIST and the http_proxy, https_proxy and no_proxy environment variables"},
	{HTTPImpersonate, KindString, "", "present a browser on http(s) downloads: its TLS ClientHello, HTTP/2 settings, User-Agent and navigation headers in its order: a built-in profile (chrome, firefox, safari, safari_ios, opera, or a version such as chrome_131), a profile.json from `jscrawl fingerprint capture`, or a comma-separated list of them (sessions take them in turn; \"\": Go's own client)"},
	{ProxyList, KindList, []any{}, "proxies downloads rotate over (http://, https://, socks5://, socks5h://, with credentials), or the path of a file with one a line; meta.proxy still wins for one request"},
	{ProxyRotation, KindString, "round_robin", "how a download picks from PROXY_LIST: round_robin, random, or per_session (each session keeps one proxy; round_robin without SESSION_POOL_ENABLED)"},
	{ProxyBenchDelay, KindDuration, 30.0, "seconds a proxy of PROXY_LIST that failed to connect or refused a download stays benched the first time, doubled each further time in a row"},
	{ProxyBenchMaxDelay, KindDuration, 600.0, "longest a benched proxy stays out"},
	{SessionPoolEnabled, KindBool, false, "download through a pool of sessions, each with its own cookie jar, proxy and fingerprint profile, retired when a site blocks it"},
	{SessionPoolSize, KindInt, 1000, "sessions the pool holds at once (Crawlee: maxPoolSize)"},
	{SessionMaxUsage, KindInt, 50, "downloads one session serves before it retires (0: no limit; Crawlee: maxUsageCount)"},
	{SessionMaxErrors, KindInt, 3, "errors a session may collect before it retires: a connection error or timeout adds 1, a success takes 0.5 off (Crawlee: maxErrorScore, errorScoreDecrement)"},
	{SessionBlockedStatusCodes, KindList, []any{401, 403, 429}, "statuses that mean a site blocked the session: it retires and the request runs again on another one"},
	{SessionMaxRotations, KindInt, 10, "times one request moves to another session after a block before it fails with SessionBlockedError (Crawlee: maxSessionRotations)"},
	{HTTPUser, KindString, "", "HTTP Basic auth user name"},
	{CrawlID, KindString, "", "name of a shared crawl (--crawl-id): every Redis key of it starts with jscrawl:<CRAWL_ID>: (empty: the spider's name)"},
	{Frontier, KindString, "", "redis://[:PASSWORD@]HOST:PORT/DB (rediss:// for TLS) of a frontier that many workers share (--frontier; empty: none)"},
	{FrontierLeaseTimeout, KindDuration, 60.0, "seconds a worker's lease on a request of a shared frontier lasts unless renewed; an expired lease goes to another worker"},
	{FrontierRetryTimeout, KindDuration, 300.0, "seconds a worker retries an unreachable Redis frontier before it exits with an error"},
	{JSCallbackTimeout, KindDuration, 60.0, "seconds a callback may run synchronously before it is interrupted"},
	{CallbackTimeout, KindDuration, 180.0, "seconds of wall-clock time a callback, errback, start() step, pipeline call or JS middleware hook may take, awaited time included, before it fails with a TimeoutError (Crawlee: requestHandlerTimeoutSecs; 0: no limit)"},
	{JSMaxAllocationMB, KindInt, 512, "MiB one call of an allocating built-in (repeat, padStart, padEnd, join, fill, new ArrayBuffer, typed arrays) may ask for; past it the call throws a RangeError"},
	{GCHeadroomMB, KindInt, 32, "after each Go garbage collection, the soft memory limit becomes the live heap and the runtime's other memory plus the larger of this many MiB and GC_HEADROOM_PERCENT of the live heap, so garbage cannot pile up past it (0: a fixed limit, twice DOWNLOAD_MEMORY_BUDGET + 512 MiB; GOMEMLIMIT overrides both)"},
	{GCHeadroomPercent, KindInt, 50, "percent of the live heap the heap may grow by between collections, when above GC_HEADROOM_MB"},
	{JSONMaxDepth, KindInt, 1000, "deepest nesting of arrays and objects that JSON.parse, response.json() and JSON.stringify accept (1 to 10000); deeper text is a SyntaxError, a deeper value a RangeError"},
	{JSVMs, KindInt, 1, "JS VMs, each with its own spider instance"},
	{JobDir, KindString, "", "folder of a job that survives stops and crashes and resumes where it stopped (--jobdir; empty: none)"},
	{JobDirCommitInterval, KindDuration, 1.0, "seconds between the commits of a job's progress (one fsync each)"},
	{LogFile, KindString, "", "write the log to this file only (empty: stderr)"},
	{LogFormat, KindString, "text", "text (Scrapy's lines) or json (one object per record)"},
	{LogLevel, KindString, "INFO", "DEBUG, INFO, WARNING or ERROR"},
	{LogStatsInterval, KindDuration, 60.0, "seconds between progress lines"},
	{MemUsageEnabled, KindBool, true, "watch the process's memory (resident set size): MEMUSAGE_WARNING_MB and MEMUSAGE_LIMIT_MB"},
	{MemUsageLimitMB, KindInt, 0, "MiB of process memory at which running callbacks are interrupted and the spider closes with memusage_exceeded, exit 1 (0: no limit)"},
	{MemUsageWarningMB, KindInt, 0, "MiB of process memory that logs one warning (0: none)"},
	{MemUsageCheckInterval, KindDuration, 1.0, "seconds between memory checks"},
	{MetaRefreshEnabled, KindBool, true, "follow <meta http-equiv=\"refresh\"> redirects"},
	{MetaRefreshIgnoreTags, KindList, []any{}, "tags (such as noscript) whose meta refresh is ignored"},
	{MetaRefreshMaxDelay, KindDuration, 100.0, "longest meta refresh delay followed"},
	{RandomizeDownloadDelay, KindBool, true, "wait 0.5–1.5 × DOWNLOAD_DELAY"},
	{RedirectEnabled, KindBool, true, "follow HTTP redirects"},
	{RedirectMaxTimes, KindInt, 20, "redirects followed per request"},
	{RedirectPriorityAdjust, KindInt, 2, "priority of a redirected request relative to the original"},
	{RefererEnabled, KindBool, true, "set the Referer header of followed requests"},
	{ReferrerPolicy, KindString, "scrapy-default", "Referer policy: no-referrer, same-origin, origin, strict-origin, unsafe-url, ..."},
	{RetryEnabled, KindBool, true, "retry failed downloads"},
	{RetryBackoffBase, KindDuration, 1.0, "seconds before the first retry, doubled for each further one (±50% jitter)"},
	{RetryBackoffMax, KindDuration, 60.0, "longest wait before a retry, Retry-After included"},
	{RetryHTTPCodes, KindList, []any{500, 502, 503, 504, 522, 524, 408, 429}, "statuses that are retried"},
	{RetryTimes, KindInt, 2, "retries per request, after the first try"},
	{RobotsTxtCrawlDelayMax, KindDuration, 60.0, "longest robots.txt Crawl-delay (or Request-rate interval) honoured"},
	{RobotsTxtObey, KindBool, true, "obey robots.txt"},
	{RobotsTxtUserAgent, KindString, "", "user agent matched against robots.txt groups (empty: the product tokens of the User-Agent header or USER_AGENT)"},
	{SlotBy, KindString, "host", "what a download slot stands for: host (the host name, or meta.downloadSlot) or ip (the server's IP address once the DNS cache knows it, so host names of one machine share its politeness)"},
	{ShutdownTimeout, KindDuration, 30.0, "seconds a graceful stop (the first Ctrl-C or SIGTERM, a CLOSESPIDER_* limit) waits for downloads in flight before aborting them (0: no limit)"},
	{SchedulerMemoryQueue, KindString, "lifo", "order within one priority: lifo (depth-first, as Scrapy) or fifo"},
	{SchedulerMemoryMax, KindInt, 100000, "requests the scheduler holds in memory (or 10× as many fingerprints) before it spills its queue and seen-set to a temporary store under TMPDIR (0: never)"},
	{DownloaderMiddlewares, KindMap, map[string]any{}, "built-in downloader middleware name → order number, or null to disable it"},
	{SpiderMiddlewares, KindMap, map[string]any{}, "built-in spider middleware name → order number, or null to disable it"},
	{Thresholds, KindMap, map[string]any{}, "stat name → condition such as \">= 100\", checked at the end (exit code 99 when one fails)"},
	{URLLengthLimit, KindInt, 2083, "longest URL followed"},
	{UserAgent, KindString, "jscrawl/" + Version + " (+https://github.com/jscrawl/jscrawl)", "User-Agent header"},
	{ReplayFallback, KindBool, false, "with REPLAY_FILES, download a request the archives lack instead of failing it with NotInArchive (--replay-fallback)"},
	{ReplayFiles, KindList, []any{}, "WARC files that serve every http(s) download instead of the network (--replay; a rotated file is read with its -00001, ... parts)"},
	{WARCFile, KindString, "", "WARC file to record every http(s) download to, a request and a response record each (--warc; a name ending .gz gzips each record; empty: none)"},
	{WARCErrors, KindString, "stop", "a WARC file that cannot be written (a full disk): stop closes the spider (finish_reason warc_error, exit code 1), ignore goes on without recording"},
	{WARCMaxSize, KindInt, 1 << 30, "bytes of a WARC file on disk before the next one starts (crawl-00001.warc.gz, ...; 0: no limit)"},
}

// Range is the interval a numeric setting's value must lie in; Set refuses a value
// outside it with an error naming the range.
type Range struct {
	Min, Max       float64
	HasMin, HasMax bool
	MinExclusive   bool // the value must be above Min, not equal to it
}

// AtLeast is the range [min, ∞).
func AtLeast(min float64) Range { return Range{Min: min, HasMin: true} }

// Between is the range [min, max].
func Between(min, max float64) Range { return Range{Min: min, Max: max, HasMin: true, HasMax: true} }

// Above is the range (min, ∞).
func Above(min float64) Range { return Range{Min: min, HasMin: true, MinExclusive: true} }

// Contains reports whether f lies in r.
func (r Range) Contains(f float64) bool {
	switch {
	case r.HasMin && r.MinExclusive && f <= r.Min, r.HasMin && f < r.Min, r.HasMax && f > r.Max:
		return false
	}
	return true
}

// String describes r as a requirement: "must be >= 1", "must be > 0", "must be <= 10" or
// "must be between 0 and 1".
func (r Range) String() string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch {
	case r.HasMin && r.HasMax && !r.MinExclusive:
		return "must be between " + num(r.Min) + " and " + num(r.Max)
	case r.HasMin && r.HasMax:
		return "must be > " + num(r.Min) + " and <= " + num(r.Max)
	case r.HasMin && r.MinExclusive:
		return "must be > " + num(r.Min)
	case r.HasMin:
		return "must be >= " + num(r.Min)
	case r.HasMax:
		return "must be <= " + num(r.Max)
	}
	return "any number"
}

// MaxJSONDepth is JSON_MAX_DEPTH's largest value: deeper, goja's recursive JSON code
// (whose JSON.stringify cycle check is quadratic in the depth) is what the setting keeps
// away from, and encoding/json refuses such feeds anyway.
const MaxJSONDepth = 10000

// Ranges holds the range of each numeric setting that has one; numbers of seconds
// (KindDuration) not listed must be >= 0. Keys missing here take any value of their kind
// (DEPTH_PRIORITY and REDIRECT_PRIORITY_ADJUST may be negative).
var Ranges = map[string]Range{
	AutoThrottleTargetConcurrency: Above(0),
	CloseSpiderItemCount:          AtLeast(0),
	FeedExportBatchItemCount:      AtLeast(0),
	CloseSpiderPageCount:          AtLeast(0),
	CloseSpiderErrorCount:         AtLeast(0),
	ConcurrentItems:               AtLeast(1),
	ConcurrentRequests:            AtLeast(1),
	ConcurrentRequestsPerDomain:   AtLeast(1),
	ConcurrentRequestsPerIP:       AtLeast(0),
	DepthLimit:                    AtLeast(0),
	DNSCacheSize:                  AtLeast(1),
	DNSTimeout:                    Above(0),
	DownloadMaxSize:               AtLeast(0),
	DownloadMemoryBudget:          AtLeast(0),
	DownloadWarnSize:              AtLeast(0),
	HTTPCacheExpirationSecs:       AtLeast(0),
	FrontierLeaseTimeout:          Above(0),
	FrontierRetryTimeout:          Above(0),
	GCHeadroomMB:                  AtLeast(0),
	GCHeadroomPercent:             AtLeast(1),
	JSONMaxDepth:                  Between(1, MaxJSONDepth),
	JSMaxAllocationMB:             AtLeast(1),
	JSVMs:                         AtLeast(1),
	JobDirCommitInterval:          Above(0),
	MemUsageCheckInterval:         Above(0),
	MemUsageLimitMB:               AtLeast(0),
	MemUsageWarningMB:             AtLeast(0),
	ProxyBenchDelay:               AtLeast(0),
	ProxyBenchMaxDelay:            AtLeast(0),
	RedirectMaxTimes:              AtLeast(0),
	RetryTimes:                    AtLeast(0),
	SessionPoolSize:               AtLeast(1),
	SessionMaxUsage:               AtLeast(0),
	SessionMaxErrors:              AtLeast(1),
	SessionMaxRotations:           AtLeast(0),
	SchedulerMemoryMax:            AtLeast(0),
	URLLengthLimit:                AtLeast(0),
	WARCMaxSize:                   AtLeast(0),
}

// Choices lists the values a text setting may take (compared without regard to case);
// Set refuses others. Text settings not listed take any value.
var Choices = map[string][]string{
	FeedErrors:           {"stop", "ignore"},
	WARCErrors:           {"stop", "ignore"},
	HTTPCachePolicy:      {"dummy", "rfc2616", "rfc9111"},
	SchedulerMemoryQueue: {"lifo", "fifo"},
	SlotBy:               {"host", "ip"},
	ProxyRotation:        {"round_robin", "random", "per_session"},
}

// RangeOf returns the range of key's values, if it has one.
func RangeOf(key string, kind Kind) (Range, bool) {
	if r, ok := Ranges[key]; ok {
		return r, true
	}
	if kind == KindDuration {
		return AtLeast(0), true
	}
	return Range{}, false
}

// Priorities of setting sources, as Scrapy's SETTINGS_PRIORITIES.
const (
	PriorityDefault = 0
	PrioritySpider  = 30
	PriorityCmdline = 40
)

type settingValue struct {
	value    any
	priority int
}

// Settings holds the crawl's configuration (Scrapy: Settings). A higher-priority source
// overrides a lower one: defaults < spider customSettings < command line. Build it on one
// goroutine; once the crawl starts it is read-only and safe for concurrent reads.
type Settings struct {
	values map[string]settingValue
	kinds  map[string]Kind
}

// NewSettings returns the defaults of Defs.
func NewSettings() *Settings {
	s := &Settings{values: map[string]settingValue{}, kinds: map[string]Kind{}}
	for _, d := range Defs {
		s.kinds[d.Key] = d.Kind
		s.values[d.Key] = settingValue{d.Default, PriorityDefault}
	}
	return s
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

// Known reports whether key is a declared setting.
func (s *Settings) Known(key string) bool {
	_, ok := s.kinds[key]
	return ok
}

// Set stores v for key unless a higher-priority value is there. A value of the wrong type
// or outside the key's range (RangeOf) is an error naming the key, also when a
// higher-priority value is there. Text values (from -s) are converted to the key's kind; unknown
// keys are stored as given (check Known to warn about them).
func (s *Settings) Set(key string, v any, priority int) error {
	kind := s.kinds[key]
	cv, err := convert(kind, v)
	if err != nil {
		return fmt.Errorf("setting %s: %w", key, err)
	}
	if r, ok := RangeOf(key, kind); ok {
		if f, err := toFloat(cv); err == nil && !r.Contains(f) {
			return fmt.Errorf("setting %s: out of range: %s, got %s", key, r, describe(v))
		}
	}
	if cs, ok := Choices[key]; ok {
		if t, isText := cv.(string); isText && !slices.ContainsFunc(cs, func(c string) bool { return strings.EqualFold(c, t) }) {
			return fmt.Errorf("setting %s: out of range: must be one of %s, got %s", key, strings.Join(cs, ", "), describe(v))
		}
	}
	// Checked even when a higher priority wins: a bad value is refused wherever it is.
	if cur, ok := s.values[key]; ok && cur.priority > priority {
		return nil
	}
	s.values[key] = settingValue{cv, priority}
	return nil
}

// Get returns the raw value of key, or nil.
func (s *Settings) Get(key string) any { return s.values[key].value }

// Priority returns the priority of key's value (Scrapy: Settings.getpriority):
// PriorityDefault for a default, or for a key without a value.
func (s *Settings) Priority(key string) int { return s.values[key].priority }

// Default returns key's default (Defs), or nil for an undeclared key.
func Default(key string) any {
	for _, d := range Defs {
		if d.Key == key {
			return d.Default
		}
	}
	return nil
}

// Int returns an integer setting (0 when unset).
func (s *Settings) Int(key string) int {
	f, _ := toFloat(s.Get(key))
	return int(f)
}

// Float returns a number setting (0 when unset).
func (s *Settings) Float(key string) float64 {
	f, _ := toFloat(s.Get(key))
	return f
}

// Bool returns a boolean setting (false when unset).
func (s *Settings) Bool(key string) bool {
	b, _ := toBool(s.Get(key))
	return b
}

// String returns a text setting ("" when unset).
func (s *Settings) String(key string) string {
	switch v := s.Get(key).(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// Duration returns a seconds setting as a time.Duration.
func (s *Settings) Duration(key string) time.Duration {
	return time.Duration(s.Float(key) * float64(time.Second))
}

// List returns a list setting (nil when unset).
func (s *Settings) List(key string) []any {
	l, _ := s.Get(key).([]any)
	return l
}

// StringList returns a list setting with each element as text.
func (s *Settings) StringList(key string) []string {
	var out []string
	for _, v := range s.List(key) {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// IntList returns a list setting of integers; elements that are not numbers are skipped.
func (s *Settings) IntList(key string) []int {
	var out []int
	for _, v := range s.List(key) {
		if f, err := toFloat(v); err == nil {
			out = append(out, int(f))
		}
	}
	return out
}

// Map returns an object setting (nil when unset).
func (s *Settings) Map(key string) map[string]any {
	m, _ := s.Get(key).(map[string]any)
	return m
}

// Keys returns every key that has a value, sorted.
func (s *Settings) Keys() []string { return slices.Sorted(maps.Keys(s.values)) }

// Clone returns an independent copy (the top-level values are shared).
func (s *Settings) Clone() *Settings {
	return &Settings{values: maps.Clone(s.values), kinds: s.kinds}
}

func convert(kind Kind, v any) (any, error) {
	switch kind {
	case KindInt:
		f, err := toFloat(v)
		if err != nil || f != math.Trunc(f) {
			return nil, fmt.Errorf("want an integer, got %s", describe(v))
		}
		return int(f), nil
	case KindFloat, KindDuration:
		f, err := toFloat(v)
		if err != nil {
			return nil, fmt.Errorf("want a %s, got %s", kind, describe(v))
		}
		return f, nil
	case KindBool:
		b, err := toBool(v)
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %s", describe(v))
		}
		return b, nil
	case KindString:
		switch v := v.(type) {
		case string:
			return v, nil
		case nil: // unset, as the default of HTTP_AUTH_DOMAIN
			return nil, nil
		default:
			return nil, fmt.Errorf("want a string, got %s", describe(v))
		}
	case KindList:
		switch v := v.(type) {
		case []any:
			return v, nil
		case []string:
			out := make([]any, len(v))
			for i, x := range v {
				out[i] = x
			}
			return out, nil
		case string:
			t := strings.TrimSpace(v)
			if strings.HasPrefix(t, "[") {
				var l []any
				if err := json.Unmarshal([]byte(t), &l); err != nil {
					return nil, fmt.Errorf("want a JSON array: %v", err)
				}
				return l, nil
			}
			var out []any
			for _, p := range strings.Split(t, ",") {
				if p = strings.TrimSpace(p); p != "" {
					if n, err := strconv.Atoi(p); err == nil {
						out = append(out, n)
					} else {
						out = append(out, p)
					}
				}
			}
			return out, nil
		default:
			return nil, fmt.Errorf("want a list, got %s", describe(v))
		}
	case KindMap:
		switch v := v.(type) {
		case map[string]any:
			return v, nil
		case string:
			var m map[string]any
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				return nil, fmt.Errorf("want a JSON object: %v", err)
			}
			return m, nil
		default:
			return nil, fmt.Errorf("want an object, got %s", describe(v))
		}
	}
	// KindAny: text that looks like a number or boolean is kept as text; the reader
	// converts it with a typed getter.
	return v, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprintf("%T", v)
		}
		return string(b)
	}
}

func toFloat(v any) (float64, error) {
	switch v := v.(type) {
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case string:
		return strconv.ParseFloat(strings.TrimSpace(v), 64)
	}
	return 0, fmt.Errorf("not a number")
}

func toBool(v any) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case int:
		return v != 0, nil
	case int64:
		return v != 0, nil
	case float64:
		return v != 0, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "yes", "on":
			return true, nil
		case "0", "false", "no", "off", "":
			return false, nil
		}
	}
	return false, fmt.Errorf("not a boolean")
}
