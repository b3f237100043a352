package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	goruntime "runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/examples/demosite"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a spider file (.ts, .js, .mjs, .cjs)",
		ArgsUsage: "SPIDER_FILE",
		Description: `Bundles the spider with its imports, then crawls. Options may come before or after the file.

Examples:
   jscrawl run spider.ts -o items.jsonl
   jscrawl run spider.ts -O items.json -s CONCURRENT_REQUESTS=32 -a category=travel
   jscrawl run --demo examples/books.ts -o -:jsonl     (items to stdout, logs to stderr)
   jscrawl run spider.ts --threshold 'item_scraped_count >= 100' --threshold 'log_count/ERROR == 0'
   jscrawl run spider.ts --metrics 127.0.0.1:9410      (Prometheus metrics; jscrawl ps PID shows what is in flight)

Exit codes: 0 done, 1 the spider could not run, a feed could not be written or the memory
limit (MEMUSAGE_LIMIT_MB) was passed, 2 a bad option or setting, 99 a threshold failed, 130
stopped by Ctrl-C (SIGINT), 143 stopped by SIGTERM. The first Ctrl-C or SIGTERM lets the
work in flight finish (downloads for at most SHUTDOWN_TIMEOUT seconds), the second stops at
once; the feeds are flushed and closed either way.`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "o", Aliases: []string{"output"}, Usage: "append items to `FILE` (format from the extension: .jsonl .json .csv .xml; -:jsonl is stdout)"},
			&cli.StringSliceFlag{Name: "O", Aliases: []string{"overwrite-output"}, Usage: "write items to `FILE`, replacing it"},
			&cli.StringSliceFlag{Name: "s", Aliases: []string{"set"}, Usage: "set a setting, `KEY=VALUE` (repeatable)"},
			&cli.StringSliceFlag{Name: "a", Usage: "set a spider argument, `NAME=VALUE` (repeatable)"},
			&cli.StringFlag{Name: "L", Aliases: []string{"loglevel"}, Usage: "log `LEVEL`: DEBUG, INFO, WARNING, ERROR (the LOG_LEVEL setting)"},
			&cli.BoolFlag{Name: "demo", Usage: "start the built-in demo site and pass its address as the argument baseUrl"},
			&cli.StringFlag{Name: "stats-json", Usage: "write the final stats to `FILE` as JSON"},
			&cli.StringSliceFlag{Name: "threshold", Usage: "check a stat at the end, `'KEY OP VALUE'` such as 'item_scraped_count >= 100' (repeatable; exit code 99 when one fails)"},
			&cli.StringFlag{Name: "jobdir", Usage: "keep the crawl in `DIR` (the JOBDIR setting): run the same command again to resume it after a stop or a crash"},
			&cli.BoolFlag{Name: "fresh", Usage: "with --jobdir: forget the job's progress and start over"},
			&cli.StringFlag{Name: "cpuprofile", Hidden: true, Usage: "write a CPU profile of the crawl to `FILE` (for go tool pprof)"},
		}, controlFlags()...),
		Action: runAction,
	}
}

// usageError is a bad command-line value: exit code 2.
func usageError(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), 2)
}

func splitKV(kind, s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", usageError("bad %s value %q: want NAME=VALUE", kind, s)
	}
	return strings.TrimSpace(k), v, nil
}

func runAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("run needs exactly one spider file (got %d): jscrawl run spider.ts [-o items.jsonl]", c.NArg())
	}
	file := c.Args().First()
	stderr := c.App.ErrWriter
	if stderr == nil {
		stderr = os.Stderr
	}
	stdout := c.App.Writer
	if stdout == nil {
		stdout = os.Stdout
	}

	// Command-line values are checked before anything runs.
	cmdSettings := map[string]string{}
	var cmdOrder []string
	for _, kv := range c.StringSlice("s") {
		k, v, err := splitKV("-s", kv)
		if err != nil {
			return err
		}
		if _, seen := cmdSettings[k]; !seen {
			cmdOrder = append(cmdOrder, k)
		}
		cmdSettings[k] = v
	}
	if d := c.String("jobdir"); d != "" {
		cmdSettings[types.JobDir] = d
		cmdOrder = append(cmdOrder, types.JobDir)
	}
	if l := c.String("L"); l != "" {
		cmdSettings[types.LogLevel] = l
		cmdOrder = append(cmdOrder, types.LogLevel)
	}
	args := map[string]string{}
	for _, kv := range c.StringSlice("a") {
		k, v, err := splitKV("-a", kv)
		if err != nil {
			return err
		}
		args[k] = v
	}
	feeds := map[string]feed.Config{}
	feedFlags := map[string]string{} // feed target → the flag and argument that named it
	for _, f := range []struct {
		flag      string
		overwrite bool
	}{{"o", false}, {"O", true}} {
		for _, arg := range c.StringSlice(f.flag) {
			uri, cfg, err := feed.ParseFlag(arg, f.overwrite)
			if err != nil {
				return usageError("-%s: %v", f.flag, err)
			}
			target := feed.Target(uri)
			if prev, ok := feedFlags[target]; ok {
				return usageError("-%s %s: %s names the same feed target (%s): each file, and stdout, takes one feed", f.flag, arg, prev, target)
			}
			feedFlags[target] = "-" + f.flag + " " + arg
			feeds[uri] = cfg
		}
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
	settings := types.NewSettings()
	for _, k := range cmdOrder {
		if err := settings.Set(k, cmdSettings[k], types.PriorityCmdline); err != nil {
			return usageError("-s %s=%s: %v", k, cmdSettings[k], err)
		}
	}
	level, err := engine.ParseLogLevel(settings.String(types.LogLevel))
	if err != nil {
		return usageError("LOG_LEVEL: %v", err)
	}
	stats := engine.NewStats()
	lv := new(slog.LevelVar) // customSettings may change LOG_LEVEL after the spider loads
	lv.Set(level)
	// On a terminal a live status line sits under the log; LOG_FILE and LOG_FORMAT from
	// customSettings switch the log's destination once the spider is loaded.
	var status *statusLine
	logOut := stderr
	if isTerminal(stderr) {
		status = &statusLine{w: stderr}
		logOut = status
	}
	logSw := newLogSwitch(engine.NewLogHandler(logOut, lv, stats))
	logger := slog.New(logSw)
	// setLog applies LOG_FILE and LOG_FORMAT: from the command line at once, again once the
	// spider's customSettings are in.
	var logFile *os.File
	defer func() {
		if logFile != nil {
			logFile.Close()
		}
	}()
	logConf := [2]string{"", "text"}
	setLog := func() error {
		conf := [2]string{settings.String(types.LogFile), settings.String(types.LogFormat)}
		if conf == logConf {
			return nil
		}
		w := logOut
		if conf[0] != "" {
			f, err := os.OpenFile(conf[0], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return usageError("LOG_FILE: %v", err)
			}
			if logFile != nil {
				logFile.Close()
			}
			logFile, w = f, f
		}
		h, err := logHandler(conf[1], w, lv, stats)
		if err != nil {
			return usageError("%v", err)
		}
		logSw.set(h)
		logConf = conf
		return nil
	}
	if err := setLog(); err != nil {
		return err
	}

	demoURL := ""
	if c.Bool("demo") {
		srv, err := demosite.Start(demoAddr(settings.String(types.JobDir)))
		if err != nil {
			return fmt.Errorf("start the demo site: %w", err)
		}
		defer srv.Close()
		demoURL = strings.TrimSuffix(srv.URL(), "/")
		args["baseUrl"] = demoURL
		logger.Info("Demo site running at " + srv.URL())
	}

	spider, err := loadSpider(file, args, logger)
	if err != nil {
		return err
	}
	defer spider.Close()

	// Settings: defaults < spider customSettings < command line.
	if err := applyCustomSettings(settings, spider, file, lv); err != nil {
		return err
	}
	for _, k := range settings.Keys() {
		if !settings.Known(k) {
			logger.Warn(fmt.Sprintf("Unknown setting %s (ignored unless something reads it)", k))
		}
	}
	if err := setLog(); err != nil {
		return err
	}
	setMemoryLimit(settings, logger)
	more, err := engine.ThresholdsFromSetting(settings.Map(types.Thresholds))
	if err != nil {
		return usageError("%v", err)
	}
	thresholds = append(more, thresholds...)

	if fs := settings.Map(types.Feeds); len(fs) > 0 {
		extra, err := feed.FromSettings(fs)
		if err != nil {
			return usageError("FEEDS: %v", err)
		}
		for uri, cfg := range extra {
			if _, ok := feeds[uri]; ok {
				continue // the command line's -o/-O of the same URI wins
			}
			if prev, ok := feedFlags[feed.Target(uri)]; ok {
				return usageError("FEEDS %q: %s names the same feed target (%s): each file, and stdout, takes one feed", uri, prev, feed.Target(uri))
			}
			feedFlags[feed.Target(uri)] = fmt.Sprintf("FEEDS %q", uri)
			cfg.ItemFilter = spider.ItemFilter(uri)
			feeds[uri] = cfg
		}
	}
	start := time.Now()
	rj, err := openJob(settings, c.Bool("fresh"), spider, file, strings.TrimPrefix(demoURL, "http://"), logger)
	if err != nil {
		return err
	}
	if rj != nil {
		defer rj.j.Close()
		if done, reason := rj.j.Finished(); done {
			fmt.Fprintf(stderr, "job in %s already finished (%s): nothing to do (--fresh starts it over)\n", rj.dir, reason)
			return nil
		}
	}
	feedEnv := feed.Env{Stdout: stdout, SpiderName: spider.Name(), Now: start, Logger: logger}
	var exporters []*feed.Feed
	var jobOpts []engine.Option
	if rj == nil {
		exporters, err = feed.OpenAll(feeds, feedEnv)
		if err != nil {
			return usageError("%v", err)
		}
	} else {
		if exporters, err = rj.openFeeds(feeds, feedEnv); err != nil {
			return err
		}
		if jobOpts, err = rj.engineOptions(c.Context, settings, stats, exporters, spider); err != nil {
			for _, x := range exporters {
				_ = x.Close()
			}
			return err
		}
	}
	opts := spiderEngineOptions(spider, settings, logger, stats)
	opts = append(opts, jobOpts...)
	for _, p := range spider.Pipelines() {
		opts = append(opts, engine.WithPipelines(p))
	}
	for _, x := range exporters {
		opts = append(opts, engine.WithExporters(x))
	}
	eng := engine.New(spider, settings, opts...)
	if demoURL != "" {
		warnIgnoredDemo(eng, spider, logger, demoURL)
	}
	if err := spider.Bind(eng); err != nil {
		for _, x := range exporters {
			_ = x.Close()
		}
		return cli.Exit(fmt.Sprintf("%s: %v", file, err), 1)
	}
	ctl.serve(logger, crawlSource{engine: eng, spider: spider,
		info: crawlInfo{PID: os.Getpid(), Spider: spider.Name(), File: file, Started: start, Version: types.Version}})

	// Ctrl-C or SIGTERM: the first stops scheduling and retrying and lets what is in flight
	// finish (downloads for at most SHUTDOWN_TIMEOUT), the second stops at once. Feeds are
	// flushed and closed either way.
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	stopped := watchSignals(ctx, logger, eng.CloseSpider, cancel)
	if path := c.String("cpuprofile"); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			return cli.Exit(err.Error(), 1)
		}
		defer stop()
	}
	stopStatus := func() {}
	if status != nil {
		pctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			progress{stats: stats, inFlight: func() int { return len(eng.Downloads()) }, queued: eng.Backlog, start: start}.run(pctx, status, time.Second)
		}()
		stopStatus = func() { stop(); <-done }
	}
	err = eng.Run(ctx)
	stopStatus()
	if err != nil {
		return cli.Exit(fmt.Sprintf("crawl could not run: %v", err), 1)
	}
	// The feeds are written and closed by now.
	final := stats.Snapshot()
	if path := c.String("stats-json"); path != "" {
		if err := writeStatsJSON(path, final); err != nil {
			logger.Error(fmt.Sprintf("--stats-json: %v", err))
		}
	}
	if rj != nil {
		rj.ended(stderr, fmt.Sprint(final["finish_reason"]))
	}
	passed := checkThresholds(stderr, thresholds, final)
	switch {
	case final["finish_reason"] == engine.ReasonMemUsageExceeded:
		return cli.Exit("the crawl was closed: its memory usage exceeded MEMUSAGE_LIMIT_MB", 1)
	case final["finish_reason"] == "feed_error":
		return cli.Exit("a feed could not be written (finish_reason feed_error; the log says which and why): the items it stored are whole", 1)
	case stopped() != nil:
		return cli.Exit("", exitCodeFor(stopped()))
	case final["finish_reason"] == "shutdown" || ctx.Err() != nil:
		return cli.Exit("", 130)
	case !passed:
		return cli.Exit("", 99)
	}
	return nil
}

// watchSignals handles SIGINT and SIGTERM while a crawl runs: the first calls
// closeSpider("shutdown"), the second hardStop. The returned func tells which signal came
// first (nil: none).
func watchSignals(ctx context.Context, logger *slog.Logger, closeSpider func(string), hardStop func()) func() os.Signal {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var first atomic.Value
	go func() {
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
				logger.Info(fmt.Sprintf("Received %s, shutting down gracefully. Send again to force", signalName(sig)))
				closeSpider("shutdown")
				continue
			}
			logger.Info(fmt.Sprintf("Received %s twice, forcing unclean shutdown", signalName(sig)))
			hardStop()
			return
		}
	}()
	return func() os.Signal {
		s, _ := first.Load().(os.Signal)
		return s
	}
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

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "serve the built-in offline demo site (bookstore, JSON API, quotes, /delay)",
		Description: `Examples:
   jscrawl demo                        (serves http://127.0.0.1:8000)
   jscrawl run examples/books.ts -a baseUrl=http://127.0.0.1:8000 -o books.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8000", Usage: "listen `ADDRESS`"},
		},
		Action: func(c *cli.Context) error {
			srv, err := demosite.Start(c.String("addr"))
			if err != nil {
				return cli.Exit(fmt.Sprintf("demo: %v (is the port taken? try --addr 127.0.0.1:8001)", err), 1)
			}
			defer srv.Close()
			out := c.App.ErrWriter
			if out == nil {
				out = os.Stderr
			}
			fmt.Fprintf(out, "Demo site running at %s (Ctrl-C to stop)\n", srv.URL())
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			<-ctx.Done()
			return nil
		},
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version (-v: with Go, goja and esbuild versions)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "v", Aliases: []string{"verbose"}, Usage: "show dependency versions"}},
		Action: func(c *cli.Context) error {
			w := c.App.Writer
			if w == nil {
				w = os.Stdout
			}
			fmt.Fprintln(w, "jscrawl "+types.Version)
			if c.Bool("v") {
				printDeps(w)
			}
			return nil
		},
	}
}

func version() string { return types.Version }

func printDeps(w io.Writer) {
	fmt.Fprintln(w, "go "+goruntime.Version())
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/dop251/goja", "github.com/dop251/goja_nodejs", "github.com/evanw/esbuild",
			"github.com/PuerkitoBio/goquery", "github.com/andybalholm/cascadia":
			fmt.Fprintln(w, d.Path+" "+d.Version)
		}
	}
}
