package jsapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
)

// TestRunning: while a callback awaits an inline download (started in an async helper, after
// an await), Running lists the callback with that download and the spider line that started
// it, and the engine's download carries the inline download's id as its origin.
func TestRunning(t *testing.T) {
	t.Parallel()
	src := `import { fetch, sleep } from "jscrawl";
export default class S {
  name = "running";
  startUrls = ["BASE/p/1"];
  async helper() {
    await sleep(1);
    const r = await fetch(this.hold + "/slow"); // FETCH
    return r.status;
  }
  async parse(r) {
    return { status: await this.helper() };
  }
}
`
	var (
		spider    *jsapi.Spider
		eng       *engine.Engine
		callbacks []jsapi.CallbackInfo
		orphans   []jsapi.InlineDownload
		downloads []engine.DownloadInfo
	)
	hold := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The download is on the wire: look at what is in flight before answering.
		callbacks, orphans = spider.Dev().Running()
		downloads = eng.Downloads()
	}))
	defer hold.Close()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: src, args: map[string]string{"hold": hold.URL},
		bound: func(s *jsapi.Spider, e *engine.Engine) { spider, eng = s, e }})
	if got := res.lines(t); len(got) != 1 || got[0] != `{"status":200}` {
		t.Fatalf("items = %v\n%s", got, res.log)
	}
	if len(orphans) != 0 {
		t.Errorf("orphans = %+v", orphans)
	}
	if len(callbacks) != 1 {
		t.Fatalf("callbacks = %+v", callbacks)
	}
	c := callbacks[0]
	if c.Method != "parse" || c.URL != srv.URL+"/p/1" || c.VM != 0 || c.Started.IsZero() || len(c.Awaits) != 1 {
		t.Fatalf("callback = %+v", c)
	}
	a := c.Awaits[0]
	wantLoc := fmt.Sprintf("%s:%d:", filepath.Base(res.file), lineOf(t, src, "// FETCH"))
	if a.URL != hold.URL+"/slow" || a.Method != "GET" || a.Callback != c.ID || len(a.Location) <= len(wantLoc) || filepath.Base(a.Location)[:len(wantLoc)] != wantLoc {
		t.Errorf("awaits = %+v, want location %s…", a, wantLoc)
	}
	t.Logf("location %s", a.Location)
	if len(downloads) != 1 || downloads[0].URL != a.URL || downloads[0].Origin != a.ID || downloads[0].State != engine.StateDownloading {
		t.Errorf("downloads = %+v", downloads)
	}
	if cs, os := spider.Dev().Running(); len(cs)+len(os) != 0 {
		t.Errorf("after the crawl: %+v %+v", cs, os)
	}
}

// TestRunningHooks: a pipeline, a downloader middleware and a signal handler that await an
// inline download are listed by Running while they run, named by what they are.
func TestRunningHooks(t *testing.T) {
	t.Parallel()
	src := `import { fetch } from "jscrawl";
export default class S {
  name = "hooks";
  startUrls = ["BASE/p/1"];
  setup(crawler) {
    crawler.signals.connect("spider_opened", async () => { await fetch(this.hold + "/signal"); });
  }
  parse(r) { return { url: r.url }; }
}
export const pipelines = [{ async processItem(item, spider) { await fetch(spider.hold + "/pipeline"); return item; } }];
export const downloaderMiddlewares = [{
  async processRequest(request, spider) {
    if (!request.url.includes("/p/1")) return;
    await fetch(spider.hold + "/middleware");
  },
}];
`
	var spider *jsapi.Spider
	var mu sync.Mutex
	seen := map[string]string{} // path → the methods running then
	hold := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		callbacks, _ := spider.Dev().Running()
		var names []string
		for _, c := range callbacks {
			names = append(names, c.Method+" "+c.URL)
		}
		mu.Lock()
		seen[r.URL.Path] = strings.Join(names, ", ")
		mu.Unlock()
	}))
	defer hold.Close()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: src, args: map[string]string{"hold": hold.URL},
		bound: func(s *jsapi.Spider, e *engine.Engine) { spider = s }})
	if got := res.lines(t); len(got) != 1 {
		t.Fatalf("items = %v\n%s", got, res.log)
	}
	mu.Lock()
	defer mu.Unlock()
	for path, want := range map[string]string{
		"/signal":     "signal spider_opened ",
		"/middleware": "downloaderMiddlewares[0].processRequest " + srv.URL + "/p/1",
		"/pipeline":   "pipelines[0].processItem ",
	} {
		if !strings.Contains(seen[path], want) {
			t.Errorf("while %s was fetched, running: %q, want %q", path, seen[path], want)
		}
	}
}
