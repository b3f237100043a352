// Package job keeps a crawl in a folder (Scrapy: JOBDIR) so that it survives a stop, a crash
// or kill -9: its requests and fingerprints live in an on-disk frontier, and every commit
// saves, in one transaction, which requests are done, the byte position of every file feed,
// the stats and the spider's state. A resumed job cuts each feed back to its last committed
// position and downloads again the requests that were in flight, so the finished job's
// feeds hold every item exactly once.
package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// States of a job, as `jscrawl job` shows them.
const (
	StateRunning  = "running"
	StatePaused   = "paused"
	StateCrashed  = "crashed" // running when last seen, but no process holds its lock
	StateFinished = "finished"
)

// Keys of the frontier's meta data, committed with the requests.
const (
	metaStats     = "stats"
	metaFeeds     = "feeds"
	metaState     = "state"
	metaStartDone = "start_done"
	metaDone      = "done"
	metaReason    = "finish_reason"
	metaSessions  = "sessions"
)

// statusSlots is how many of the biggest slots the status file lists.
const statusSlots = 10

// statusFile is the job's summary, rewritten (atomically) at every commit: what `jscrawl job`
// reads, also while the job runs and holds the store.
const statusFile = "job.json"

// Status is what `jscrawl job DIR --json` prints.
type Status struct {
	Spider       string              `json:"spider"`
	File         string              `json:"file,omitempty"` // the spider file of the last run
	State        string              `json:"state"`
	PID          int                 `json:"pid,omitempty"` // of the run, while running
	Pending      int                 `json:"pending"`
	Leased       int                 `json:"leased"`
	Done         int64               `json:"done"`
	Seen         int64               `json:"seen"`
	Slots        int                 `json:"slots,omitempty"`    // download slots with pending requests
	TopSlots     []frontier.SlotSize `json:"topSlots,omitempty"` // the slots with the most pending requests
	Items        map[string]int64    `json:"items"`              // per feed URI, its credentials masked (types.MaskURL)
	LastCommit   string              `json:"lastCommit,omitempty"`
	FinishReason string              `json:"finishReason,omitempty"`
	Resumes      int64               `json:"resumes"`
	Started      string              `json:"started,omitempty"` // when the job began (RFC 3339, UTC)
	Demo         string              `json:"demo,omitempty"`    // the address of run --demo's site, kept for a resume
	Command      *Command            `json:"command,omitempty"` // what the job was started with, to resume it
}

// Command is the run a job was started with, kept in its status file so that
// `jscrawl run --jobdir DIR` alone resumes it: the spider file, the working folder and the
// options that change the crawl's results. A secret (a password or token) is never stored:
// its Option holds the value masked, and a resume must give it again.
type Command struct {
	File    string   `json:"file"`
	Dir     string   `json:"dir,omitempty"` // the working folder: relative paths are read from it
	Options []Option `json:"options,omitempty"`
}

// Option is one command-line option of a Command: its flag name (o, s, a, frontier ...) and
// its value as given, or masked when Secret.
type Option struct {
	Flag   string `json:"flag"`
	Value  string `json:"value"`
	Secret bool   `json:"secret,omitempty"` // Value is masked: the run must give it again
}

// ErrFolder is returned by Open for a job folder that cannot be used (not a folder, not
// writable): a bad --jobdir.
type ErrFolder struct {
	Dir string
	Err error
}

func (e *ErrFolder) Error() string { return fmt.Sprintf("job folder %s: %v", e.Dir, e.Err) }

// Unwrap returns the file system's error.
func (e *ErrFolder) Unwrap() error { return e.Err }

// ErrDamaged is returned by Open for a job with a part of its state missing or unreadable:
// a job is never silently started over.
type ErrDamaged struct {
	Dir     string
	Missing string // what is missing or damaged
}

func (e *ErrDamaged) Error() string {
	return fmt.Sprintf("job in %s is damaged: %s; restore it from a backup, or run with --fresh to start the job over", e.Dir, e.Missing)
}

// ErrRunning is returned by Open for a job another process runs.
type ErrRunning struct {
	Dir string
	PID int
}

func (e *ErrRunning) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("job in %s is running, pid %d", e.Dir, e.PID)
	}
	return fmt.Sprintf("job in %s is running", e.Dir)
}

// ErrOtherSpider is returned by Open for a folder that holds another spider's job.
type ErrOtherSpider struct {
	Dir, Spider, Want string
}

func (e *ErrOtherSpider) Error() string {
	return fmt.Sprintf("job in %s belongs to spider %q, not %q: use another folder, or --fresh to replace it", e.Dir, e.Spider, e.Want)
}

// Options configure Open.
type Options struct {
	Spider string // the spider's name
	File   string // the spider file, for the status and the resume hint
	Fresh  bool   // wipe the job's state and start over
	FIFO   bool   // SCHEDULER_MEMORY_QUEUE=fifo
	Demo   string // the demo site's address (run --demo), served at the same one on a resume
	// Command is the run's command (secrets masked), stored for the next resume; nil keeps
	// the stored one.
	Command *Command
	Logger  *slog.Logger
}

// StateSource is the spider as far as a job needs it: its state (this.state), read on its
// own loop. jsapi.Spider implements it.
type StateSource interface {
	JobState(ctx context.Context) ([]byte, error)
}

// Job is one job folder, open and locked by this process. Open it, check Finished, Bind it
// to the crawl's stats, feeds and spider, give Scheduler and the Job (an engine.Committer)
// to the engine, and Close it at the end.
type Job struct {
	dir    string
	opts   Options
	logger *slog.Logger
	lock   *os.File
	front  *frontier.Frontier
	status Status
	sched  *Scheduler

	resumed   bool
	restored  map[string]feed.Position // feed positions of the last commit (a resume)
	stats     *engine.Stats
	feeds     []*feed.Feed
	spider    StateSource
	lastState []byte
	err       error        // the first failed commit's error
	callbacks *callbackLog // nil for a finished job

	// The session pool (SESSION_POOL_ENABLED; engine.SessionStore): as the last commit saved
	// it, what serialises it for the next, and the retirements recorded since the job began.
	sessMu       sync.Mutex
	lastSessions []byte
	saveSessions func() ([]byte, error)
	retired      *retiredLog
}

// Err returns the error of the first commit that failed (a full disk under the job
// folder), or nil: the crawl then ended with finish_reason jobdir_error, and the job
// resumes from its last commit.
func (j *Job) Err() error { return j.err }

// Open opens (creating if missing) the job in dir and locks it. It refuses a job another
// process runs (*ErrRunning) or another spider's (*ErrOtherSpider); a damaged store is an
// error naming what is wrong. A finished job opens too: check Finished before crawling.
func Open(dir string, opts Options) (*Job, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &ErrFolder{Dir: dir, Err: err}
	}
	lock, err := lockDir(dir)
	if err != nil {
		var running *ErrRunning
		if errors.As(err, &running) {
			return nil, err
		}
		return nil, &ErrFolder{Dir: dir, Err: err}
	}
	j := &Job{dir: dir, opts: opts, logger: opts.Logger, lock: lock}
	ok := false
	defer func() {
		if !ok {
			j.Close()
		}
	}()
	if opts.Fresh {
		// key_value_stores: Crawlee's key-value stores (jsapi.KVStoresDir).
		for _, name := range []string{"frontier", statusFile, callbacksFile, retiredFile, "key_value_stores"} {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("--fresh: %w", err)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, statusFile)); err == nil {
		if err := json.Unmarshal(b, &j.status); err != nil {
			return nil, fmt.Errorf("job in %s: %s is damaged (%v): use --fresh to start over", dir, statusFile, err)
		}
		if j.status.Spider != "" && j.status.Spider != opts.Spider {
			return nil, &ErrOtherSpider{Dir: dir, Spider: j.status.Spider, Want: opts.Spider}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("job in %s: %w", dir, err)
	}
	if j.status.State == StateFinished {
		ok = true
		return j, nil
	}
	// A job that committed before has its status file and its frontier/ folder with that
	// commit: with either missing it would start over, and redo its work into the feeds.
	committed := j.status.LastCommit != ""
	fdir := filepath.Join(dir, "frontier")
	if _, err := os.Stat(fdir); committed && errors.Is(err, fs.ErrNotExist) {
		return nil, &ErrDamaged{Dir: dir, Missing: fmt.Sprintf("its frontier/ folder is missing (%s says %d requests done, last commit %s)", statusFile, j.status.Done, j.status.LastCommit)}
	}
	_, serr := os.Stat(filepath.Join(dir, statusFile))
	j.front, err = frontier.Open(fdir, frontier.Options{FIFO: opts.FIFO, Sync: true, SlotKey: engine.SlotKey})
	if err != nil {
		return nil, fmt.Errorf("job in %s: %w", dir, err)
	}
	j.resumed = j.front.Meta(metaStats) != nil
	if errors.Is(serr, fs.ErrNotExist) && j.resumed {
		return nil, &ErrDamaged{Dir: dir, Missing: fmt.Sprintf("its status file %s is missing (its frontier/ folder holds a commit)", statusFile)}
	}
	if committed && !j.resumed {
		return nil, &ErrDamaged{Dir: dir, Missing: fmt.Sprintf("its frontier/ folder holds no commit (%s says the last was %s): the store's files are missing", statusFile, j.status.LastCommit)}
	}
	if j.resumed {
		if b := j.front.Meta(metaFeeds); b != nil {
			if err := json.Unmarshal(b, &j.restored); err != nil {
				return nil, fmt.Errorf("job in %s: the feed positions are damaged: %v", dir, err)
			}
		}
		j.lastState = j.front.Meta(metaState)
		j.lastSessions = j.front.Meta(metaSessions)
	}
	if j.callbacks, err = openCallbackLog(dir); err != nil {
		return nil, err
	}
	if j.retired, err = openRetiredLog(dir, j.resumed); err != nil {
		return nil, err
	}
	if n := j.front.Migrated(); n > 0 {
		j.logger.Info(fmt.Sprintf("Moved the %d pending requests of the job in %s to per-slot queues (its frontier's new format)", n, dir))
	}
	j.sched = &Scheduler{f: j.front}
	if b := j.front.Meta(metaDone); b != nil {
		_ = json.Unmarshal(b, &j.sched.done)
	}
	j.status.Spider, j.status.File, j.status.PID = opts.Spider, opts.File, os.Getpid()
	if opts.Demo != "" {
		j.status.Demo = opts.Demo
	}
	if opts.Command != nil {
		j.status.Command = opts.Command
	}
	if j.status.Started == "" || !j.resumed {
		j.status.Started = time.Now().UTC().Format(time.RFC3339Nano)
	}
	j.status.State = StateRunning
	if err := j.writeStatus(); err != nil {
		return nil, err
	}
	ok = true
	return j, nil
}

// Finished reports whether the job was finished by an earlier run (and why): a finished job
// makes no request and changes no feed.
func (j *Job) Finished() (bool, string) {
	return j.status.State == StateFinished, j.status.FinishReason
}

// Resumed reports whether this run continues a job that ran before.
func (j *Job) Resumed() bool { return j.resumed }

// State returns the spider state (this.state) of the last commit, nil for a new job.
func (j *Job) State() []byte { return j.lastState }

// StartDone reports whether start() had yielded all its requests in an earlier run.
func (j *Job) StartDone() bool {
	return j.front != nil && string(j.front.Meta(metaStartDone)) == "true"
}

// Started returns when the job began: a resumed job expands %(time)s in feed URIs as its
// first run did, so its feeds are the same files.
func (j *Job) Started() time.Time {
	t, err := time.Parse(time.RFC3339Nano, j.status.Started)
	if err != nil {
		return time.Now()
	}
	return t
}

// Scheduler returns the job's scheduler, for engine.WithScheduler.
func (j *Job) Scheduler() *Scheduler { return j.sched }

// FeedPositions returns the committed positions of the file feeds, by the URI they were
// configured with (nil for a new job), for feed.ResumeAll.
func (j *Job) FeedPositions() map[string]feed.Position { return j.restored }

// Bind gives the job what it commits: the crawl's stats (restored from the last commit,
// cumulative over the runs, with jobdir/resume_count, jobdir/requests_restored and
// jobdir/leases_recovered), its file feeds and the spider's state. It then commits once, so
// the feeds' starting positions are saved before any item is written.
func (j *Job) Bind(ctx context.Context, stats *engine.Stats, feeds []*feed.Feed, spider StateSource) error {
	j.stats, j.feeds, j.spider = stats, feeds, spider
	j.sched.stats = stats
	if j.resumed {
		var saved map[string]any
		if err := json.Unmarshal(j.front.Meta(metaStats), &saved); err != nil {
			return fmt.Errorf("job in %s: the saved stats are damaged: %v", j.dir, err)
		}
		restoreStats(stats, saved)
		stats.Inc("jobdir/resume_count", 1)
		stats.Inc("jobdir/requests_restored", int64(j.front.Len()))
		stats.Inc("jobdir/leases_recovered", int64(j.front.Recovered()))
		j.logger.Info(fmt.Sprintf("Resuming the job in %s: %d requests pending (%d were in flight), %d done",
			j.dir, j.front.Len(), j.front.Recovered(), j.sched.done))
	}
	return j.Commit(ctx, engine.Progress{StartDone: j.StartDone()})
}

// restoreStats adds the saved counters to stats; the values of one run (times, the finish
// reason, memory figures) are not carried over.
func restoreStats(stats *engine.Stats, saved map[string]any) {
	for k, v := range saved {
		switch {
		case k == "start_time", k == "finish_time", k == "finish_reason", k == "elapsed_time_seconds",
			strings.HasPrefix(k, "memusage/"):
			continue
		}
		if f, ok := v.(float64); ok && f == math.Trunc(f) {
			stats.Inc(k, int64(f))
		}
	}
}

// Commit implements engine.Committer: it makes the feeds durable, then saves in one
// transaction the frontier's changes since the last commit with the feeds' positions, the
// stats, the spider's state and start()'s progress, and rewrites the status file.
func (j *Job) Commit(ctx context.Context, p engine.Progress) (err error) {
	defer func() {
		if err != nil && j.err == nil {
			j.err = err
		}
	}()
	positions := map[string]feed.Position{}
	items := map[string]int64{}
	for _, f := range j.feeds {
		pos, err := f.Sync()
		if err != nil {
			return fmt.Errorf("feed %s: %w", types.MaskURL(f.URI()), err)
		}
		if pos.Stdout {
			continue // stdout feeds are at-least-once: nothing to cut back
		}
		// Keyed by the URI with its password masked: the job folder holds no secret
		// (feed.ResumeAll looks the masked URI up too).
		positions[types.MaskURL(f.Template())] = pos
		items[types.MaskURL(f.URI())] = pos.Items // the status file is for anyone to read
	}
	meta := map[string][]byte{}
	if meta[metaFeeds], err = json.Marshal(positions); err != nil {
		return err
	}
	if j.stats != nil {
		if meta[metaStats], err = json.Marshal(j.stats.Snapshot()); err != nil {
			return fmt.Errorf("stats: %w", err)
		}
	}
	if j.spider != nil {
		// The engine waits for the commit: a VM busy with synchronous JS delays a periodic
		// commit by at most a second (the last state read is saved then), the last one longer.
		wait := time.Second
		if p.Final {
			wait = 10 * time.Second
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
		state, err := j.spider.JobState(sctx)
		cancel()
		if err != nil {
			// The last good state is kept: the rest of the commit still counts.
			j.logger.Error(fmt.Sprintf("Could not save this.state: %v", err))
		} else {
			j.lastState = state
		}
	}
	if j.lastState != nil {
		meta[metaState] = j.lastState
	}
	j.sessMu.Lock()
	save := j.saveSessions
	j.sessMu.Unlock()
	if save != nil {
		if b, err := save(); err != nil {
			j.logger.Error(fmt.Sprintf("Could not save the sessions: %v", err))
		} else {
			j.lastSessions = b
		}
	}
	if j.lastSessions != nil {
		meta[metaSessions] = j.lastSessions
	}
	meta[metaStartDone] = []byte(fmt.Sprint(p.StartDone))
	meta[metaDone], _ = json.Marshal(j.sched.done)
	finished := p.Final && !resumable(p.Reason)
	if p.Final {
		meta[metaReason] = []byte(p.Reason)
	}
	if err := j.front.Commit(meta); err != nil {
		return fmt.Errorf("commit the job in %s: %w", j.dir, err)
	}
	for _, f := range j.feeds {
		if pos, ok := positions[types.MaskURL(f.Template())]; ok {
			f.Committed(pos) // an s3:// feed removes the local files of uploaded batches
		}
	}
	if j.callbacks != nil {
		// Compacted: the requests done by now are forgotten.
		if err := j.callbacks.rewrite(j.dir); err != nil {
			j.logger.Error(err.Error())
		}
	}
	j.status.Pending, j.status.Leased = j.front.Len(), j.front.Leased()
	j.status.Done, j.status.Seen = j.sched.done, j.front.SeenCount()
	j.status.Slots, _, _ = j.front.SlotCounts()
	j.status.TopSlots = j.front.SlotSizes(statusSlots)
	j.status.Items = items
	j.status.LastCommit = time.Now().UTC().Format(time.RFC3339)
	if j.stats != nil {
		j.status.Resumes = j.stats.Int("jobdir/resume_count")
	}
	if p.Final {
		j.status.FinishReason = p.Reason
		j.status.State, j.status.PID = StatePaused, 0
		if finished {
			j.status.State = StateFinished
		}
	}
	return j.writeStatus()
}

// resumable reports whether a crawl that ended with reason can be resumed: a stop (Ctrl-C,
// SIGTERM), a memory limit or a failed feed, WARC file or commit, not a crawl that finished or was
// closed by a CLOSESPIDER_* limit.
func resumable(reason string) bool {
	switch reason {
	case "shutdown", engine.ReasonMemUsageExceeded, "feed_error", "jobdir_error", "warc_error":
		return true
	}
	return false
}

// Paused reports whether the crawl that ended with reason left the job resumable.
func Paused(reason string) bool { return resumable(reason) }

// writeStatus replaces the status file atomically.
func (j *Job) writeStatus() error {
	b, err := json.MarshalIndent(j.status, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(j.dir, statusFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("job status: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(j.dir, statusFile)); err != nil {
		return fmt.Errorf("job status: %w", err)
	}
	return nil
}

// Close closes the store and releases the lock. It does not commit: the engine's last
// commit did.
func (j *Job) Close() error {
	var err error
	j.callbacks.close()
	j.retired.close()
	if j.front != nil {
		err = j.front.Close()
		j.front = nil
	}
	if j.lock != nil {
		unlockDir(j.lock)
		j.lock = nil
	}
	return err
}

// ReadStatus returns the status of the job in dir without opening its store, also while
// another process runs it: a job last seen running whose lock nobody holds has crashed.
func ReadStatus(dir string) (Status, error) {
	var st Status
	b, err := os.ReadFile(filepath.Join(dir, statusFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("no job in %s", dir)
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("job in %s: %s is damaged: %v", dir, statusFile, err)
	}
	if st.State == StateRunning && !lockedByOther(dir) {
		st.State, st.PID = StateCrashed, 0
	}
	if st.Items == nil {
		st.Items = map[string]int64{}
	}
	return st, nil
}

// Interface guards
var (
	_ engine.Committer   = (*Job)(nil)
	_ engine.CallbackLog = (*Job)(nil)
)
