package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/examples/demosite"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a spider file (.ts, .js, .mjs, .cjs)",
		ArgsUsage: "SPIDER_FILE (optional with --jobdir of a job that ran)",
		Description: `Bundles the spider with its imports, then crawls. Options may come before or after the file.

Examples:
   jscrawl run spider.ts -o items.jsonl
   jscrawl run spider.ts -O items.json -s CONCURRENT_REQUESTS=32 -a category=travel
   jscrawl run --demo examples/books.ts -o -:jsonl     (items to stdout, logs to stderr)
   jscrawl run spider.ts --threshold 'item_scraped_count >= 100' --threshold 'log_count/ERROR == 0'
   jscrawl run spider.ts --metrics 127.0.0.1:9410      (Prometheus metrics; jscrawl ps PID shows what is in flight)

With --jobdir the job remembers this command: jscrawl run --jobdir DIR resumes it, and an
option given again must agree (--override lets it differ).

Exit codes: 0 done, 1 the spider could not run, a feed or --stats-json could not be written,
the job's state is damaged or the memory limit (MEMUSAGE_LIMIT_MB) was passed, 2 a bad
option or setting (or one that differs from the job's), 99 a threshold failed, 130
stopped by Ctrl-C (SIGINT), 143 stopped by SIGTERM. The first Ctrl-C or SIGTERM lets the
work in flight finish (downloads for at most SHUTDOWN_TIMEOUT seconds), the second stops at
once; the feeds are flushed and closed either way.`,
		Flags: slices.Concat([]cli.Flag{
			&cli.StringSliceFlag{Name: "o", Aliases: []string{"output"}, Usage: "append items to `FILE` (format from the extension: .jsonl .json .csv .xml; -:jsonl is stdout)"},
			&cli.StringSliceFlag{Name: "O", Aliases: []string{"overwrite-output"}, Usage: "write items to `FILE`, replacing it"},
		}, spiderFlags(""), crawlFlags(), []cli.Flag{
			&cli.BoolFlag{Name: "demo", Usage: "start the built-in demo site and pass its address as the argument baseUrl"},
			&cli.StringFlag{Name: "stats-json", Usage: "write the final stats to `FILE` as JSON"},
			&cli.StringSliceFlag{Name: "threshold", Usage: "check a stat at the end, `'KEY OP VALUE'` such as 'item_scraped_count >= 100' (repeatable; exit code 99 when one fails)"},
			&cli.StringFlag{Name: "jobdir", Usage: "keep the crawl in `DIR` (the JOBDIR setting); the job remembers its command: jscrawl run --jobdir DIR resumes it after a stop or a crash"},
			&cli.BoolFlag{Name: "fresh", Usage: "with --jobdir: forget the job's progress and start over"},
			&cli.BoolFlag{Name: "override", Usage: "with --jobdir: let this run's options differ from those the job was started with (each change is logged)"},
			&cli.BoolFlag{Name: "watch", Usage: "reload the spider's code when its file or a local import changes, keeping the queue, feeds, stats and this.state"},
			&cli.StringFlag{Name: "cpuprofile", Hidden: true, Usage: "write a CPU profile of the crawl to `FILE` (for go tool pprof)"},
			&cli.StringFlag{Name: "memprofile", Hidden: true, Usage: "write a heap profile of the crawl to `FILE` (for go tool pprof), taken when the heap in use peaks (checked every second)"},
		}, controlFlags()),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	if c.NArg() > 1 || c.NArg() == 0 && c.String("jobdir") == "" {
		return usageError("run needs exactly one spider file (got %d): jscrawl run spider.ts [-o items.jsonl]", c.NArg())
	}
	file := c.Args().First()
	var overrides []string
	if d := c.String("jobdir"); d != "" {
		// A job's later runs start from the command it was started with.
		var err error
		if file, overrides, err = resumeCommand(c, d); err != nil {
			return err
		}
		if file == "" {
			return usageError("--jobdir %s holds no job to resume: give the spider file, jscrawl run spider.ts --jobdir %s", d, d)
		}
	} else if c.Bool("override") {
		return usageError("--override needs --jobdir")
	}
	// Command-line values are checked before anything runs.
	feeds, err := feedsFromFlags(c)
	if err != nil {
		return err
	}
	var thresholds []engine.Threshold
	for _, arg := range c.StringSlice("threshold") {
		th, err := engine.ParseThreshold(arg)
		if err != nil {
			return usageError("--threshold: %v", err)
		}
		thresholds = append(thresholds, th)
	}
	// The control endpoint's listeners: a taken --control or --metrics port fails now.
	ctl, err := listenControl(c)
	if err != nil {
		return err
	}
	defer ctl.Close()
	ls, err := readFlags(c, loadOptions{status: true})
	if err != nil {
		return err
	}
	defer ls.Close()
	settings, stats, logger := ls.settings, ls.stats, ls.logger
	for _, o := range overrides {
		logger.Warn(o)
	}

	demoURL := ""
	if c.Bool("demo") {
		srv, err := demosite.Start(demoAddr(settings.String(types.JobDir)))
		if err != nil {
			return fmt.Errorf("start the demo site: %w", err)
		}
		defer srv.Close()
		demoURL = strings.TrimSuffix(srv.URL(), "/")
		ls.args["baseUrl"] = demoURL
		logger.Info("Demo site running at " + srv.URL())
	}
	if err := ls.load(file); err != nil {
		return err
	}
	spider := ls.spider
	defer setMemoryLimit(settings, logger)()
	more, err := engine.ThresholdsFromSetting(settings.Map(types.Thresholds))
	if err != nil {
		return usageError("%v", err)
	}
	thresholds = append(more, thresholds...)
	connectTo, err := engine.ParseDialRules(settings.StringList(types.DownloadConnectTo))
	if err != nil {
		return usageError("%s: %v", types.DownloadConnectTo, err)
	}
	if err := feeds.addSettings(settings, spider); err != nil {
		return err
	}
	// A shared crawl (--frontier): Redis trouble past FRONTIER_RETRY_TIMEOUT closes it.
	fatal := make(chan error, 1)
	octx, ostop := stopOnSignal(c)
	finished, err := ls.openFrontier(octx, func(err error) { fatal <- err })
	ostop()
	if err != nil || finished {
		return err
	}
	start := time.Now()
	rj, err := openJob(settings, c.Bool("fresh"), spider, file, strings.TrimPrefix(demoURL, "http://"), runCommandOf(c, file), c.Bool("override"), logger)
	if err != nil {
		return err
	}
	if rj != nil {
		defer rj.j.Close()
		if done, reason := rj.j.Finished(); done {
			fmt.Fprintf(ls.stderr, "job in %s already finished (%s): nothing to do (--fresh starts it over)\n", rj.dir, reason)
			return nil
		}
	}
	engOpts, closeFeeds, err := feeds.open(c.Context, ls, rj, start)
	if err != nil {
		return err
	}
	eng, err := ls.newEngine(engOpts...)
	if err != nil {
		closeFeeds()
		return err
	}
	if demoURL != "" {
		warnIgnoredDemo(eng, spider, logger, demoURL)
	}
	if ls.frontier != nil {
		crawlWideLimits(eng, ls.frontier, settings)
	}
	ctl.serve(logger, crawlSource{engine: eng, spider: spider.Dev(),
		info: crawlInfo{PID: os.Getpid(), Spider: spider.Name(), File: file, Started: start, Version: types.Version}})

	// Ctrl-C or SIGTERM: the first stops scheduling and retrying and lets what is in flight
	// finish (downloads for at most SHUTDOWN_TIMEOUT), the second stops at once. Feeds are
	// flushed and closed either way.
	ctx, cancel := context.WithCancel(engine.WithDialRules(c.Context, connectTo)) // DOWNLOAD_CONNECT_TO
	var watchers sync.WaitGroup
	defer func() { cancel(); watchers.Wait() }()
	stopped := watchSignals(ctx, &watchers, logger, eng.CloseSpider, cancel)
	watchers.Go(func() { // a frontier that failed for good closes the crawl
		select {
		case <-fatal:
			eng.CloseSpider(ReasonFrontierError)
		case <-ctx.Done():
		}
	})
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if c.Bool("watch") {
		w := newSpiderWatcher(file, ls.bundleOpts, ls.inputs, spider.Dev(), logger, eng.Backlog)
		watchers.Go(func() { w.run(wctx) })
	}
	if path := c.String("cpuprofile"); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			return cli.Exit(err.Error(), 1)
		}
		defer stop()
	}
	if path := c.String("memprofile"); path != "" {
		stop := startHeapProfile(ctx, path, time.Second)
		defer stop()
	}
	stopStatus := func() {}
	if ls.status != nil {
		pctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			progress{stats: stats, inFlight: func() int { return len(eng.Downloads()) }, queued: eng.Backlog, start: start}.run(pctx, ls.status, time.Second)
		}()
		stopStatus = func() { stop(); <-done }
	}
	runDone := make(chan struct{})
	watchers.Go(func() { exitWhenStuck(eng, logger, stopped, runDone) })
	err = eng.Run(ctx)
	close(runDone)
	stopWatch() // the spider is closed: nothing to reload
	stopStatus()
	var frontierErr error
	if ls.frontier != nil {
		frontierErr = ls.frontier.Err()
		ls.closeFrontier()
	}
	if err != nil {
		return cli.Exit(fmt.Sprintf("crawl could not run: %v", err), 1)
	}
	// The feeds are written and closed by now.
	final := stats.Snapshot()
	var statsErr error
	if path := c.String("stats-json"); path != "" {
		if statsErr = writeStatsJSON(path, final); statsErr != nil {
			logger.Error(fmt.Sprintf("--stats-json: %v", statsErr))
		}
	}
	if rj != nil {
		rj.ended(ls.stderr, fmt.Sprint(final["finish_reason"]))
	}
	passed := checkThresholds(ls.stderr, thresholds, final)
	if frontierErr != nil {
		return frontierFailed(frontierErr)
	}
	if final["finish_reason"] == "jobdir_error" && rj != nil {
		return rj.storeFailed()
	}
	if err := runExit(final["finish_reason"], stopped(), ctx.Err() != nil, passed); err != nil || statsErr == nil {
		return err
	}
	return cli.Exit(fmt.Sprintf("--stats-json: %v", statsErr), 1)
}

// runExit is run's exit status once the crawl ended with reason: 1 when the memory limit
// was passed or a feed or the WARC file failed, 128+N when signal N stopped it (130 when it was stopped
// another way), 99 when a threshold failed.
func runExit(reason any, stopped os.Signal, interrupted, passed bool) error {
	switch {
	case reason == engine.ReasonMemUsageExceeded:
		return cli.Exit("the crawl was closed: its memory usage exceeded MEMUSAGE_LIMIT_MB", 1)
	case reason == "feed_error":
		return cli.Exit("a feed could not be written (finish_reason feed_error; the log says which and why): the items it stored are whole", 1)
	case reason == "warc_error":
		return cli.Exit("the WARC file could not be written (finish_reason warc_error; the log says which and why): the records it holds are whole", 1)
	case stopped != nil:
		return cli.Exit("", exitCodeFor(stopped))
	case reason == "shutdown" || interrupted:
		return cli.Exit("", 130)
	case !passed:
		return cli.Exit("", 99)
	}
	return nil
}

// runFeeds are the feeds of a crawl by URI, with the flag or setting that named each feed
// target (a file, stdout): two feeds of one target are a usage error.
type runFeeds struct {
	configs map[string]feed.Config
	named   map[string]string // feed target → the flag and argument, or the FEEDS entry, that named it
}

// feedsFromFlags reads -o and -O.
func feedsFromFlags(c *cli.Context) (*runFeeds, error) {
	fs := &runFeeds{configs: map[string]feed.Config{}, named: map[string]string{}}
	for _, f := range []struct {
		flag      string
		overwrite bool
	}{{"o", false}, {"O", true}} {
		for _, arg := range c.StringSlice(f.flag) {
			uri, cfg, err := feed.ParseFlag(arg, f.overwrite)
			if err != nil {
				return nil, usageError("-%s: %v", f.flag, err)
			}
			target := feed.Target(uri)
			if prev, ok := fs.named[target]; ok {
				return nil, usageError("-%s %s: %s names the same feed target (%s): each file, and stdout, takes one feed", f.flag, arg, prev, target)
			}
			fs.named[target] = "-" + f.flag + " " + arg
			fs.configs[uri] = cfg
		}
	}
	return fs, nil
}

// addSettings adds the feeds of the FEEDS setting, each with the spider's item filter for
// it; the command line's -o/-O of the same URI wins. FEED_EXPORT_BATCH_ITEM_COUNT is the
// batchItemCount of every file or S3 feed that sets none (Scrapy's default for
// batch_item_count).
func (fs *runFeeds) addSettings(settings *types.Settings, spider *jsapi.Spider) error {
	if err := fs.addFeedsSetting(settings, spider); err != nil {
		return err
	}
	if n := settings.Int(types.FeedExportBatchItemCount); n > 0 {
		for uri, cfg := range fs.configs {
			if cfg.BatchItemCount == 0 && !feed.IsTable(uri) {
				cfg.BatchItemCount = n
				fs.configs[uri] = cfg
			}
		}
	}
	return nil
}

// addFeedsSetting adds the feeds of the FEEDS setting (see addSettings).
func (fs *runFeeds) addFeedsSetting(settings *types.Settings, spider *jsapi.Spider) error {
	m := settings.Map(types.Feeds)
	if len(m) == 0 {
		return nil
	}
	extra, err := feed.FromSettings(m)
	if err != nil {
		return usageError("FEEDS: %v", err)
	}
	for uri, cfg := range extra {
		if _, ok := fs.configs[uri]; ok {
			continue
		}
		if prev, ok := fs.named[feed.Target(uri)]; ok {
			return usageError("FEEDS %q: %s names the same feed target (%s): each file, and stdout, takes one feed", uri, prev, feed.Target(uri))
		}
		fs.named[feed.Target(uri)] = fmt.Sprintf("FEEDS %q", uri)
		cfg.ItemFilter = spider.ItemFilter(uri)
		fs.configs[uri] = cfg
	}
	return nil
}

// open opens the feeds (resumed in a job, rj non-nil) and returns the engine options of
// the crawl's outputs: the job's, the spider's pipelines, the feed exporters; closeFeeds
// closes the feeds when the engine cannot be built.
func (fs *runFeeds) open(ctx context.Context, ls *loadedSpider, rj *runJob, start time.Time) (opts []engine.Option, closeFeeds func(), err error) {
	env := feed.Env{Stdout: ls.stdout, SpiderName: ls.spider.Name(), Worker: ls.worker, Now: start, Logger: ls.logger,
		WriteThrough: ls.frontier != nil, // a shared crawl acknowledges a request once its items are exported
		S3:           feed.S3OptionsFrom(ls.settings)}
	var exporters []*feed.Feed
	closeFeeds = func() {
		for _, x := range exporters {
			_ = x.Close()
		}
	}
	if rj == nil {
		if exporters, err = feed.OpenAll(fs.configs, env); err != nil {
			return nil, nil, usageError("%v", err)
		}
	} else {
		if exporters, err = rj.openFeeds(fs.configs, env); err != nil {
			return nil, nil, err
		}
		if opts, err = rj.engineOptions(ctx, ls.settings, ls.stats, exporters, ls.spider); err != nil {
			closeFeeds()
			return nil, nil, err
		}
	}
	for _, p := range ls.spider.Pipelines() {
		opts = append(opts, engine.WithPipelines(p))
	}
	for _, x := range exporters {
		opts = append(opts, engine.WithExporters(x))
	}
	return opts, closeFeeds, nil
}

// watchSignals handles SIGINT and SIGTERM while a crawl runs: the first calls
// closeSpider("shutdown"), the second hardStop. The returned func tells which signal came
// first (nil: none). Its goroutine, in wg, ends with ctx.
func watchSignals(ctx context.Context, wg *sync.WaitGroup, logger *slog.Logger, closeSpider func(string), hardStop func()) func() os.Signal {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var first atomic.Value
	wg.Go(func() {
		defer signal.Stop(sigs)
		for n := 1; ; n++ {
			var sig os.Signal
			select {
			case <-ctx.Done():
				return
			case sig = <-sigs:
			}
			if n == 1 {
				first.Store(sig)
				// Close first: whoever reads the line below may rely on the engine being
				// told already (responses that come after it schedule nothing new).
				closeSpider("shutdown")
				logger.Info(fmt.Sprintf("Received %s, shutting down gracefully. Send again to force", signalName(sig)))
				continue
			}
			logger.Info(fmt.Sprintf("Received %s twice, forcing unclean shutdown", signalName(sig)))
			hardStop()
			return
		}
	})
	return func() os.Signal {
		s, _ := first.Load().(os.Signal)
		return s
	}
}

// stuckGrace is how long run waits, after a hard stop (the second signal, or a graceful
// close's deadline), for the callbacks still running: one stuck in native code (a
// backtracking regular expression, a deep JSON.stringify) cannot be interrupted.
const stuckGrace = 3 * time.Second

// exitWhenStuck ends the process when the crawl was stopped at once (eng.Stopped) and its
// workers have not returned stuckGrace later (eng.Drained) while Run has not (runDone): it
// closes the feeds, so the items scraped so far are whole, and exits with the stop's code
// (128+N for signal N, else 1) without waiting for the stuck call.
func exitWhenStuck(eng *engine.Engine, logger *slog.Logger, stopped func() os.Signal, runDone <-chan struct{}) {
	select {
	case <-runDone:
		return
	case <-eng.Stopped():
	}
	t := time.NewTimer(stuckGrace)
	defer t.Stop()
	select {
	case <-runDone:
		return
	case <-eng.Drained():
		return
	case <-t.C:
	}
	logger.Error(fmt.Sprintf("The crawl was stopped but a callback still runs %s later, in native code no interrupt reaches (a backtracking regular expression, a deep JSON value): exiting without waiting for it", stuckGrace))
	eng.CloseFeeds()
	code := 1
	if sig := stopped(); sig != nil {
		code = exitCodeFor(sig)
	}
	os.Exit(code)
}

// signalName is a signal's conventional name, as Scrapy logs it: SIGINT, SIGTERM.
func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		switch s {
		case syscall.SIGINT:
			return "SIGINT"
		case syscall.SIGTERM:
			return "SIGTERM"
		}
	}
	return sig.String()
}

// exitCodeFor is the shell's exit code for a process stopped by sig: 128 + its number
// (130 for SIGINT, 143 for SIGTERM).
func exitCodeFor(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// startCPUProfile starts a CPU profile written to path; the returned func stops it and
// closes the file.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cpuprofile: start: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			slog.Error("cpuprofile: close", "err", err)
		}
	}, nil
}
