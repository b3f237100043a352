package jsapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
		callbacks, orphans = spider.Running()
		downloads = eng.Downloads()
	}))
	defer hold.Close()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: src, args: map[string]string{"hold": hold.URL},
		bound: func(s *jsapi.Spider, e *engine.Engine) { spider, eng = s, e }})
	if got := lines(res.items); len(got) != 1 || got[0] != `{"status":200}` {
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
	if cs, os := spider.Running(); len(cs)+len(os) != 0 {
		t.Errorf("after the crawl: %+v %+v", cs, os)
	}
}
