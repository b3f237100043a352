package jsapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// runawaySite serves the crawl of TestRunawayCallbackFailsAlone:
//
//	/before/{n}  a page whose callback then awaits /slow
//	/slow        held until four /slow requests arrived (two from the first run of each
//	             /before callback, two from their second run on a fresh VM)
//	/spin        a page whose callback spins; answered once both /before callbacks await /slow
//	/after/{n}   answered once the /before callbacks run again, so after the runaway
//
// Every wait gives up after 15 s (so a broken build fails instead of hanging).
type runawaySite struct {
	*httptest.Server
	mu                  sync.Mutex
	slow                int
	twoSlow, fourSlow   chan struct{}
	closeTwo, closeFour sync.Once
}

func newRunawaySite(t *testing.T) *runawaySite {
	t.Helper()
	s := &runawaySite{twoSlow: make(chan struct{}), fourSlow: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/before/{n}", func(w http.ResponseWriter, r *http.Request) { titlePage(w, "before "+r.PathValue("n")) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.slow++
		if s.slow >= 2 {
			s.closeTwo.Do(func() { close(s.twoSlow) })
		}
		if s.slow >= 4 {
			s.closeFour.Do(func() { close(s.fourSlow) })
		}
		s.mu.Unlock()
		if gateWait(r, s.fourSlow) {
			fmt.Fprint(w, "slow")
		}
	})
	mux.HandleFunc("/spin", func(w http.ResponseWriter, r *http.Request) {
		if gateWait(r, s.twoSlow) {
			titlePage(w, "spin")
		}
	})
	mux.HandleFunc("/after/{n}", func(w http.ResponseWriter, r *http.Request) {
		if gateWait(r, s.fourSlow) {
			titlePage(w, "after "+r.PathValue("n"))
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestRunawayCallbackFailsAlone: on a single VM, two callbacks await an inline download
// when a third spins past JS_CALLBACK_TIMEOUT, and three more pages are parsed after it.
// Only the runaway fails (one TimeoutError); the two in flight lose their VM and run again
// on a fresh one without duplicating the item they had yielded, and the three after it
// give their items.
func TestRunawayCallbackFailsAlone(t *testing.T) {
	t.Parallel()
	site := newRunawaySite(t)
	src := strings.ReplaceAll(`import { Request } from "jscrawl";
export default class S {
  name = "runaway";
  *start() {
    yield new Request("SITE/before/1");
    yield new Request("SITE/before/2");
    yield new Request("SITE/spin", { callback: this.spin });
    for (const n of [1, 2, 3]) yield new Request("SITE/after/" + n);
  }
  async *parse(r) {
    const page = r.css("h1::text").get();
    yield { page, part: 1 };
    if (page.startsWith("before")) {
      const slow = await fetch("SITE/slow");
      yield { page, part: 2, slow: await slow.text() };
    } else {
      yield { page, part: 2 };
    }
  }
  spin(r) { while (true) {} }
}`, "SITE", site.URL)
	res := crawl(t, newServer(t), spec{settings: map[string]string{"JS_VMS": "1", "JS_CALLBACK_TIMEOUT": "0.2", "RETRY_ENABLED": "false"}, src: src})
	equalLines(t, "items", res.sorted(t), []string{
		`{"page":"after 1","part":1}`, `{"page":"after 1","part":2}`,
		`{"page":"after 2","part":1}`, `{"page":"after 2","part":2}`,
		`{"page":"after 3","part":1}`, `{"page":"after 3","part":2}`,
		`{"page":"before 1","part":1}`, `{"page":"before 1","part":2,"slow":"slow"}`,
		`{"page":"before 2","part":1}`, `{"page":"before 2","part":2,"slow":"slow"}`,
	}, res.log)
	for key, want := range map[string]int64{
		"spider_exceptions/TimeoutError": 1, "spider_exceptions/count": 1, "spider/callback_rerun_count": 2,
	} {
		if n := res.stat(key); n != want {
			t.Errorf("%s = %d, want %d\n%s", key, n, want, res.log)
		}
	}
	if !strings.Contains(res.log, "callback spin exceeded JS_CALLBACK_TIMEOUT (200ms)") {
		t.Errorf("the log does not name the runaway callback:\n%s", res.log)
	}
}

// TestRunawaySparesPipelines: a pipeline call that awaits an inline download when a callback
// on the same VM runs away is made again on the fresh VM, whose pipeline was opened, so the
// item reaches the feed.
func TestRunawaySparesPipelines(t *testing.T) {
	t.Parallel()
	// /hold answers once it was requested twice: by the pipeline, then by its second call;
	// /spin answers once the pipeline awaits /hold.
	src := newRerunGate().serve(t, "page", "spin", `import { Request } from "jscrawl";
export default class S {
  name = "pipe";
  *start() {
    yield new Request("SITE/page");
    yield new Request("SITE/spin", { callback: this.spin });
  }
  parse(r) { return { page: r.css("h1::text").get() }; }
  spin(r) { while (true) {} }
}
class Hold {
  opened = false;
  open() { this.opened = true; }
  async processItem(item) {
    const held = await (await fetch("SITE/hold")).text();
    return { ...item, held, opened: this.opened };
  }
}
export const pipelines = [Hold];
`)
	res := crawl(t, newServer(t), spec{settings: map[string]string{"JS_VMS": "1", "JS_CALLBACK_TIMEOUT": "0.2", "RETRY_ENABLED": "false"}, src: src})
	equalLines(t, "items", res.lines(t), []string{`{"page":"page","held":"held","opened":true}`}, res.log)
	if n := res.stat("spider_exceptions/TimeoutError"); n != 1 {
		t.Errorf("spider_exceptions/TimeoutError = %d, want 1\n%s", n, res.log)
	}
	if n := res.stat("item_error_count"); n != 0 {
		t.Errorf("item_error_count = %d, want 0\n%s", n, res.log)
	}
}

// rerunGate orders the loopback requests of a test in which a call is re-run on a fresh
// VM: its hold handler answers once it was requested twice (by the call, then by its
// re-run), and the late page of its site answers once hold was first requested. Waits give
// up after 15 s or when the client does.
type rerunGate struct {
	mu            sync.Mutex
	holds         int
	first, second chan struct{}
}

func newRerunGate() *rerunGate {
	return &rerunGate{first: make(chan struct{}), second: make(chan struct{})}
}

// hold is the handler that answers "held" on its second request.
func (g *rerunGate) hold(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.holds++
	switch g.holds {
	case 1:
		close(g.first)
	case 2:
		close(g.second)
	}
	g.mu.Unlock()
	if gateWait(r, g.second) {
		fmt.Fprint(w, "held")
	}
}

// serve serves, until the test ends, the gate's site: a titlePage titled early at /early,
// hold at /hold and a titlePage titled late at /late once hold was first requested. It
// returns src with SITE replaced by the site's URL.
func (g *rerunGate) serve(t *testing.T, early, late, src string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/"+early, func(w http.ResponseWriter, r *http.Request) { titlePage(w, early) })
	mux.HandleFunc("/hold", g.hold)
	mux.HandleFunc("/"+late, func(w http.ResponseWriter, r *http.Request) {
		if gateWait(r, g.first) {
			titlePage(w, late)
		}
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	return strings.ReplaceAll(src, "SITE", site.URL)
}

// gateWait waits until ch is closed; false if 15 s passed or r's client gave up first.
func gateWait(r *http.Request, ch chan struct{}) bool {
	tm := time.NewTimer(15 * time.Second)
	defer tm.Stop()
	select {
	case <-ch:
		return true
	case <-tm.C:
	case <-r.Context().Done():
	}
	return false
}

// titlePage answers an HTML page whose h1 is title.
func titlePage(w http.ResponseWriter, title string) {
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><body><h1>%s</h1></body></html>", title)
}
