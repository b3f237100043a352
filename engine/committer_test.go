package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// doneScheduler is a MemoryScheduler that records the requests Done.
type doneScheduler struct {
	*engine.MemoryScheduler
	mu   sync.Mutex
	done map[string]int
}

func (s *doneScheduler) Done(req *types.Request) {
	s.mu.Lock()
	s.done[req.URL]++
	s.mu.Unlock()
}

// cutChecker is a Committer that checks, at every commit, that the exporter holds exactly
// the items of the requests Done: each page's three items, and none of a page not Done.
type cutChecker struct {
	t       *testing.T
	sched   *doneScheduler
	rec     *recorder
	commits int
	final   engine.Progress
}

func (c *cutChecker) Commit(_ context.Context, p engine.Progress) error {
	c.commits++
	if p.Final {
		c.final = p
	}
	perPage := map[string]int{}
	for _, it := range c.rec.Items() {
		u, _ := it.Get("url")
		perPage[u.(string)]++
	}
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	for u, n := range perPage {
		if c.sched.done[u] != 1 || n != 3 {
			c.t.Errorf("commit %d: %d items of %s exported, Done %d times", c.commits, n, u, c.sched.done[u])
		}
	}
	for u := range c.sched.done {
		if perPage[u] != 3 {
			c.t.Errorf("commit %d: %s Done with %d items exported", c.commits, u, perPage[u])
		}
	}
	return nil
}

// TestCommitterCut: with a Committer, a scheduled request's items reach the exporters
// together once its callback has returned and its items have left the (concurrent)
// pipelines, and only then is it Done; every commit sees that cut, and the last one is told
// the crawl finished with start() done.
func TestCommitterCut(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	settings := types.NewSettings()
	sched := &doneScheduler{MemoryScheduler: engine.NewMemoryScheduler(settings, nil, nil, nil), done: map[string]int{}}
	rec := &recorder{t: t}
	cc := &cutChecker{t: t, sched: sched, rec: rec}
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/links/0?total=60"},
		ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
			for i := range 3 {
				emit(types.Output{Item: types.Item{{Key: "url", Value: resp.Request.URL}, {Key: "i", Value: i}}})
			}
			for _, u := range enginetest.Links(resp) {
				emit(types.Output{Request: &types.Request{URL: u}})
			}
			return nil
		},
	}
	slow := pipelineFunc(func(_ context.Context, it types.Item) (types.Item, error) { return it, nil })
	e, _ := crawl(t, sp, map[string]any{types.ConcurrentItems: 4}, engine.WithScheduler(sched, engine.SchedulerParts{Slots: sched, Sizes: sched}),
		engine.WithExporters(rec), engine.WithPipelines(slow), engine.WithCommitter(cc, time.Millisecond))
	if got := stat(e, "item_scraped_count"); got != 180 {
		t.Errorf("item_scraped_count = %d, want 180", got)
	}
	if len(sched.done) != 60 {
		t.Errorf("%d requests Done, want 60", len(sched.done))
	}
	if !cc.final.Final || cc.final.Reason != "finished" || !cc.final.StartDone {
		t.Errorf("last commit told %+v", cc.final)
	}
	if cc.commits < 2 {
		t.Errorf("%d commits", cc.commits)
	}
}
