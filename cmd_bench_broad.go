package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/internal/broadsite"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// The broad-crawl mode of bench (issue 26): jscrawl bench --hosts N --pages P serves a
// broadsite.Site of N loopback hosts and crawls it from page 0 of every host with
// broadSpider, at the politeness settings of broadDefaults, then prints the crawl's span at
// the site beside the limit computed from the same graph (broadsite.Limit) and the
// politeness the site saw.

// broadSpider starts from page 0 of each of the hosts hosts of a broadsite.Site on port
// port (127.0.1.1, 127.0.1.2 ... as broadsite.HostAddr numbers them) and follows every
// link.
const broadSpider = `import { Request, Spider } from "jscrawl";
export default class BroadSpider extends Spider {
  name = "broad";
  port = "0";
  hosts = "1";
  *start() {
    const n = Number(this.hosts);
    for (let i = 0; i < n; i++) {
      yield new Request("http://127.0." + (1 + Math.floor(i / 254)) + "." + (1 + (i % 254)) + ":" + this.port + "/page/0");
    }
  }
  *parse(response) {
    for (const href of response.css("a::attr(href)").getall()) yield response.follow(href);
  }
}
`

// broadDefaults are the settings of the broad mode, issue 26's, below -s.
var broadDefaults = []struct {
	key   string
	value any
}{
	{types.ConcurrentRequests, 16},
	{types.ConcurrentRequestsPerDomain, 1},
	{types.DownloadDelay, 1.0},
	{types.RandomizeDownloadDelay, false},
	{types.RobotsTxtObey, false},
	{types.LogStatsInterval, 10.0},
}

// broadFlags are bench's flags of the broad mode.
func broadFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.IntFlag{Name: "hosts", Usage: "broad crawl: serve `N` loopback hosts (127.0.1.1, 127.0.1.2 ...), one listener each, and crawl them all"},
		&cli.IntFlag{Name: "pages", Value: 30, Usage: "broad crawl: `P` pages per host"},
		&cli.DurationFlag{Name: "latency", Usage: "broad crawl: the site answers each request after `DURATION` (default at once)"},
		&cli.StringFlag{Name: "jobdir", Usage: "broad crawl: crawl with the job scheduler in `DIR` (the JOBDIR setting), started over each time"},
		&cli.IntFlag{Name: "workers", Value: 1, Usage: "broad crawl: with --frontier, run `W` worker processes (jscrawl run) on one shared crawl"},
		&cli.BoolFlag{Name: "serve-only", Usage: "broad crawl: only serve the site, print how to crawl it, and report what it saw on Ctrl-C"},
		&cli.BoolFlag{Name: "json", Usage: "broad crawl: print the report as one JSON object (the figures of the text report, times in seconds)"},
	}, crawlFlags()...)
}

func broadBenchAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("bench takes no arguments (got %q); see jscrawl bench --help", c.Args().First())
	}
	g, err := broadsite.NewGraph(c.Int("hosts"), c.Int("pages"))
	if err != nil {
		return usageError("--hosts, --pages: %v", err)
	}
	workers := c.Int("workers")
	switch {
	case workers < 1:
		return usageError("--workers %d: want 1 or more", workers)
	case workers > 1 && c.String("frontier") == "":
		return usageError("--workers %d needs --frontier redis://HOST:PORT/DB: the workers share the crawl through Redis", workers)
	case c.IsSet("timeout") && c.Float64("timeout") <= 0:
		return usageError("--timeout %v: want a number of seconds above 0", c.Float64("timeout"))
	case c.Bool("serve-only") && (c.String("jobdir") != "" || c.String("frontier") != "" || workers > 1):
		return usageError("--serve-only serves the site alone: crawl it with jscrawl run (with --jobdir or --frontier there)")
	case c.Duration("latency") < 0:
		return usageError("--latency %v: want 0 or more", c.Duration("latency"))
	}
	ls, err := readFlags(c, loadOptions{logLevel: "INFO"})
	if err != nil {
		return err
	}
	defer ls.Close()
	for _, d := range broadDefaults {
		if err := ls.settings.Set(d.key, d.value, types.PrioritySpider); err != nil {
			return err
		}
	}
	if c.IsSet("timeout") {
		if err := ls.settings.Set(types.CloseSpiderTimeout, c.Float64("timeout"), types.PrioritySpider); err != nil {
			return err
		}
	}
	if url := ls.settings.String(types.Frontier); url != "" {
		// A new shared crawl each time, removed from Redis at the end.
		id := cmp.Or(c.String("crawl-id"), fmt.Sprintf("bench-broad-%d-%d", os.Getpid(), time.Now().UnixNano()))
		if err := ls.settings.Set(types.CrawlID, id, types.PriorityCmdline); err != nil {
			return err
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := redisfrontier.Clear(ctx, url, id); err != nil {
				ls.logger.Warn(fmt.Sprintf("Removing the shared crawl %s from Redis: %v", id, err))
			}
		}()
	}
	// Per host: the site's listener and its end of each crawler's connection, and the
	// crawler's end when it runs in this process.
	if err := broadsite.RaiseFileLimit(uint64((2+workers)*g.Hosts + 256)); err != nil {
		return cli.Exit(fmt.Sprintf("bench --hosts %d: %v", g.Hosts, err), 1)
	}
	site, err := broadsite.Start(g, broadsite.Options{Latency: c.Duration("latency")})
	if err != nil {
		return cli.Exit(fmt.Sprintf("bench: start the broad site: %v", err), 1)
	}
	defer site.Close()
	delay := ls.settings.Duration(types.DownloadDelay)
	ls.logger.Info(fmt.Sprintf("Broad site running: %d hosts × %d pages at %s to %s, port %d",
		g.Hosts, g.Pages, broadsite.HostAddr(0), broadsite.HostAddr(g.Hosts-1), site.Port))
	ls.args["port"] = strconv.Itoa(site.Port)
	ls.args["hosts"] = strconv.Itoa(g.Hosts)

	ctx, stop := stopOnSignal(c)
	defer stop()
	var crawl broadCrawl
	switch {
	case c.Bool("serve-only"):
		crawl.how = "crawled from outside (--serve-only)"
		err = serveBroad(ctx, c, ls, site)
	case workers > 1:
		crawl, err = broadWorkers(ctx, c, ls, site, workers)
	default:
		crawl, err = broadInProcess(ctx, ls)
	}
	if err != nil {
		return err
	}
	report := newBroadReport(ls.settings, g, site.Report(delay), g.Limit(delay), crawl)
	if c.Bool("json") {
		b, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(ls.stdout, string(b))
	} else {
		report.write(ls.stdout)
	}
	if ctx.Err() != nil && !c.Bool("serve-only") { // Ctrl-C is how --serve-only ends
		return cli.Exit("bench: interrupted", 130)
	}
	return nil
}

// broadCrawl is what the crawler side tells of a broad crawl (the site tells the rest).
type broadCrawl struct {
	how     string  // the scheduler: memory, jobdir DIR, N workers on Redis
	elapsed float64 // the engine's elapsed_time_seconds (0: not known, as with workers)
	reason  any     // the engine's finish_reason (nil: not known)
	errors  int64   // log_count/ERROR
}

// broadInProcess crawls the site with the engine in this process: the memory scheduler,
// the job's (JOBDIR, started over) or the shared frontier's (FRONTIER), as jscrawl run
// opens them.
func broadInProcess(ctx context.Context, ls *loadedSpider) (broadCrawl, error) {
	crawl := broadCrawl{how: "memory scheduler"}
	if err := ls.loadSource("broad", broadSpider); err != nil {
		return crawl, err
	}
	fatal := make(chan error, 1)
	finished, err := ls.openFrontier(ctx, func(err error) { fatal <- err })
	if err != nil {
		return crawl, err
	}
	if finished {
		return crawl, cli.Exit("bench: the shared crawl is finished already: give another --crawl-id", 1)
	}
	var opts []engine.Option
	rj, err := openJob(ls.settings, ls.settings.String(types.JobDir) != "", ls.spider, "bench", "", nil, false, ls.logger)
	if err != nil {
		return crawl, err
	}
	if rj != nil {
		defer rj.j.Close()
		crawl.how = "job scheduler in " + rj.dir
		if opts, err = rj.engineOptions(ctx, ls.settings, ls.stats, nil, ls.spider); err != nil {
			return crawl, err
		}
	}
	eng, err := ls.newEngine(opts...)
	if err != nil {
		return crawl, err
	}
	if ls.frontier != nil {
		crawl.how = "shared frontier, 1 worker"
		crawlWideLimits(eng, ls.frontier, ls.settings)
	}
	rctx, cancel := context.WithCancel(ctx)
	var watch sync.WaitGroup
	defer func() { cancel(); watch.Wait() }()
	watch.Go(func() { // a frontier that failed for good closes the crawl
		select {
		case <-fatal:
			eng.CloseSpider(ReasonFrontierError)
		case <-rctx.Done():
		}
	})
	if err := eng.Run(ctx); err != nil {
		return crawl, cli.Exit(fmt.Sprintf("bench could not run: %v", err), 1)
	}
	if ls.frontier != nil {
		err := ls.frontier.Err()
		ls.closeFrontier()
		if err != nil {
			return crawl, frontierFailed(err)
		}
	}
	crawl.elapsed, _ = ls.stats.Get("elapsed_time_seconds").(float64)
	crawl.reason = ls.stats.Get("finish_reason")
	crawl.errors = ls.stats.Int("log_count/ERROR")
	return crawl, nil
}

// broadWorkers crawls the site with n worker processes of this binary (jscrawl run
// --frontier) sharing the crawl CRAWL_ID in Redis. The workers get the
// command's -s (after the broad defaults), -L and --frontier; their logs go to stderr.
func broadWorkers(ctx context.Context, c *cli.Context, ls *loadedSpider, site *broadsite.Site, n int) (broadCrawl, error) {
	crawl := broadCrawl{how: fmt.Sprintf("shared frontier, %d worker processes", n)}
	self, err := os.Executable()
	if err != nil {
		return crawl, cli.Exit(fmt.Sprintf("bench: find this binary to start workers: %v", err), 1)
	}
	file, remove, err := writeBroadSpider()
	if err != nil {
		return crawl, err
	}
	defer remove()
	id, url := ls.settings.String(types.CrawlID), ls.settings.String(types.Frontier)
	args := []string{"run", file, "--frontier", url, "--crawl-id", id, "-a", "port=" + strconv.Itoa(site.Port), "-a", "hosts=" + strconv.Itoa(site.Graph.Hosts)}
	for _, d := range broadDefaults {
		args = append(args, "-s", d.key+"="+fmt.Sprint(d.value))
	}
	if c.IsSet("timeout") {
		args = append(args, "-s", types.CloseSpiderTimeout+"="+fmt.Sprint(c.Float64("timeout")))
	}
	for _, kv := range c.StringSlice("s") {
		args = append(args, "-s", kv)
	}
	args = append(args, "-L", cmp.Or(c.String("L"), "INFO"))
	ls.logger.Info(fmt.Sprintf("Starting %d workers on the shared crawl %s", n, id))
	wctx, stop := context.WithCancel(ctx) // Ctrl-C, or a worker that cannot start, stops them all
	defer stop()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		cmd := exec.CommandContext(wctx, self, args...)
		cmd.Stdout, cmd.Stderr = io.Discard, ls.stderr
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // as Ctrl-C: the worker hands back its leases
		cmd.WaitDelay = 30 * time.Second
		if err := cmd.Start(); err != nil {
			errs[i] = fmt.Errorf("start worker %d: %w", i+1, err)
			stop()
			break
		}
		wg.Go(func() { errs[i] = cmd.Wait() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil && ctx.Err() == nil {
		return crawl, cli.Exit(fmt.Sprintf("bench: a worker failed: %v", err), 1)
	}
	return crawl, nil
}

// writeBroadSpider writes broadSpider to broad.js in a new temporary folder, for jscrawl
// run; remove removes the folder.
func writeBroadSpider() (file string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "jscrawl-bench-broad")
	if err != nil {
		return "", nil, cli.Exit(fmt.Sprintf("bench: %v", err), 1)
	}
	file = filepath.Join(dir, "broad.js")
	if err := os.WriteFile(file, []byte(broadSpider), 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, cli.Exit(fmt.Sprintf("bench: %v", err), 1)
	}
	return file, func() { _ = os.RemoveAll(dir) }, nil
}

// serveBroad serves the site until ctx ends, after printing how to crawl it: the spider
// written to a temporary folder and the jscrawl run command.
func serveBroad(ctx context.Context, c *cli.Context, ls *loadedSpider, site *broadsite.Site) error {
	file, remove, err := writeBroadSpider()
	if err != nil {
		return err
	}
	defer remove()
	var set []string
	for _, d := range broadDefaults {
		set = append(set, "-s "+d.key+"="+fmt.Sprint(d.value))
	}
	for _, kv := range c.StringSlice("s") {
		set = append(set, "-s "+shellQuote(kv))
	}
	fmt.Fprintf(ls.stdout, "Serving %d hosts × %d pages; start URL of host 1: %s\nCrawl it with (Ctrl-C here prints what the site saw):\n  jscrawl run %s -a port=%d -a hosts=%d %s\n",
		site.Graph.Hosts, site.Graph.Pages, site.URL(broadsite.Page{}), file, site.Port, site.Graph.Hosts, strings.Join(set, " "))
	<-ctx.Done()
	return nil
}

// broadReport is the broad bench's result: the crawl as the site saw it, the limit and
// their ratio, and the politeness at the site. Its JSON is --json's output.
type broadReport struct {
	Hosts                       int     `json:"hosts"`
	PagesPerHost                int     `json:"pages_per_host"`
	ConcurrentRequests          int     `json:"concurrent_requests"`
	ConcurrentRequestsPerDomain int     `json:"concurrent_requests_per_domain"`
	DownloadDelay               float64 `json:"download_delay"`
	RandomizeDownloadDelay      bool    `json:"randomize_download_delay"`
	Crawl                       string  `json:"crawl"` // the scheduler
	Pages                       int     `json:"pages"` // distinct pages requested
	Duplicates                  int     `json:"duplicates"`
	Missing                     int     `json:"missing"`
	Requests                    int     `json:"requests"`
	Span                        float64 `json:"span"` // the site's first request to its last
	// The engine's figures; absent with worker processes.
	Elapsed       *float64 `json:"elapsed_time_seconds,omitempty"`
	Errors        *int64   `json:"errors,omitempty"`
	FinishReason  any      `json:"finish_reason,omitempty"`
	LimitPages    int      `json:"limit_pages"`
	LimitSpan     float64  `json:"limit_span"`
	Ratio         *float64 `json:"ratio"` // Span / LimitSpan; null when LimitSpan is 0
	Gaps          int      `json:"gaps"`
	ShortGaps     int      `json:"short_gaps"` // under ShortGapBelow
	ShortGapBelow float64  `json:"short_gap_below"`
	MinGap        *float64 `json:"min_gap"` // null without gaps
	MaxInFlight   int      `json:"max_in_flight_per_host"`
}

func newBroadReport(settings *types.Settings, g broadsite.Graph, rep broadsite.Report, limit broadsite.LimitResult, crawl broadCrawl) broadReport {
	r := broadReport{
		Hosts: g.Hosts, PagesPerHost: g.Pages,
		ConcurrentRequests:          settings.Int(types.ConcurrentRequests),
		ConcurrentRequestsPerDomain: settings.Int(types.ConcurrentRequestsPerDomain),
		DownloadDelay:               settings.Float(types.DownloadDelay),
		RandomizeDownloadDelay:      settings.Bool(types.RandomizeDownloadDelay),
		Crawl:                       crawl.how,
		Pages:                       rep.Pages, Duplicates: rep.Duplicates, Missing: rep.Missing, Requests: rep.Requests,
		Span:       rep.Span.Seconds(),
		LimitPages: limit.Pages, LimitSpan: limit.Span.Seconds(),
		Gaps: rep.Gaps, ShortGaps: rep.ShortGaps,
		ShortGapBelow: (time.Duration(float64(settings.Duration(types.DownloadDelay)) * broadsite.ShortGapFactor)).Seconds(),
		MaxInFlight:   rep.MaxInFlight,
	}
	if crawl.reason != nil {
		r.Elapsed, r.Errors, r.FinishReason = &crawl.elapsed, &crawl.errors, crawl.reason
	}
	if limit.Span > 0 {
		ratio := rep.Span.Seconds() / limit.Span.Seconds()
		r.Ratio = &ratio
	}
	if rep.MinGap >= 0 {
		m := rep.MinGap.Seconds()
		r.MinGap = &m
	}
	return r
}

// write prints the report as text, four lines.
func (r broadReport) write(w io.Writer) {
	fmt.Fprintf(w, "Broad bench: %d hosts × %d pages (%d pages), %s=%d %s=%d %s=%g %s=%v, %s\n", r.Hosts, r.PagesPerHost, r.Hosts*r.PagesPerHost,
		types.ConcurrentRequests, r.ConcurrentRequests, types.ConcurrentRequestsPerDomain, r.ConcurrentRequestsPerDomain,
		types.DownloadDelay, r.DownloadDelay, types.RandomizeDownloadDelay, r.RandomizeDownloadDelay, r.Crawl)
	engineSide := ""
	if r.Elapsed != nil {
		engineSide = fmt.Sprintf("; the engine's elapsed_time %.1f s, %d errors, finish reason %v", *r.Elapsed, *r.Errors, r.FinishReason)
	}
	fmt.Fprintf(w, "Crawled: %d of %d pages (%d twice or more, %d missing, %d requests) in %.1f s at the site, from its first request to its last%s\n",
		r.Pages, r.Hosts*r.PagesPerHost, r.Duplicates, r.Missing, r.Requests, r.Span, engineSide)
	ratio := "n/a (the limit's span is 0)"
	if r.Ratio != nil {
		ratio = fmt.Sprintf("%.2f×", *r.Ratio)
	}
	fmt.Fprintf(w, "Limit: %d pages in %.1f s (one page per host per DOWNLOAD_DELAY, every known page queued at its host); the crawl took %s the limit's span\n",
		r.LimitPages, r.LimitSpan, ratio)
	smallest := "none"
	if r.MinGap != nil {
		smallest = fmt.Sprintf("%.3f s", *r.MinGap)
	}
	fmt.Fprintf(w, "Politeness at the site: %d gaps between two requests to one host, %d under %.2f s (%.1f × DOWNLOAD_DELAY), the smallest %s; the most requests in flight at once at one host: %d\n",
		r.Gaps, r.ShortGaps, r.ShortGapBelow, broadsite.ShortGapFactor, smallest, r.MaxInFlight)
}
