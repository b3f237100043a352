package job

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// callbacksFile is the job's log of the callbacks running: a run that dies while a callback
// runs (a crash, a kill, a hard stop) leaves it there, so the next run knows that request's
// callback took a run of the job down with it. Lines: "= FP N" (the callback of the
// request with fingerprint FP was running when N earlier runs died), "+ FP" (it started),
// "- FP" (it ended). Writes go to the file unbuffered, without fsync: they survive the
// process (a crash or a kill), which is what they are for.
const callbacksFile = "callbacks.log"

// callbackLog is the in-memory side of callbacksFile; used by the engine goroutine only.
type callbackLog struct {
	f       *os.File
	died    map[string]int // fingerprint -> earlier runs that died while its callback ran
	running map[string]int // fingerprint -> callbacks running now
}

// openCallbackLog reads dir's callbacks file (missing: none) and starts a fresh one that
// keeps what it learnt.
func openCallbackLog(dir string) (*callbackLog, error) {
	l := &callbackLog{died: map[string]int{}, running: map[string]int{}}
	path := filepath.Join(dir, callbacksFile)
	f, err := os.Open(path)
	switch {
	case err == nil:
		running := map[string]int{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			op, rest, _ := strings.Cut(sc.Text(), " ")
			fp, n, _ := strings.Cut(rest, " ")
			switch op {
			case "=":
				if v, err := strconv.Atoi(n); err == nil {
					l.died[fp] = v
				}
			case "+":
				running[fp]++
			case "-":
				if running[fp] > 0 {
					running[fp]--
				}
				if running[fp] == 0 {
					delete(running, fp)
					delete(l.died, fp) // it ended: its request is done
				}
			}
		}
		_ = f.Close()
		for fp := range running {
			l.died[fp]++
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("job in %s: %w", dir, err)
	}
	if err := l.rewrite(dir); err != nil {
		return nil, err
	}
	return l, nil
}

// rewrite replaces the file with what the log knows: the deaths and the callbacks running.
func (l *callbackLog) rewrite(dir string) error {
	var b strings.Builder
	for fp, n := range l.died {
		fmt.Fprintf(&b, "= %s %d\n", fp, n)
	}
	for fp, n := range l.running {
		for range n {
			fmt.Fprintf(&b, "+ %s\n", fp)
		}
	}
	path := filepath.Join(dir, callbacksFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("job callbacks log: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("job callbacks log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("job callbacks log: %w", err)
	}
	if l.f != nil {
		_ = l.f.Close()
	}
	l.f = f
	return nil
}

func (l *callbackLog) close() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

// CallbackDied implements engine.CallbackLog: how many earlier runs of the job died while
// req's callback ran. Called by the engine goroutine.
func (j *Job) CallbackDied(req *types.Request) int {
	if j.callbacks == nil || len(j.callbacks.died) == 0 {
		return 0
	}
	return j.callbacks.died[req.Fingerprint()]
}

// CallbackStarted implements engine.CallbackLog: it records that req's callback starts.
// Called by the engine goroutine.
func (j *Job) CallbackStarted(req *types.Request) {
	l := j.callbacks
	if l == nil {
		return
	}
	fp := req.Fingerprint()
	l.running[fp]++
	if l.f != nil {
		_, _ = l.f.WriteString("+ " + fp + "\n")
	}
}

// CallbackEnded implements engine.CallbackLog: req's callback (started with
// CallbackStarted) returned, or its request was given up. Called by the engine goroutine.
func (j *Job) CallbackEnded(req *types.Request) {
	l := j.callbacks
	if l == nil {
		return
	}
	fp := req.Fingerprint()
	if l.running[fp] == 0 {
		return
	}
	l.running[fp]--
	if l.running[fp] == 0 {
		delete(l.running, fp)
		delete(l.died, fp)
	}
	if l.f != nil {
		_, _ = l.f.WriteString("- " + fp + "\n")
	}
}
