package job

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/jscrawl/jscrawl/engine"
)

// retiredFile is the job's log of the sessions retired (SESSION_POOL_ENABLED), one quoted
// name a line, written as each retires: a session retired after the last commit stays
// retired when the run dies before the next one. Writes go to the file unbuffered, without
// fsync: they survive the process (a crash or a kill), which is what they are for.
const retiredFile = "sessions-retired.log"

// retiredLog is the open retiredFile and the names read from it at Open.
type retiredLog struct {
	mu    sync.Mutex
	f     *os.File
	names []string
}

// openRetiredLog reads dir's retired sessions (none in a new job: an older file is
// emptied) and opens the file to append to.
func openRetiredLog(dir string, resumed bool) (*retiredLog, error) {
	path := filepath.Join(dir, retiredFile)
	l := &retiredLog{}
	if resumed {
		f, err := os.Open(path)
		switch {
		case err == nil:
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if name, err := strconv.Unquote(sc.Text()); err == nil {
					l.names = append(l.names, name)
				}
			}
			_ = f.Close()
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("job in %s: %w", dir, err)
		}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if !resumed {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("job in %s: %w", dir, err)
	}
	l.f = f
	return l, nil
}

func (l *retiredLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

// SavedSessions returns the session pool as the last commit saved it (nil: none) and the
// sessions retired since the job began (engine.SessionStore).
func (j *Job) SavedSessions() (state []byte, retired []string) {
	if j.retired != nil {
		retired = j.retired.names
	}
	return j.lastSessions, retired
}

// KeepSessions makes each commit save the session pool with save (engine.SessionStore).
func (j *Job) KeepSessions(save func() ([]byte, error)) {
	j.sessMu.Lock()
	j.saveSessions = save
	j.sessMu.Unlock()
}

// RecordRetired appends name to the job's retired sessions at once (engine.SessionStore).
// Safe for concurrent use.
func (j *Job) RecordRetired(name string) {
	l := j.retired
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return
	}
	if _, err := l.f.WriteString(strconv.Quote(name) + "\n"); err != nil {
		j.logger.Error(fmt.Sprintf("Could not record that session %q retired: %v", name, err))
	}
}

// Interface guards
var _ engine.SessionStore = (*Job)(nil)
