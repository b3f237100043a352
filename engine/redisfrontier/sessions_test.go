package redisfrontier_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/session"
	"github.com/jscrawl/jscrawl/types"
)

// TestWorkersShareRetiredSessions: two workers of one crawl name their sessions apart,
// and a session pinned by meta.session that one worker retired is not used by the other:
// its pinned request fails with SessionBlockedError there, also when the other worker had
// used the session before.
func TestWorkersShareRetiredSessions(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	srv := enginetest.Start(t)
	settings := crawlSettings()
	_ = settings.Set(types.SessionPoolEnabled, true, types.PriorityCmdline)
	f1, f2 := open(t, r, "sessions", nil), open(t, r, "sessions", nil)
	e1 := engine.New(&enginetest.Spider{}, settings, engine.WithScheduler(f1, f1.Parts()), engine.WithLogger(quiet))
	e2 := engine.New(&enginetest.Spider{}, settings, engine.WithScheduler(f2, f2.Parts()), engine.WithLogger(quiet))
	pinned := func(name string) *types.Request {
		return &types.Request{URL: srv.URL + "/", Meta: types.Item{{Key: types.MetaSession, Value: name}}}
	}
	ctx := context.Background()
	for _, e := range []*engine.Engine{e1, e2} {
		if _, err := e.Download(ctx, pinned("acct")); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Download(ctx, &types.Request{URL: srv.URL + "/"}); err != nil {
			t.Fatal(err)
		}
	}
	a1, a2 := e1.Sessions().List(), e2.Sessions().List()
	auto := func(list []session.Info) string {
		for _, in := range list {
			if !in.Pinned {
				return in.Name
			}
		}
		return ""
	}
	n1, n2 := auto(a1), auto(a2)
	if n1 == "" || n2 == "" || n1 == n2 || !strings.HasPrefix(n1, f1.WorkerID()) || !strings.HasPrefix(n2, f2.WorkerID()) {
		t.Errorf("auto sessions %q and %q: want each named after its worker", n1, n2)
	}
	if !e1.Sessions().RetireName("acct", "manual") {
		t.Fatal("acct was not usable")
	}
	waitFor(t, "the retirement to reach Redis", func() bool {
		ok, _ := f2.SessionRetired(ctx, "acct")
		return ok
	})
	_, err := e2.Download(ctx, pinned("acct"))
	var sb *engine.SessionBlockedError
	if !errors.As(err, &sb) || !sb.Retired {
		t.Fatalf("worker 2 used the session worker 1 retired: %v", err)
	}
	if s := e2.Sessions().Get("acct"); s == nil || !s.Retired() {
		t.Errorf("worker 2 did not retire acct")
	}
	if _, err := e2.Download(ctx, pinned("other")); err != nil {
		t.Errorf("another pinned session: %v", err)
	}
}
