package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// Wiring shared by the commands that load a spider or download (run, parse, shell, fetch,
// settings, bench). run.go still parses its own -s/-a values and applies customSettings
// itself (it also warns about unknown settings).

// Flags the spider commands share with run.
func settingFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "s", Aliases: []string{"set"}, Usage: "set a setting, `KEY=VALUE` (repeatable)"}
}

func argFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "a", Usage: "set a spider argument, `NAME=VALUE` (repeatable)"}
}

func logLevelFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: "L", Aliases: []string{"loglevel"},
		Usage: "log `LEVEL`: DEBUG, INFO, WARNING, ERROR (the LOG_LEVEL setting; default " + def + " for this command)"}
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

// commandSettings returns the defaults with logLevel as this command's default LOG_LEVEL,
// overridden by -s KEY=VALUE and -L at command-line priority.
func commandSettings(c *cli.Context, logLevel string) (*types.Settings, error) {
	settings := types.NewSettings()
	if logLevel != "" {
		if err := settings.Set(types.LogLevel, logLevel, types.PriorityDefault); err != nil {
			return nil, err
		}
	}
	for _, kv := range c.StringSlice("s") {
		k, v, err := splitKV("-s", kv)
		if err != nil {
			return nil, err
		}
		if err := settings.Set(k, v, types.PriorityCmdline); err != nil {
			return nil, usageError("-s %s=%s: %v", k, v, err)
		}
	}
	if l := c.String("L"); l != "" {
		if err := settings.Set(types.LogLevel, l, types.PriorityCmdline); err != nil {
			return nil, usageError("-L %s: %v", l, err)
		}
	}
	if _, err := engine.ParseLogLevel(settings.String(types.LogLevel)); err != nil {
		return nil, usageError("LOG_LEVEL: %v", err)
	}
	return settings, nil
}

// spiderArgs returns the -a NAME=VALUE arguments.
func spiderArgs(c *cli.Context) (map[string]string, error) {
	args := map[string]string{}
	for _, kv := range c.StringSlice("a") {
		k, v, err := splitKV("-a", kv)
		if err != nil {
			return nil, err
		}
		args[k] = v
	}
	return args, nil
}

// commandLogger is the engine's log handler on w at the level of settings' LOG_LEVEL; the
// LevelVar lets a spider's customSettings change it after the spider loads.
func commandLogger(w io.Writer, settings *types.Settings, stats *engine.Stats) (*slog.Logger, *slog.LevelVar) {
	lv := new(slog.LevelVar)
	level, _ := engine.ParseLogLevel(settings.String(types.LogLevel))
	lv.Set(level)
	return slog.New(engine.NewLogHandler(w, lv, stats)), lv
}

// bundleError turns a runtime.Bundle error into an exit error: a syntax error shows its
// line with a caret under the column, as compilers do.
func bundleError(err error) error {
	var se *runtime.SyntaxError
	if errors.As(err, &se) && se.LineText != "" {
		col := min(max(se.Column-1, 0), len(se.LineText))
		return cli.Exit(fmt.Sprintf("%v\n    %s\n    %s^", err, se.LineText, strings.Repeat(" ", col)), 1)
	}
	return cli.Exit(err.Error(), 1)
}

// loadSpider bundles file and loads its spider with the -a arguments.
func loadSpider(file string, args map[string]string, logger *slog.Logger) (*jsapi.Spider, error) {
	prog, err := runtime.Bundle(file, runtime.BundleOptions{External: []string{jsapi.ModuleName}})
	if err != nil {
		return nil, bundleError(err)
	}
	spider, err := jsapi.Load(prog, jsapi.Options{Args: args, Logger: logger})
	var ae *jsapi.ArgumentError
	if errors.As(err, &ae) {
		return nil, usageError("%v", err) // a bad -a, not a bad spider
	}
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("%s: %v", file, err), 1)
	}
	return spider, nil
}

// spiderEngineOptions are the engine options every command that runs a spider starts from:
// its logger and stats (engine.New places the spider's JS middlewares itself).
func spiderEngineOptions(spider *jsapi.Spider, settings *types.Settings, logger *slog.Logger, stats *engine.Stats) []engine.Option {
	return []engine.Option{engine.WithLogger(logger), engine.WithStats(stats)}
}

// applyCustomSettings applies the spider's customSettings at spider priority (below the
// command line) and sets lv to the resulting LOG_LEVEL.
func applyCustomSettings(settings *types.Settings, spider *jsapi.Spider, file string, lv *slog.LevelVar) error {
	custom := spider.CustomSettings()
	keys := make([]string, 0, len(custom))
	for k := range custom {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := settings.Set(k, custom[k], types.PrioritySpider); err != nil {
			return cli.Exit(fmt.Sprintf("%s: customSettings: %v", file, err), 2)
		}
	}
	level, err := engine.ParseLogLevel(settings.String(types.LogLevel))
	if err != nil {
		return usageError("LOG_LEVEL: %v", err)
	}
	if lv != nil {
		lv.Set(level)
	}
	return nil
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
