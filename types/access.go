package types

// Access says what a spider's own settings (its customSettings, the settings of its tests
// cases) may do with a setting. The operator (-s KEY=VALUE, the command's flags) may always
// set it. Scrapy has no such rule: its spiders are trusted code, ours are not.
type Access int

// The kinds of access a spider has to a setting.
const (
	// SpiderSets is crawl behaviour (concurrency, delays, retries, middlewares, item
	// options), the spider's as in Scrapy's custom_settings.
	SpiderSets Access = iota
	// OperatorOnly is a setting that names a program, a network service or a credential,
	// or that widens what the crawl reaches: a spider may not set it at all.
	OperatorOnly
	// SpiderPath is a path the crawl writes or reads: a spider may give a relative path
	// that stays inside the working folder once resolved (symlinks included).
	SpiderPath
	// SpiderTightens is a ceiling: a spider may tighten it (a lower limit, a check switched
	// on), never loosen it past its default.
	SpiderTightens
	// SpiderChecked is a setting whose spider values pass a rule of their own
	// (DOWNLOAD_SCHEMES and DOWNLOAD_HANDLERS without the file scheme, FEEDS targets that
	// are paths inside the working folder).
	SpiderChecked
)

// String is the access as `jscrawl settings` and the guide's table show it.
func (a Access) String() string {
	return [...]string{"spider", "operator only", "spider: relative path", "spider: tighten only", "spider: checked"}[a]
}

// Accesses gives every setting of Defs its Access (a test keeps it complete, so a new
// setting cannot be added without saying who may set it). Unknown keys a spider invents for
// its own use are SpiderSets.
var Accesses = map[string]Access{
	AutoThrottleDebug:             SpiderSets,
	AutoThrottleEnabled:           SpiderSets,
	AutoThrottleMaxDelay:          SpiderSets,
	AutoThrottleStartDelay:        SpiderSets,
	AutoThrottleTargetConcurrency: SpiderSets,
	AWSAccessKeyID:                OperatorOnly,
	AWSEndpointURL:                OperatorOnly,
	AWSRegionName:                 OperatorOnly,
	AWSSecretAccessKey:            OperatorOnly,
	AWSSessionToken:               OperatorOnly,
	BotName:                       SpiderSets,
	FeedExportBatchItemCount:      SpiderSets,
	BrowserConcurrency:            SpiderSets,
	BrowserExecutable:             OperatorOnly,
	BrowserPageReuse:              SpiderSets,
	BrowserTimeout:                SpiderSets,
	CloseSpiderItemCount:          SpiderSets,
	CloseSpiderPageCount:          SpiderSets,
	CloseSpiderTimeout:            SpiderSets,
	CloseSpiderErrorCount:         SpiderSets,
	CookiesDebug:                  SpiderSets,
	CookiesEnabled:                SpiderSets,
	ConcurrentItems:               SpiderSets,
	ConcurrentRequests:            SpiderSets,
	ConcurrentRequestsPerDomain:   SpiderSets,
	ConcurrentRequestsPerIP:       SpiderSets,
	CrawlID:                       SpiderSets, // a namespace in the operator's frontier, like the spider's name
	DefaultRequestHeaders:         SpiderSets,
	DepthLimit:                    SpiderSets,
	DepthPriority:                 SpiderSets,
	DepthStatsVerbose:             SpiderSets,
	DNSCacheEnabled:               SpiderSets,
	DNSCacheSize:                  SpiderSets,
	DNSTimeout:                    SpiderSets,
	DownloadDelay:                 SpiderSets,
	DownloadHandlers:              SpiderChecked, // not FileDownloadHandler
	DownloadMaxSize:               SpiderTightens,
	DownloadMemoryBudget:          SpiderTightens,
	DownloadSchemes:               SpiderChecked, // not file
	DownloadSlots:                 SpiderSets,
	DownloadTimeout:               SpiderSets,
	DownloadVerifyTLS:             SpiderSets,
	DownloadWarnSize:              SpiderSets,
	DupeFilterDebug:               SpiderSets,
	FeedErrors:                    SpiderSets,
	Feeds:                         SpiderChecked, // targets are SpiderPath
	Frontier:                      OperatorOnly,
	FrontierLeaseTimeout:          OperatorOnly,
	FrontierRetryTimeout:          OperatorOnly,
	GCHeadroomMB:                  OperatorOnly,
	GCHeadroomPercent:             OperatorOnly,
	HTTPAuthDomain:                OperatorOnly,
	HTTPCacheAlwaysStore:          SpiderSets,
	HTTPCacheDir:                  SpiderPath,
	HTTPCacheEnabled:              SpiderSets,
	HTTPCacheExpirationSecs:       SpiderSets,
	HTTPCacheIgnoreHTTPCodes:      SpiderSets,
	HTTPCacheIgnoreMissing:        SpiderSets,
	HTTPCacheIgnoreSchemes:        SpiderSets,
	HTTPCachePolicy:               SpiderSets,
	HTTPErrorAllowAll:             SpiderSets,
	HTTPErrorAllowedCodes:         SpiderSets,
	HTTPPass:                      OperatorOnly,
	HTTPProxyEnabled:              OperatorOnly,
	HTTPImpersonate:               SpiderPath,   // a profile name, or a profile.json inside the working folder
	ProxyList:                     OperatorOnly, // the operator's proxies and their credentials
	ProxyRotation:                 SpiderSets,
	ProxyBenchDelay:               SpiderSets,
	ProxyBenchMaxDelay:            SpiderSets,
	SessionPoolEnabled:            SpiderSets,
	SessionPoolSize:               SpiderSets,
	SessionMaxUsage:               SpiderSets,
	SessionMaxErrors:              SpiderSets,
	SessionBlockedStatusCodes:     SpiderSets,
	SessionMaxRotations:           SpiderSets,
	HTTPUser:                      OperatorOnly,
	JSCallbackTimeout:             SpiderTightens, // what interrupts a runaway callback
	JSONMaxDepth:                  SpiderTightens, // what keeps goja's recursive JSON code off the Go stack limit
	CallbackTimeout:               SpiderTightens, // what ends a callback that never settles
	JSMaxAllocationMB:             SpiderTightens, // what keeps a built-in from exhausting memory
	JSVMs:                         SpiderSets,
	JobDir:                        SpiderPath,
	JobDirCommitInterval:          SpiderSets,
	LogFile:                       SpiderPath,
	LogFormat:                     SpiderSets,
	LogLevel:                      SpiderSets,
	LogStatsInterval:              SpiderSets,
	MemUsageCheckInterval:         SpiderTightens,
	MemUsageEnabled:               SpiderTightens,
	MemUsageLimitMB:               SpiderTightens,
	MemUsageWarningMB:             SpiderSets,
	MetaRefreshEnabled:            SpiderSets,
	MetaRefreshIgnoreTags:         SpiderSets,
	MetaRefreshMaxDelay:           SpiderSets,
	RandomizeDownloadDelay:        SpiderSets,
	RedirectEnabled:               SpiderSets,
	RedirectMaxTimes:              SpiderSets,
	RedirectPriorityAdjust:        SpiderSets,
	RefererEnabled:                SpiderSets,
	ReferrerPolicy:                SpiderSets,
	ReplayFallback:                SpiderSets,
	ReplayFiles:                   SpiderPath,
	RetryBackoffBase:              SpiderSets,
	RetryBackoffMax:               SpiderSets,
	RetryEnabled:                  SpiderSets,
	RetryHTTPCodes:                SpiderSets,
	RetryTimes:                    SpiderSets,
	RobotsTxtCrawlDelayMax:        SpiderSets,
	RobotsTxtObey:                 SpiderSets,
	RobotsTxtUserAgent:            SpiderSets,
	SchedulerMemoryMax:            SpiderTightens, // 0 would hold every request in memory
	SchedulerMemoryQueue:          SpiderSets,
	ShutdownTimeout:               SpiderTightens,
	SlotBy:                        SpiderSets,
	DownloaderMiddlewares:         SpiderSets,
	SpiderMiddlewares:             SpiderSets,
	Thresholds:                    SpiderSets,
	URLLengthLimit:                SpiderSets,
	UserAgent:                     SpiderSets,
	WARCFile:                      SpiderPath,
	WARCErrors:                    SpiderSets,
	WARCMaxSize:                   SpiderSets,
}

// OperatorWhy says why each OperatorOnly setting is the operator's, for the error that
// refuses it in a spider.
var OperatorWhy = map[string]string{
	AWSAccessKeyID:       "it is a credential",
	AWSEndpointURL:       "it says where the S3 credentials are sent",
	AWSRegionName:        "it belongs to the operator's S3 account, with its credentials",
	AWSSecretAccessKey:   "it is a credential",
	AWSSessionToken:      "it is a credential",
	BrowserExecutable:    "it names a program to start",
	Frontier:             "it names a network service and its password",
	FrontierLeaseTimeout: "it belongs to the shared crawl, the same for every worker",
	FrontierRetryTimeout: "it belongs to the shared crawl, the same for every worker",
	GCHeadroomMB:         "it sizes the process's memory",
	GCHeadroomPercent:    "it sizes the process's memory",
	HTTPAuthDomain:       "it says where HTTP_USER's credentials are sent",
	HTTPPass:             "it is a credential",
	HTTPProxyEnabled:     "it switches the operator's proxies (http_proxy, https_proxy) on or off",
	HTTPUser:             "it is a credential",
	ProxyList:            "it names the operator's proxies and their credentials (a spider's own proxy goes in meta.proxy)",
}

// ZeroIsNoLimit lists the SpiderTightens settings whose 0 means "no limit": a spider may
// set any positive value not above the default there (or any positive value where the
// default is 0), never 0.
var ZeroIsNoLimit = map[string]bool{
	DownloadMaxSize:      true,
	DownloadMemoryBudget: true,
	JSCallbackTimeout:    true,
	CallbackTimeout:      true,
	MemUsageLimitMB:      true,
	SchedulerMemoryMax:   true,
	ShutdownTimeout:      true,
}

// AccessOf returns key's Access: SpiderSets for a key jscrawl does not know.
func AccessOf(key string) Access {
	if a, ok := Accesses[key]; ok {
		return a
	}
	return SpiderSets
}

// OperatorFlags names the command-line flag that sets a setting, where one does, for the
// errors that tell an operator how to pass it.
var OperatorFlags = map[string]string{
	Frontier:    "--frontier URL",
	CrawlID:     "--crawl-id NAME",
	JobDir:      "--jobdir DIR",
	WARCFile:    "--warc FILE",
	ReplayFiles: "--replay FILE",
	Feeds:       "-o FILE",
}
