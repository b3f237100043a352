package job_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
)

// TestJobSessions: the pool's state is saved with each commit and read back by the next
// run; a retirement recorded after the last commit survives a run that never commits
// again (a kill), and a new job (--fresh) starts with none of it.
func TestJobSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := openJob(t, dir)
	if state, retired := j.SavedSessions(); state != nil || retired != nil {
		t.Fatalf("a new job has sessions: %q %v", state, retired)
	}
	j.KeepSessions(func() ([]byte, error) { return []byte(`{"seq":2}`), nil })
	if err := j.Commit(context.Background(), engine.Progress{}); err != nil {
		t.Fatal(err)
	}
	j.RecordRetired("s1")
	j.RecordRetired("log\nin")
	j.Close() // no commit after the retirements: as a kill

	j = openJob(t, dir)
	state, retired := j.SavedSessions()
	if string(state) != `{"seq":2}` || !slices.Equal(retired, []string{"s1", "log\nin"}) {
		t.Errorf("resumed with %q %q", state, retired)
	}
	// A commit before the pool is there (Bind's) keeps the saved state.
	if err := j.Commit(context.Background(), engine.Progress{}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j = openJob(t, dir)
	if state, _ := j.SavedSessions(); string(state) != `{"seq":2}` {
		t.Errorf("a commit without the pool lost the saved sessions: %q", state)
	}
	j.Close()
}
