package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/types"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"
)

// A shared crawl (docs/distributed.md): the loader's step that opens the Redis frontier
// for run (FRONTIER, CRAWL_ID), the crawl-wide CLOSESPIDER_* limits, and the commands
// that read or clear a crawl in Redis (stats --frontier, frontier clear).

// ReasonFrontierError is the finish_reason of a worker whose Redis frontier failed for
// good (unreachable for FRONTIER_RETRY_TIMEOUT).
const ReasonFrontierError = "frontier_error"

// openFrontier opens the shared crawl's frontier when FRONTIER is set, once the spider is
// loaded (its name is the default CRAWL_ID), and sets the worker id (%(worker)s in feed
// URIs: the frontier's, or host-pid without one). It reports whether the crawl is already
// finished. onFatal is called once if Redis stays unreachable past FRONTIER_RETRY_TIMEOUT.
func (ls *loadedSpider) openFrontier(ctx context.Context, onFatal func(error)) (finished bool, err error) {
	host, _ := os.Hostname()
	ls.worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	if ls.settings.String(types.Frontier) == "" {
		return false, nil
	}
	if ls.settings.String(types.JobDir) != "" {
		return false, usageError("--frontier (FRONTIER) and --jobdir (JOBDIR) do not go together: a shared crawl keeps its state in Redis, where another worker takes over what a stopped one held")
	}
	redis.SetLogger(redisLog{ls.logger})
	opts := redisfrontier.OptionsFromSettings(ls.settings, ls.spider.Name())
	opts.Stats, opts.Logger, opts.OnFatal = ls.stats, ls.logger, onFatal
	f, err := redisfrontier.Open(ctx, opts)
	if err != nil && ctx.Err() != nil {
		return false, cli.Exit("stopped while waiting for the Redis frontier", 130)
	}
	if err != nil {
		return false, cli.Exit(fmt.Sprintf("%s: %v", ls.name, err), 1)
	}
	ls.frontier, ls.worker = f, f.WorkerID()
	if f.Finished() {
		// As a finished job says so: on stderr whatever the log level.
		fmt.Fprintf(ls.stderr, "crawl %s already finished: nothing to do (jscrawl frontier clear --frontier URL --crawl-id %s removes it, to crawl it again)\n", opts.CrawlID, opts.CrawlID)
		return true, nil
	}
	ls.logger.Info(fmt.Sprintf("Worker %s joins the shared crawl %s (Redis keys %s*)", f.WorkerID(), opts.CrawlID, f.Prefix()))
	return false, nil
}

// redisLog sends the Redis client's own messages (a failed dial, each time it retries) to
// the log at DEBUG: the frontier reports the outage itself, once, in the crawl's log.
type redisLog struct{ logger *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.logger.Debug("Redis client: " + fmt.Sprintf(format, v...))
}

// closeFrontier closes the shared frontier, if open: it hands back what this worker held
// and leaves the crawl. It waits for Redis at most 30 seconds.
func (ls *loadedSpider) closeFrontier() {
	if ls.frontier == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ls.frontier.Close(ctx); err != nil && ls.frontier.Err() == nil { // a failure it logged already
		ls.logger.Error(fmt.Sprintf("Closing the shared frontier: %v", err))
	}
	ls.frontier = nil
}

// crawlWideLimits makes the CLOSESPIDER_ITEMCOUNT, _PAGECOUNT and _ERRORCOUNT limits count
// over the whole shared crawl: each worker compares the crawl's count (as of its last
// heartbeat, plus its own since) with the limit as its own count grows, and closes when it
// is reached. The engine still checks its own counts, which are never above the crawl's.
func crawlWideLimits(eng *engine.Engine, f *redisfrontier.Frontier, settings *types.Settings) {
	for _, l := range []struct {
		sig    engine.Signal
		key    string
		stat   string
		reason string
	}{
		{engine.ItemScraped, types.CloseSpiderItemCount, "item_scraped_count", "closespider_itemcount"},
		{engine.ResponseReceived, types.CloseSpiderPageCount, "response_received_count", "closespider_pagecount"},
		{engine.SpiderError, types.CloseSpiderErrorCount, "spider_exceptions/count", "closespider_errorcount"},
	} {
		limit := int64(settings.Int(l.key))
		if limit <= 0 {
			continue
		}
		eng.Connect(l.sig, func(context.Context, engine.SignalEvent) error {
			if f.CrawlCount(l.stat) >= limit {
				eng.CloseSpider(l.reason)
			}
			return nil
		})
	}
}

// frontierFailed is run's exit when the shared frontier failed for good.
func frontierFailed(err error) error {
	if errors.Is(err, redisfrontier.ErrStateLost) {
		return cli.Exit(fmt.Sprintf("the shared crawl stopped: %v", err), 1)
	}
	return cli.Exit(fmt.Sprintf("the shared crawl stopped: %v; nothing is lost: start workers again to go on with it", err), 1)
}

// statsFromRedis prints the shared crawl's status as JSON: its aggregate stats and its
// workers (stats --frontier).
func statsFromRedis(c *cli.Context) error {
	redis.SetLogger(redisLog{slog.Default()})
	url, id, err := crawlInRedis(c, "stats")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Context, 15*time.Second)
	defer cancel()
	st, err := redisfrontier.Inspect(ctx, url, id)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	w, _ := stdio(c)
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// crawlInRedis reads --frontier and --crawl-id, which a command on a shared crawl needs.
func crawlInRedis(c *cli.Context, cmd string) (url, id string, err error) {
	if c.NArg() > 0 {
		return "", "", usageError("%s --frontier takes no PID (got %q)", cmd, c.Args().First())
	}
	url, id = c.String("frontier"), c.String("crawl-id")
	if url == "" || id == "" {
		return "", "", usageError("%s needs --frontier redis://HOST:PORT/DB and --crawl-id NAME (the spider's name unless the workers were given --crawl-id)", cmd)
	}
	return url, id, nil
}

func frontierCommand() *cli.Command {
	return &cli.Command{
		Name:  "frontier",
		Usage: "manage shared crawls in Redis (--frontier)",
		Subcommands: []*cli.Command{{
			Name:  "clear",
			Usage: "remove a shared crawl's keys from Redis (every key starting with jscrawl:<crawl-id>:)",
			Description: `Stop the crawl's workers first. On a terminal it asks before deleting; elsewhere it needs --yes.

Examples:
   jscrawl frontier clear --frontier redis://127.0.0.1:6379/0 --crawl-id books
   jscrawl frontier clear --frontier redis://127.0.0.1:6379/0 --crawl-id books --yes`,
			Flags: append(crawlFlags(), &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask"}),
			Action: func(c *cli.Context) error {
				redis.SetLogger(redisLog{slog.Default()})
				url, id, err := crawlInRedis(c, "frontier clear")
				if err != nil {
					return err
				}
				stdout, stderr := stdio(c)
				if !c.Bool("yes") {
					in := c.App.Reader
					if in == nil {
						in = os.Stdin
					}
					if !isTerminal(in) || !isTerminal(stderr) {
						return usageError("frontier clear deletes the crawl %s: give --yes to do it without a terminal to ask on", id)
					}
					if !confirm(in, stderr, fmt.Sprintf("Delete every key of the crawl %s (jscrawl:%s:*)? [y/N] ", id, id)) {
						return cli.Exit("nothing deleted", 1)
					}
				}
				ctx, cancel := context.WithTimeout(c.Context, time.Minute)
				defer cancel()
				n, err := redisfrontier.Clear(ctx, url, id)
				if err != nil {
					return cli.Exit(err.Error(), 1)
				}
				fmt.Fprintf(stdout, "crawl %s: %d keys deleted\n", id, n)
				return nil
			},
		}},
	}
}

// confirm asks question on w and reports whether the answer read from r is yes.
func confirm(r io.Reader, w io.Writer, question string) bool {
	fmt.Fprint(w, question)
	line, _ := bufio.NewReader(r).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
