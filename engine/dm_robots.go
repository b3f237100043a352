package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine/robotstxt"
	"github.com/jscrawl/jscrawl/types"
)

// robotsErrorTTL is how long the verdict on a robots.txt that answered 5xx (disallow all)
// or could not be fetched (allow all) stands before it is fetched again.
const robotsErrorTTL = 60 * time.Second

// RobotsTxtMiddleware drops requests that the site's robots.txt disallows for our user
// agent (Scrapy: RobotsTxtMiddleware, order 100). It is on with ROBOTSTXT_OBEY.
//
// robots.txt is fetched once per origin (scheme, host and port) through the rest of the
// chain, so slots, retries and the cache apply to it; concurrent requests to the origin
// wait for that one fetch, and the rules stay in memory for the crawl. A 2xx is parsed
// (package robotstxt: RFC 9309 and Google's rules) and the group of the user agent applied:
// the group named in ROBOTSTXT_USER_AGENT, else in the names of the product tokens of the
// request's User-Agent header or USER_AGENT (see robotName). A 4xx allows everything. A 5xx (after
// the RetryMiddleware's retries) disallows everything for a minute, after which robots.txt
// is fetched again. A network error lets requests through for a minute, so each fails (or
// not) with its own error, as Scrapy does, then robots.txt is fetched again.
// The group's Crawl-delay, or the interval its Request-rate asks for when that is longer,
// becomes the slot's minimum delay (SlotDownloader.SetMinDelay), at most
// ROBOTSTXT_CRAWL_DELAY_MAX.
//
// With a RobotsCache (the scheduler of a crawl shared by several processes), one process
// downloads an origin's robots.txt for the whole crawl and the others wait for it and use
// what it got, a failure included, for as long as the process that fetched it would.
//
// A disallowed request fails with an error wrapping ErrIgnoreRequest. meta.dontObeyRobotstxt
// skips the check. Stats: robotstxt/request_count, robotstxt/response_count,
// robotstxt/response_status_count/<code>, robotstxt/exception_count/<Name>,
// robotstxt/forbidden. Safe for concurrent use.
type RobotsTxtMiddleware struct {
	obey          bool
	agent         string // ROBOTSTXT_USER_AGENT or USER_AGENT
	fixedAgent    bool   // agent comes from ROBOTSTXT_USER_AGENT
	crawlDelayMax time.Duration
	errorTTL      time.Duration
	slots         *SlotDownloader
	cache         RobotsCache // nil: this process's own
	stats         *Stats
	logger        *slog.Logger

	mu      sync.Mutex
	origins map[string]*robotsEntry
}

// robotsEntry is the robots.txt of one origin. done is closed when the fetch has ended;
// data and expires are set before, under RobotsTxtMiddleware.mu.
type robotsEntry struct {
	done    chan struct{}
	data    *robotstxt.Robots // nil: the fetch was cancelled
	expires time.Time         // zero: never
}

// NewRobotsTxtMiddleware returns a RobotsTxtMiddleware configured from settings. slots,
// when not nil, receives Crawl-delays.
func NewRobotsTxtMiddleware(settings *types.Settings, stats *Stats, logger *slog.Logger, slots *SlotDownloader) *RobotsTxtMiddleware {
	m := &RobotsTxtMiddleware{
		obey:          settings.Bool(types.RobotsTxtObey),
		agent:         settings.String(types.RobotsTxtUserAgent),
		crawlDelayMax: settings.Duration(types.RobotsTxtCrawlDelayMax),
		errorTTL:      robotsErrorTTL,
		slots:         slots,
		stats:         stats,
		logger:        orDiscard(logger),
		origins:       map[string]*robotsEntry{},
	}
	m.fixedAgent = m.agent != ""
	if !m.fixedAgent {
		m.agent = settings.String(types.UserAgent)
	}
	return m
}

// sharedBy makes m share robots.txt through cache (nil: none), and returns m.
func (m *RobotsTxtMiddleware) sharedBy(cache RobotsCache) *RobotsTxtMiddleware {
	m.cache = cache
	return m
}

// robotName returns the names of the product tokens of a User-Agent value, space-separated,
// for matching robots.txt groups: "jscrawl" from "jscrawl/0.1.0 (+https://...)", "Mozilla
// MyBot" from "Mozilla/5.0 (compatible; MyBot/1.0)". It takes each product ("name/version",
// or a bare name outside comments) and each "name/version" inside a comment, and leaves out
// the rest of comments ("compatible", "+https://...").
func robotName(ua string) string {
	var names []string
	depth := 0 // comment nesting
	piece := func(p string, inComment bool) {
		name, _, product := strings.Cut(p, "/")
		if (product || !inComment) && name != "" && !strings.ContainsAny(name, ":+") {
			names = append(names, name)
		}
	}
	start := 0
	for i := 0; i <= len(ua); i++ {
		c := byte(' ')
		if i < len(ua) {
			c = ua[i]
		}
		switch c {
		case ' ', '\t', ';', ',', '(', ')':
			piece(ua[start:i], depth > 0)
			start = i + 1
			if c == '(' {
				depth++
			} else if c == ')' && depth > 0 {
				depth--
			}
		}
	}
	return strings.Join(names, " ")
}

// Fetch implements DownloaderMiddleware.
func (m *RobotsTxtMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if !m.obey || metaBool(req, types.MetaDontObeyRobotsTxt) {
		return next.Fetch(ctx, req)
	}
	u, err := req.ParsedURL()
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return next.Fetch(ctx, req)
	}
	origin := strings.ToLower(u.Scheme + "://" + u.Host)
	if u.Path == "/robots.txt" {
		return next.Fetch(ctx, req) // the robots.txt URL itself is never checked
	}
	data, err := m.robots(ctx, origin, next)
	if err != nil {
		return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: err}
	}
	agent := m.agent
	if !m.fixedAgent {
		if h := req.Headers.Get("User-Agent"); h != "" {
			agent = h
		}
	}
	if !m.fixedAgent {
		agent = robotName(agent)
	}
	group := data.Group(agent)
	delay := group.CrawlDelay()
	if rate, ok := group.RequestRate(); ok {
		delay = max(delay, rate.Delay()) // its time window is not read: the rate holds all day
	}
	if delay > 0 && m.slots != nil {
		m.slots.SetMinDelay(SlotKey(req), min(delay, m.crawlDelayMax))
	}
	if !data.Allowed(agent, u.RequestURI()) {
		m.stats.Inc("robotstxt/forbidden", 1)
		m.logger.Debug("Forbidden by robots.txt: " + reqString(req))
		return nil, fmt.Errorf("%w: forbidden by robots.txt: %s", ErrIgnoreRequest, req.URL)
	}
	return next.Fetch(ctx, req)
}

// robots returns the rules of origin, fetching them when they are missing or expired. Only
// one fetch per origin runs at a time; others wait for it. It fails only when ctx is done.
func (m *RobotsTxtMiddleware) robots(ctx context.Context, origin string, next Downloader) (*robotstxt.Robots, error) {
	for {
		m.mu.Lock()
		e := m.origins[origin]
		if e != nil {
			select {
			case <-e.done:
				if !e.expires.IsZero() && time.Now().After(e.expires) {
					e = nil // a failed fetch: try again
				}
			default:
			}
		}
		if e == nil {
			e = &robotsEntry{done: make(chan struct{})}
			m.origins[origin] = e
			m.mu.Unlock()
			data, expires := m.fetch(ctx, origin, next)
			m.mu.Lock()
			e.data, e.expires = data, expires
			if data == nil && m.origins[origin] == e {
				delete(m.origins, origin) // cancelled: the next caller fetches
			}
			m.mu.Unlock()
			close(e.done)
			if data == nil {
				return nil, ctx.Err()
			}
			return data, nil
		}
		m.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.data != nil {
			return e.data, nil
		}
		// The fetching caller was cancelled; take over unless we were too.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// The rules of a missing robots.txt and of one that answered 5xx.
var (
	robotsAllowAll    = robotstxt.AllowAll()
	robotsDisallowAll = robotstxt.DisallowAll()
)

// fetch returns the parsed robots.txt of origin, downloaded here or, with a RobotsCache,
// by whichever process of the crawl got to it first. It returns nil when ctx was
// cancelled, and a non-zero expiry for a result that must be fetched again later.
func (m *RobotsTxtMiddleware) fetch(ctx context.Context, origin string, next Downloader) (*robotstxt.Robots, time.Time) {
	download := func(ctx context.Context) (RobotsOutcome, bool) { return m.download(ctx, origin, next) }
	var out RobotsOutcome
	ok := false
	if m.cache != nil {
		var err error
		out, err = m.cache.RobotsTxt(ctx, origin, download)
		if ctx.Err() != nil {
			return nil, time.Time{}
		}
		if ok = err == nil; !ok {
			m.logger.Warn(fmt.Sprintf("Shared robots.txt of %s unavailable, downloading it here: %v", origin, err))
		}
	}
	if !ok {
		if out, ok = download(ctx); !ok {
			return nil, time.Time{}
		}
	}
	var expires time.Time
	if out.TTL > 0 {
		expires = time.Now().Add(out.TTL)
	}
	switch out.Verdict {
	case RobotsRules:
		// Parse skips what it cannot read; the rest of the file applies.
		return robotstxt.Parse(out.Body), expires
	case RobotsDisallowAll:
		return robotsDisallowAll, expires
	default:
		return robotsAllowAll, expires
	}
}

// download downloads the robots.txt of origin through next and tells what it gave: the
// rules of a 2xx; allow all for a 4xx or a request a middleware below ignored; disallow
// all for a 5xx and allow all after a download error, both for errorTTL. It reports false
// when ctx was cancelled.
func (m *RobotsTxtMiddleware) download(ctx context.Context, origin string, next Downloader) (RobotsOutcome, bool) {
	r := &types.Request{
		URL:        origin + "/robots.txt",
		Priority:   1000,
		DontFilter: true,
		Meta:       types.Item{{Key: types.MetaDontObeyRobotsTxt, Value: true}},
	}
	m.stats.Inc("robotstxt/request_count", 1)
	resp, err := next.Fetch(ctx, r)
	// A redirect middleware may hand back a replacement request: follow it here, a bounded
	// number of times.
	for i := 0; i < 10 && err != nil; i++ {
		var re *RescheduleError
		if !errors.As(err, &re) {
			break
		}
		resp, err = next.Fetch(ctx, re.Request)
	}
	if ctx.Err() != nil {
		return RobotsOutcome{}, false
	}
	if err != nil && errors.Is(err, ErrIgnoreRequest) {
		// A middleware below dropped it (HTTPCACHE_IGNORE_MISSING offline): no rules.
		m.logger.Debug(fmt.Sprintf("Ignoring %s, allowing the site: %v", reqString(r), err))
		return RobotsOutcome{Verdict: RobotsAllowAll}, true
	}
	if err != nil {
		// The site could not be reached. Let its requests through, so that each fails (or
		// succeeds) with its own download error rather than a robots.txt one, and ask again
		// after a while.
		name := ErrorName(err)
		m.stats.Inc("robotstxt/exception_count/"+name, 1)
		m.logger.Warn(fmt.Sprintf("Error downloading %s, allowing the site for %s: %v", reqString(r), m.errorTTL, err))
		return RobotsOutcome{Verdict: RobotsAllowAll, TTL: m.errorTTL}, true
	}
	m.stats.Inc("robotstxt/response_count", 1)
	m.stats.Inc("robotstxt/response_status_count/"+itoa(resp.Status), 1)
	switch {
	case resp.Status >= 200 && resp.Status < 300:
		return RobotsOutcome{Verdict: RobotsRules, Body: resp.Body}, true
	case resp.Status >= 500:
		m.logger.Warn(fmt.Sprintf("%s: server error, disallowing the site for %s", respString(resp), m.errorTTL))
		return RobotsOutcome{Verdict: RobotsDisallowAll, TTL: m.errorTTL}, true
	default:
		// 4xx, and 3xx left over when redirects are off: no robots.txt, allow all.
		return RobotsOutcome{Verdict: RobotsAllowAll}, true
	}
}

// Interface guards
var _ DownloaderMiddleware = (*RobotsTxtMiddleware)(nil)
