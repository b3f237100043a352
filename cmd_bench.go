package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// benchSpider follows every link of the synthetic site, as scrapy bench's spider does.
const benchSpider = `import { Request, Spider } from "jscrawl";
export default class BenchSpider extends Spider {
  name = "bench";
  baseUrl = "";
  *start() { yield new Request(this.baseUrl + "/page/0"); }
  *parse(response) {
    for (const href of response.css("a::attr(href)").getall()) yield response.follow(href);
  }
}
`

// benchPages is the number of pages of the synthetic site and benchLinks the links on each.
const (
	benchPages = 100000
	benchLinks = 20
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure how fast this machine crawls: a local link site and a link-following spider",
		Description: `Serves a synthetic site in-process (100,000 pages of 20 links each, no network involved) and
crawls it with a built-in spider that follows every link, for --timeout seconds
(CLOSESPIDER_TIMEOUT). The log prints "Crawled N pages (at X pages/min)" every second, as
scrapy bench does; the summary line goes to stdout. -s changes settings such as
CONCURRENT_REQUESTS or JS_VMS to compare configurations.

With --hosts N it runs the broad-crawl workload instead (issue 26): N loopback hosts,
127.0.1.1, 127.0.1.2 ... (Linux routes all of 127.0.0.0/8 to the loopback), one listener
each, with --pages pages per host; page k of a host links to page k+1 of it and to 5
pages of other hosts (fixed pseudo-random links). The spider starts from page 0 of every
host and follows every link, with CONCURRENT_REQUESTS=16, CONCURRENT_REQUESTS_PER_DOMAIN=1,
DOWNLOAD_DELAY=1, RANDOMIZE_DOWNLOAD_DELAY=false and ROBOTSTXT_OBEY=false unless -s says
otherwise, until every page is crawled (--timeout caps it). It prints the crawl's span as
the site saw it, the limit computed on the same graph (each host fetching one known page
per DOWNLOAD_DELAY) and their ratio, and the politeness the site saw: the gaps between two
requests to one host under 0.9 × DOWNLOAD_DELAY, the smallest gap, the most requests in
flight at once at one host. --jobdir and --frontier crawl with those schedulers;
--frontier with --workers W runs W jscrawl run processes on one shared crawl; --json
prints the report as one JSON object.

Examples:
   jscrawl bench
   jscrawl bench --timeout 30
   jscrawl bench -s CONCURRENT_REQUESTS=64 -s JS_VMS=2
   jscrawl bench --hosts 100 --pages 30
   jscrawl bench --hosts 2000 --pages 10 -s CONCURRENT_REQUESTS=64
   jscrawl bench --hosts 100 --pages 30 --jobdir /tmp/broad-job
   jscrawl bench --hosts 100 --pages 30 --frontier redis://127.0.0.1:6379/0 --workers 3
   jscrawl bench --hosts 100 --pages 30 --serve-only     (then crawl it with the jscrawl run it prints)`,
		Flags: slices.Concat([]cli.Flag{
			&cli.Float64Flag{Name: "timeout", Value: 10, Usage: "crawl for `SECONDS` (CLOSESPIDER_TIMEOUT; with --hosts only when given)"},
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a Go CPU profile of the bench to `FILE` (go tool pprof reads it)"},
		}, settingFlags("INFO"), broadFlags()),
		Action: benchAction,
	}
}

func benchAction(c *cli.Context) error {
	if path := c.String("cpuprofile"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return cli.Exit(fmt.Sprintf("bench: --cpuprofile: %v", err), 1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return cli.Exit(fmt.Sprintf("bench: --cpuprofile: %v", err), 1)
		}
		defer pprof.StopCPUProfile()
	}
	if c.IsSet("hosts") {
		return broadBenchAction(c)
	}
	for _, f := range []string{"pages", "latency", "jobdir", "workers", "serve-only", "json"} {
		if c.IsSet(f) {
			return usageError("--%s is an option of the broad crawl: give --hosts N too", f)
		}
	}
	if c.NArg() > 0 {
		return usageError("bench takes no arguments (got %q); see jscrawl bench --help", c.Args().First())
	}
	if c.Float64("timeout") <= 0 {
		return usageError("--timeout %v: want a number of seconds above 0", c.Float64("timeout"))
	}
	ls, err := readFlags(c, loadOptions{logLevel: "INFO"})
	if err != nil {
		return err
	}
	defer ls.Close()
	for k, v := range map[string]any{
		types.CloseSpiderTimeout: c.Float64("timeout"),
		types.LogStatsInterval:   1.0,
	} {
		if err := ls.settings.Set(k, v, types.PrioritySpider); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return cli.Exit(fmt.Sprintf("bench: start the local site: %v", err), 1)
	}
	srv := &http.Server{Handler: benchSite(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	ls.logger.Info("Bench site running at " + base)
	ls.args["baseUrl"] = base
	if err := ls.loadSource("bench", benchSpider); err != nil {
		return err
	}
	eng, err := ls.newEngine()
	if err != nil {
		return err
	}
	ctx, stop := stopOnSignal(c)
	defer stop()
	if err := eng.Run(ctx); err != nil {
		return cli.Exit(fmt.Sprintf("bench could not run: %v", err), 1)
	}
	stats := ls.stats
	pages := stats.Int("response_received_count")
	secs, _ := stats.Get("elapsed_time_seconds").(float64)
	rate := 0.0
	if secs > 0 {
		rate = float64(pages) / secs * 60
	}
	fmt.Fprintf(ls.stdout, "Bench: %d pages in %.1f s (%.0f pages/min), %d requests scheduled, %d errors, finish reason %v\n",
		pages, secs, rate, stats.Int("scheduler/enqueued"), stats.Int("log_count/ERROR"), stats.Get("finish_reason"))
	if ctx.Err() != nil {
		return cli.Exit("bench: interrupted", 130)
	}
	return nil
}

// benchSite serves /page/N: a small HTML page with benchLinks links to other pages spread
// over benchPages (a fixed permutation, so the crawl sees new pages for a long time).
func benchSite() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 0 || n >= benchPages {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>Page %d</title></head><body><h1>Page %d</h1><ul>\n", n, n)
		for i := 1; i <= benchLinks; i++ {
			next := (n*benchLinks + i*7919) % benchPages
			fmt.Fprintf(&b, "<li><a href=\"/page/%d\">page %d</a></li>\n", next, next)
		}
		b.WriteString("</ul></body></html>\n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(b.String()))
	})
	return mux
}
