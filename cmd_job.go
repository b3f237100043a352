package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/engine/job"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func jobCommand() *cli.Command {
	return &cli.Command{
		Name:      "job",
		Usage:     "show a job folder (--jobdir) without running it, also while it runs",
		ArgsUsage: "DIR",
		Description: `Prints the job's spider, state (running, paused, crashed, finished), requests pending,
leased (in flight), done and seen, the items in each feed, the last commit, the finish
reason and the command the job was started with (passwords and tokens masked). A job
remembers its command: jscrawl run --jobdir DIR resumes it.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the status as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("job needs the job folder: jscrawl job DIR")
			}
			st, err := job.ReadStatus(c.Args().First())
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			w, _ := stdio(c)
			if c.Bool("json") {
				b, err := json.MarshalIndent(st, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(w, string(b))
				return err
			}
			printJobStatus(w, c.Args().First(), st)
			return nil
		},
	}
}

func printJobStatus(w io.Writer, dir string, st job.Status) {
	fmt.Fprintf(w, "job      %s\n", dir)
	fmt.Fprintf(w, "spider   %s", st.Spider)
	if st.File != "" {
		fmt.Fprintf(w, " (%s)", st.File)
	}
	fmt.Fprintln(w)
	state := st.State
	if st.PID > 0 {
		state += fmt.Sprintf(", pid %d", st.PID)
	}
	if st.FinishReason != "" {
		state += " (" + st.FinishReason + ")"
	}
	fmt.Fprintf(w, "state    %s\n", state)
	fmt.Fprintf(w, "requests %d pending, %d leased, %d done, %d seen\n", st.Pending, st.Leased, st.Done, st.Seen)
	uris := make([]string, 0, len(st.Items))
	for u := range st.Items {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	for _, u := range uris {
		fmt.Fprintf(w, "items    %d in %s\n", st.Items[u], u)
	}
	if st.LastCommit != "" {
		fmt.Fprintf(w, "commit   %s (%d resumes)\n", st.LastCommit, st.Resumes)
	}
	if st.Command != nil {
		fmt.Fprintf(w, "command  %s\n", commandText(st.Command, dir))
		if st.State != job.StateFinished {
			fmt.Fprintf(w, "resume   %s\n", resumeHint(st.Command, dir))
		}
	}
}

// runJob is what a crawl with a job folder adds to `jscrawl run`.
type runJob struct {
	j        *job.Job
	dir      string
	file     string
	cmd      *job.Command // the command the job runs with (secrets masked)
	override bool         // --override: the feeds may differ from the earlier runs'
}

// openJob opens the job folder for the spider, storing cmd as the job's command. It
// returns (nil, nil) without a jobdir, and an exit error (2 for an unusable folder, a job
// another process runs or another spider's, 1 for a damaged one) when it cannot be used.
// override lets a resumed job's feeds differ from its earlier runs'.
func openJob(settings *types.Settings, fresh bool, spider *jsapi.Spider, file, demo string, cmd *job.Command, override bool, logger *slog.Logger) (*runJob, error) {
	dir := settings.String(types.JobDir)
	if dir == "" {
		if fresh {
			return nil, usageError("--fresh needs --jobdir")
		}
		return nil, nil
	}
	j, err := job.Open(dir, job.Options{Spider: spider.Name(), File: file, Fresh: fresh,
		FIFO: settings.String(types.SchedulerMemoryQueue) == "fifo", Demo: demo, Command: cmd, Logger: logger})
	var running *job.ErrRunning
	var other *job.ErrOtherSpider
	var folder *job.ErrFolder
	switch {
	case errors.As(err, &running), errors.As(err, &other), errors.As(err, &folder):
		return nil, usageError("%v", err)
	case err != nil:
		return nil, cli.Exit(err.Error(), 1)
	}
	return &runJob{j: j, dir: dir, file: file, cmd: cmd, override: override}, nil
}

// openFeeds opens the feeds: in a resumed job each file feed is cut back to its committed
// position and continued (-O does not overwrite then), the others as usual. Batch feeds are
// refused in a job, but for s3:// (see engine/feed/s3.go).
func (r *runJob) openFeeds(feeds map[string]feed.Config, env feed.Env) ([]*feed.Feed, error) {
	for uri, cfg := range feeds {
		if err := feed.CheckJobFeed(uri, cfg); err != nil {
			return nil, usageError("feed %s: %v", types.MaskURL(uri), err)
		}
	}
	if had := r.j.FeedPositions(); len(had) > 0 && len(feeds) == 0 && !r.override {
		// The rest of the job's items would be scraped into no feed, and the job end finished.
		uris := slices.Sorted(maps.Keys(had))
		return nil, usageError("--jobdir %s: the job's earlier runs wrote the feeds %s, this run has none: give them again, or --override to go on without", r.dir, strings.Join(uris, ", "))
	}
	env.Now = r.j.Started()
	env.Job = true     // table feeds record their transactions for Resume
	env.JobDir = r.dir // s3:// feeds keep their local files there
	fs, err := feed.ResumeAll(feeds, env, r.j.FeedPositions())
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	return fs, nil
}

// engineOptions returns what the engine needs of the job, after binding it to the crawl's
// stats, feeds and spider (which commits the feeds' starting positions).
func (r *runJob) engineOptions(ctx context.Context, settings *types.Settings, stats *engine.Stats, feeds []*feed.Feed, spider *jsapi.Spider) ([]engine.Option, error) {
	if err := spider.SetJobState(r.j.State(), r.j.Resumed()); err != nil {
		return nil, cli.Exit(fmt.Sprintf("job in %s: this.state: %v", r.dir, err), 1)
	}
	if err := r.j.Bind(ctx, stats, feeds, spider); err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	opts := []engine.Option{
		engine.WithScheduler(r.j.Scheduler(), r.j.Scheduler().Parts()),
		engine.WithCommitter(r.j, settings.Duration(types.JobDirCommitInterval)),
	}
	if r.j.StartDone() {
		opts = append(opts, engine.WithStartDone())
	}
	return opts, nil
}

// demoAddr returns the address run --demo should serve the demo site at: the one a job's
// earlier run used (its requests name it), or any free port.
func demoAddr(jobdir string) string {
	if jobdir != "" {
		if st, err := job.ReadStatus(jobdir); err == nil && st.Demo != "" && st.State != job.StateFinished {
			return st.Demo
		}
	}
	return "127.0.0.1:0"
}

// storeFailed is run's exit when the job's progress could not be saved (finish_reason
// jobdir_error): one line with the path and the reason; the job resumes from its last
// commit once the disk has room.
func (r *runJob) storeFailed() error {
	msg := "the job's progress could not be saved (finish_reason jobdir_error)"
	if err := r.j.Err(); err != nil {
		msg += ": " + err.Error()
	}
	return cli.Exit(msg+"; free space (or fix the disk) and resume", 1)
}

// ended tells the user how to resume a job the crawl left resumable.
func (r *runJob) ended(w io.Writer, reason string) {
	if job.Paused(reason) {
		fmt.Fprintf(w, "Paused. Resume with: %s\n", resumeHint(r.cmd, r.dir))
	}
}
