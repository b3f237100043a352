package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/proxypool"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/engine/sandbox"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// The loader every spider command shares (run, shell, parse, fetch, settings, bench), in
// three steps as k6's loadedTest: readFlags turns the shared flags into settings, spider
// arguments and a logger; load (loadSource for a built-in spider) bundles and loads the
// spider and applies its customSettings; newEngine builds the engine on it and binds the
// spider. A command adds its own steps in between (run starts the demo site before load).
// An option every spider command takes goes here, once.

// settingFlags are the flags of every command that runs the engine: -s, -L and the
// archiveFlags (--warc, --replay). level is
// the command's default LOG_LEVEL, shown in the help ("": the setting's default).
func settingFlags(level string) []cli.Flag {
	return append(setLogFlags(level), archiveFlags()...)
}

// setLogFlags are -s and -L.
func setLogFlags(level string) []cli.Flag {
	usage := "log `LEVEL`: DEBUG, INFO, WARNING, ERROR (the LOG_LEVEL setting"
	if level != "" {
		usage += "; default " + level + " for this command"
	}
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "s", Aliases: []string{"set"}, Usage: "set a setting, `KEY=VALUE` (repeatable)"},
		&cli.StringFlag{Name: "L", Aliases: []string{"loglevel"}, Usage: usage + ")"},
	}
}

// spiderFlags are -a, --allow-read and the settingFlags: the flags of every command that
// loads a spider file.
func spiderFlags(level string) []cli.Flag {
	return append([]cli.Flag{argFlag(), allowReadFlag()}, settingFlags(level)...)
}

// allowReadFlag is --allow-read, the folders whose files a spider file may import besides
// those of its own project (runtime.BundleOptions.AllowRead): the flag of every command
// that bundles a spider file.
func allowReadFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "allow-read", Usage: "let the spider file import files under `DIR` too (repeatable); without it, a spider imports only files in its folder (that of its nearest package.json) and its node_modules"}
}

// bundleOptions are the runtime.BundleOptions of the spider file of command c: jscrawl
// external, and the --allow-read folders.
func bundleOptions(c *cli.Context) runtime.BundleOptions {
	return runtime.BundleOptions{External: jsapi.NativeModules, AllowRead: c.StringSlice("allow-read")}
}

// argFlag is -a.
func argFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "a", Usage: "set a spider argument, `NAME=VALUE` (repeatable)"}
}

// crawlFlags are --frontier and --crawl-id, the FRONTIER and CRAWL_ID settings: the flags
// of a command whose crawl many processes can share (run). readFlags applies them as -s.
func crawlFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "frontier", EnvVars: []string{"JSCRAWL_FRONTIER"}, Usage: "share the crawl with other workers through the Redis at `URL`, redis://[:PASSWORD@]HOST:PORT/DB or rediss:// (the FRONTIER setting; the environment keeps a password out of the process list)"},
		&cli.StringFlag{Name: "crawl-id", Usage: "with --frontier: the shared crawl's `NAME`, which prefixes its Redis keys (the CRAWL_ID setting; default the spider's name)"},
	}
}

// browserFlags are --browser and --wait-for: the flags of a command given one URL to
// download (fetch, shell, parse). readFlags turns them into the meta.browser value of that
// URL's request (loadedSpider.browser).
func browserFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "browser", Usage: "render the URL in headless Chromium, as a request with browser: true (the BROWSER_* settings apply)"},
		&cli.StringFlag{Name: "wait-for", Usage: "render the URL in Chromium and wait until the CSS `SELECTOR` matches (the browser option waitFor; implies --browser)"},
	}
}

// crawlFlagSettings maps the flags that stand for a setting to it: the crawlFlags'
// --frontier and --crawl-id, run's and bench's --jobdir.
var crawlFlagSettings = map[string]string{"frontier": types.Frontier, "crawl-id": types.CrawlID, "jobdir": types.JobDir}

// loadOptions is what a command tells the loader about itself.
type loadOptions struct {
	// logLevel is the command's default LOG_LEVEL ("": the setting's default).
	logLevel string
	// set holds the settings of the command's own flags (fetch's --no-redirect),
	// applied at command-line priority after -s and before -L.
	set map[string]any
	// status puts a live status line under the log when stderr is a terminal (run).
	status bool
	// printOnly is for a command that only prints settings: it opens no LOG_FILE and
	// does not warn about unknown settings (it shows them).
	printOnly bool
}

// loadedSpider is what a spider command runs with: the settings (defaults < the spider's
// customSettings < the command line), the -a arguments, the logger and stats, and the
// spider once loaded. Close it when the command ends.
type loadedSpider struct {
	name           string        // the spider file, or the built-in spider's name: errors about the spider start with it
	spider         *jsapi.Spider // nil until load; stays nil for fetch without --spider
	settings       *types.Settings
	args           map[string]string
	stats          *engine.Stats
	logger         *slog.Logger
	stdout, stderr io.Writer
	status         *statusLine             // run's live status line on a terminal, else nil
	frontier       *redisfrontier.Frontier // the shared crawl's (openFrontier), else nil
	browser        any                     // the browserFlags' meta.browser value for the command's URL, else nil
	worker         string                  // this process's id in a shared crawl: %(worker)s in feed URIs
	inputs         []string                // the local files the spider file was bundled from (load)
	bundleOpts     runtime.BundleOptions   // how load bundles the spider file (bundleOptions)
	warcOut        *warc.Writer            // WARC_FILE's, once the engine is built (archiveOptions)
	replay         *warc.Archive           // REPLAY_FILES', once the engine is built

	opts    loadOptions
	level   *slog.LevelVar // LOG_LEVEL: customSettings may change it after the logger exists
	logOut  io.Writer      // the log's destination without LOG_FILE: stderr or the status line
	logSw   *logSwitch
	logMask *secretLog // in front of logSw: masks the secrets of the settings
	logConf [2]string  // the LOG_FILE and LOG_FORMAT in use
	logFile *os.File
}

// readFlags reads the shared flags (-s, -L, -a) and opts.set into settings checked before
// anything runs, and starts the log (LOG_FILE and LOG_FORMAT from the command line apply
// at once, from customSettings once the spider loads).
func readFlags(c *cli.Context, opts loadOptions) (*loadedSpider, error) {
	settings := types.NewSettings()
	if opts.logLevel != "" {
		if err := settings.Set(types.LogLevel, opts.logLevel, types.PriorityDefault); err != nil {
			return nil, err
		}
	}
	for _, kv := range c.StringSlice("s") {
		k, v, err := splitKV("-s", kv)
		if err != nil {
			return nil, err
		}
		if err := settings.Set(k, v, types.PriorityCmdline); err != nil {
			return nil, usageError("-s %s=%v: %v", k, types.MaskSetting(k, v), err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(opts.set)) {
		if err := settings.Set(k, opts.set[k], types.PriorityCmdline); err != nil {
			return nil, usageError("%s=%v: %v", k, opts.set[k], err)
		}
	}
	for _, flag := range slices.Sorted(maps.Keys(crawlFlagSettings)) {
		if c.IsSet(flag) {
			if err := settings.Set(crawlFlagSettings[flag], c.String(flag), types.PriorityCmdline); err != nil {
				return nil, usageError("--%s %v: %v", flag, types.MaskSetting(crawlFlagSettings[flag], c.String(flag)), err)
			}
		}
	}
	if err := archiveFlagSettings(c, settings); err != nil {
		return nil, err
	}
	if l := c.String("L"); l != "" {
		if err := settings.Set(types.LogLevel, l, types.PriorityCmdline); err != nil {
			return nil, usageError("-L %s: %v", l, err)
		}
	}
	level, err := engine.ParseLogLevel(settings.String(types.LogLevel))
	if err != nil {
		return nil, usageError("LOG_LEVEL: %v", err)
	}
	browser, err := readBrowserFlags(c)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	for _, kv := range c.StringSlice("a") {
		k, v, err := splitKV("-a", kv)
		if err != nil {
			return nil, err
		}
		if k == "customSettings" {
			// It would replace the spider's settings object with a string.
			return nil, usageError("-a customSettings: a spider argument cannot set the spider's customSettings; give each setting with -s KEY=VALUE")
		}
		args[k] = v
	}
	ls := &loadedSpider{settings: settings, args: args, browser: browser, stats: engine.NewStats(), opts: opts,
		bundleOpts: bundleOptions(c), level: new(slog.LevelVar), logConf: [2]string{"", "text"}}
	ls.stdout, ls.stderr = stdio(c)
	ls.level.Set(level)
	ls.logOut = ls.stderr
	if opts.status && isTerminal(ls.stderr) {
		ls.status = &statusLine{w: ls.stderr}
		ls.logOut = ls.status
	}
	ls.logSw = newLogSwitch(engine.NewLogHandler(ls.logOut, ls.level, ls.stats))
	ls.logMask = newSecretLog(ls.logSw)
	ls.logMask.setSecrets(settings)
	ls.logger = slog.New(ls.logMask)
	warnVisibleFrontier(c, ls.logger)
	if err := ls.setLog(); err != nil {
		ls.Close()
		return nil, err
	}
	return ls, nil
}

// readBrowserFlags returns the meta.browser value the browserFlags ask for: true for
// --browser, { waitFor } for --wait-for, nil without them (or on a command without them).
func readBrowserFlags(c *cli.Context) (any, error) {
	css := c.String("wait-for")
	if css == "" {
		if c.Bool("browser") {
			return true, nil
		}
		return nil, nil
	}
	v := types.Item{{Key: "waitFor", Value: css}}
	if _, _, err := types.ParseBrowserOptions(v); err != nil {
		return nil, usageError("--wait-for %s: %v", css, err)
	}
	return v, nil
}

// withBrowser returns meta with the browserFlags' meta.browser value set, or meta itself
// when the flags were not given or meta has a browser key already (parse's --meta with
// all the options).
func (ls *loadedSpider) withBrowser(meta types.Item) types.Item {
	if _, set := meta.Get(types.MetaBrowser); ls.browser == nil || set {
		return meta
	}
	meta = append(types.Item(nil), meta...)
	meta.Set(types.MetaBrowser, ls.browser)
	return meta
}

// setLog applies LOG_FILE and LOG_FORMAT when they changed.
func (ls *loadedSpider) setLog() error {
	conf := [2]string{ls.settings.String(types.LogFile), ls.settings.String(types.LogFormat)}
	if conf == ls.logConf || ls.opts.printOnly {
		return nil
	}
	w := ls.logOut
	if conf[0] != "" {
		f, err := os.OpenFile(conf[0], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return usageError("LOG_FILE: %v", err)
		}
		if ls.logFile != nil {
			ls.logFile.Close()
		}
		ls.logFile, w = f, f
	}
	h, err := logHandler(conf[1], w, ls.level, ls.stats)
	if err != nil {
		return usageError("%v", err)
	}
	ls.logSw.set(h)
	ls.logConf = conf
	return nil
}

// load bundles file, loads its spider with the -a arguments and applies its
// customSettings. An empty file loads no spider (fetch without --spider): the settings are
// then final as they are.
func (ls *loadedSpider) load(file string) error {
	ls.limitRegexps()
	if file == "" {
		return ls.configure()
	}
	prog, err := runtime.Bundle(file, ls.bundleOpts)
	if err != nil {
		return bundleError(err)
	}
	ls.inputs = prog.Inputs
	return ls.loadProgram(file, prog)
}

// limitRegexps bounds the matches of JS RegExps by the command line's JS_CALLBACK_TIMEOUT
// (a spider can only lower it) before any VM compiles one (runtime.LimitRegexps).
func (ls *loadedSpider) limitRegexps() {
	runtime.LimitRegexps(ls.settings.Duration(types.JSCallbackTimeout))
}

// loadSource is load for a built-in spider (the shell's, bench's) given as source.
func (ls *loadedSpider) loadSource(name, source string) error {
	ls.limitRegexps()
	prog, err := runtime.BundleSource(name+".js", source, runtime.BundleOptions{External: jsapi.NativeModules})
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", name, err), 1)
	}
	return ls.loadProgram(name, prog)
}

// loadProgram loads the spider of the bundled prog, named name, and configures.
func (ls *loadedSpider) loadProgram(name string, prog *runtime.Program) error {
	ls.name = name
	spider, err := jsapi.Load(prog, jsapi.Options{Args: ls.args, Logger: ls.logger})
	var ae *jsapi.ArgumentError
	if errors.As(err, &ae) {
		return usageError("%v", err) // a bad -a, not a bad spider
	}
	var ne *jsapi.NameError
	if errors.As(err, &ne) {
		return usageError("%s: %v", name, err) // a name that could leave the operator's folders
	}
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", name, err), 1)
	}
	ls.spider = spider
	return ls.configure()
}

// configure applies the spider's customSettings at spider priority (below the command
// line), then the LOG_LEVEL, LOG_FILE and LOG_FORMAT they give, and warns in that log
// about settings no one knows.
func (ls *loadedSpider) configure() error {
	if ls.spider != nil {
		custom := ls.spider.CustomSettings()
		if err := checkSpiderSettings("customSettings", custom); err != nil {
			return cli.Exit(fmt.Sprintf("%s: %v", ls.name, err), 2)
		}
		for _, k := range slices.Sorted(maps.Keys(custom)) {
			if err := ls.settings.Set(k, custom[k], types.PrioritySpider); err != nil {
				return cli.Exit(fmt.Sprintf("%s: customSettings: %v", ls.name, err), 2)
			}
		}
	}
	level, err := engine.ParseLogLevel(ls.settings.String(types.LogLevel))
	if err != nil {
		return usageError("LOG_LEVEL: %v", err)
	}
	ls.level.Set(level)
	ls.logMask.setSecrets(ls.settings)
	if ls.opts.printOnly {
		return nil
	}
	if err := engine.CheckImpersonate(ls.settings); err != nil {
		return usageError("%v", err)
	}
	if err := ls.setLog(); err != nil {
		return err
	}
	for _, k := range ls.settings.Keys() {
		if !ls.settings.Known(k) {
			hint := ""
			if near := types.Nearest(k); near != "" {
				hint = "; did you mean " + near + "?"
			}
			ls.logger.Warn(fmt.Sprintf("Unknown setting %s (ignored unless something reads it%s)", k, hint))
		}
	}
	return nil
}

// checkSpiderSettings refuses, as an error naming from (customSettings, tests[i].settings),
// the key and how the operator passes it, a spider setting the sandbox does not allow
// (engine/sandbox: operator-only keys, paths outside the working folder, loosened ceilings).
func checkSpiderSettings(from string, custom map[string]any) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := sandbox.CheckSettings(custom, dir); err != nil {
		return fmt.Errorf("%s.%w", from, err)
	}
	return nil
}

// newEngine builds the engine that crawls with the loaded spider (see engineFor); without
// one (fetch alone) the engine has nothing to crawl and only serves Engine.Download.
func (ls *loadedSpider) newEngine(opts ...engine.Option) (*engine.Engine, error) {
	if ls.spider == nil {
		return ls.engineFor(idleSpider{}, opts...)
	}
	return ls.engineFor(ls.spider, opts...)
}

// engineFor builds the engine that crawls with s (the loaded spider or a command's wrapper
// of it, as parse's) with the logger, the stats and then opts, and binds the loaded spider
// to it in the same call (jsapi.Spider.NewEngine).
func (ls *loadedSpider) engineFor(s engine.Spider, opts ...engine.Option) (*engine.Engine, error) {
	base := []engine.Option{engine.WithLogger(ls.logger), engine.WithStats(ls.stats)}
	if ls.frontier != nil {
		base = append(base, engine.WithScheduler(ls.frontier, ls.frontier.Parts()))
	}
	archive, err := ls.archiveOptions()
	if err != nil {
		return nil, err
	}
	base = append(base, archive...)
	pool, err := proxypool.FromSettings(ls.settings, ls.logger)
	if err != nil {
		return nil, usageError("%v", err)
	}
	base = append(base, engine.WithProxyPool(pool))
	if ls.spider == nil {
		return engine.New(s, ls.settings, append(base, opts...)...), nil
	}
	eng, err := ls.spider.NewEngine(s, ls.settings, append(base, opts...)...)
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("%s: %v", ls.name, err), 1)
	}
	return eng, nil
}

// Close closes the spider, the shared frontier, the WARC files and the log file.
func (ls *loadedSpider) Close() {
	ls.closeFrontier()
	ls.closeArchives()
	if ls.spider != nil {
		_ = ls.spider.Close()
	}
	if ls.logFile != nil {
		_ = ls.logFile.Close()
	}
}

// usageError is a bad command-line value: exit code 2.
func usageError(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), 2)
}

// splitKV splits a NAME=VALUE flag value (kind names the flag in the error).
func splitKV(kind, s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", usageError("bad %s value %q: want NAME=VALUE", kind, s)
	}
	return strings.TrimSpace(k), v, nil
}

// stopOnSignal is the command's context, cancelled by Ctrl-C (SIGINT) or SIGTERM: what
// fetch, parse, bench and demo stop on (run and shell tell the two signals apart).
func stopOnSignal(c *cli.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
}

// stdio returns the app's stdout and stderr.
func stdio(c *cli.Context) (stdout, stderr io.Writer) {
	stdout, stderr = c.App.Writer, c.App.ErrWriter
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	return stdout, stderr
}

// bundleError turns a runtime.Bundle error into an exit error (see bundleErrorText).
func bundleError(err error) error {
	return cli.Exit(bundleErrorText(err), 1)
}

// idleSpider is an engine.Spider with nothing to crawl: an engine built on it is only used
// for Engine.Download (fetch).
type idleSpider struct{}

func (idleSpider) Start(_ context.Context, _ engine.Emit) error { return nil }
func (idleSpider) Parse(_ context.Context, _ *types.Response, _ engine.Emit) error {
	return nil
}
func (idleSpider) Errback(_ context.Context, _ *types.Failure, _ engine.Emit) error {
	return nil
}

// Interface guards
var _ engine.Spider = idleSpider{}
