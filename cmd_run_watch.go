package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
)

// watchInterval is how often run --watch looks at the spider's files.
const watchInterval = 250 * time.Millisecond

// spiderWatcher is run --watch: it watches the spider file and its local imports (the
// bundle's inputs) and, when one changes, bundles the spider again and swaps its code in
// the running crawl (jsapi.DevTools.Reload), which keeps the queue, the seen set, the feeds,
// the stats and this.state. An edit that does not bundle (a syntax error, logged with
// file:line:col) or whose module throws keeps the old code.
//
// It polls: every watchInterval it compares each file's modification time and size and,
// when they moved, its content hash. fsnotify would need a dependency and a watch on each
// folder (editors save by writing a new file and renaming it over the old, which ends a
// watch on the file itself), and its events do not reach containers' bind mounts or
// network folders; a stat of a few files four times a second costs nothing next to a crawl.
type spiderWatcher struct {
	file   string // the spider file as typed
	spider *jsapi.DevTools
	logger *slog.Logger
	queued func() int // requests waiting in the crawl (Engine.Backlog), for the log
	opts   runtime.BundleOptions
	stamps map[string]fileStamp
}

// fileStamp is what the watcher knows of a file: a change of mod or size makes it hash
// the content, and a change of the hash is an edit. A missing file has the zero stamp.
type fileStamp struct {
	mod  time.Time
	size int64
	sum  [sha256.Size]byte
}

// newSpiderWatcher watches inputs, the files the spider was bundled from with opts (which
// bundle it again).
func newSpiderWatcher(file string, opts runtime.BundleOptions, inputs []string, spider *jsapi.DevTools, logger *slog.Logger, queued func() int) *spiderWatcher {
	w := &spiderWatcher{file: file, opts: opts, spider: spider, logger: logger, queued: queued, stamps: map[string]fileStamp{}}
	for _, p := range inputs {
		w.stamps[p] = stamp(p, fileStamp{})
	}
	return w
}

// stamp returns path's stamp, hashing the content only when the modification time or the
// size differ from prev's.
func stamp(path string, prev fileStamp) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	st := fileStamp{mod: fi.ModTime(), size: fi.Size(), sum: prev.sum}
	if st.mod.Equal(prev.mod) && st.size == prev.size {
		return st
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fileStamp{}
	}
	st.sum = sha256.Sum256(b)
	return st
}

// run watches until ctx ends.
func (w *spiderWatcher) run(ctx context.Context) {
	w.logger.Info(fmt.Sprintf("Watching %s and its %d local imports: an edit reloads the spider's code", w.file, len(w.stamps)-1))
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if w.changed() {
			w.apply(ctx)
		}
	}
}

// changed updates the stamps and reports whether a file's content changed.
func (w *spiderWatcher) changed() bool {
	changed := false
	for p, prev := range w.stamps {
		st := stamp(p, prev)
		if st.sum != prev.sum || (st == fileStamp{}) != (prev == fileStamp{}) {
			changed = true
		}
		w.stamps[p] = st
	}
	return changed
}

// apply bundles the spider again and reloads it, or logs why the old code runs on.
func (w *spiderWatcher) apply(ctx context.Context) {
	prog, err := runtime.Bundle(w.file, w.opts)
	if err != nil {
		w.logger.Error(fmt.Sprintf("%s changed but does not build: the old code runs on\n%s", w.file, bundleErrorText(err)))
		return
	}
	// The imports may have changed: watch the new set of files.
	next := make(map[string]fileStamp, len(prog.Inputs))
	for _, p := range prog.Inputs {
		if st, ok := w.stamps[p]; ok {
			next[p] = st
		} else {
			next[p] = stamp(p, fileStamp{})
		}
	}
	w.stamps = next
	if err := w.spider.Reload(ctx, prog); err != nil {
		if ctx.Err() == nil {
			w.logger.Error(fmt.Sprintf("%s changed but its new code fails: the old code runs on\n%v", w.file, err))
		}
		return
	}
	w.logger.Info(fmt.Sprintf("Reloaded %s (%d requests queued)", w.file, w.queued()))
}

// bundleErrorText is a runtime.Bundle error as the user reads it: a syntax error shows its
// line with a caret under the column, as compilers do.
func bundleErrorText(err error) string {
	var b bytes.Buffer
	b.WriteString(err.Error())
	var se *runtime.SyntaxError
	if errors.As(err, &se) && se.LineText != "" {
		col := min(max(se.Column-1, 0), len(se.LineText))
		fmt.Fprintf(&b, "\n    %s\n    %s^", se.LineText, bytes.Repeat([]byte{' '}, col))
	}
	if errors.Is(err, runtime.ErrOutsideRoot) {
		b.WriteString("\n(a spider imports only files in its folder and its node_modules; --allow-read DIR lets it read DIR too)")
	}
	return b.String()
}
