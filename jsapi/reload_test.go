package jsapi_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// reloadV1 is the spider a reload test starts with: start() sets this.state.n and
// requests /gate, which the test server holds until the test has reloaded the spider;
// the pipeline counts the items it saw in a field and marks them with its version.
const reloadV1 = `import { Request } from "jscrawl";
class Mark {
  seen = 0;
  processItem(item) { this.seen++; return { ...item, p: 1, seen: this.seen }; }
}
export const pipelines = [Mark];
export default class R {
  name = "reload";
  *start() {
    this.state.n = 41;
    yield new Request("BASE/p/1", { callback: this.parseFirst });
  }
  *parseFirst(response) {
    yield { url: response.url, v: 1 };
    yield new Request("BASE/gate", { callback: this.parseGate, errback: this.onError });
  }
  *parseGate(response) { yield { url: response.url, v: 1, n: this.state.n }; }
  *onError(failure) { yield { url: failure.request.url, error: failure.error.name + ": " + failure.error.message }; }
}
`

// reloadCrawlSpider is reloadV1 as a CrawlSpider: a rule, whose callback is given as a
// method, follows the link to /gate.
const reloadCrawlSpider = `import { CrawlSpider } from "jscrawl";
class Mark {
  seen = 0;
  processItem(item) { this.seen++; return { ...item, p: 1, seen: this.seen }; }
}
export const pipelines = [Mark];
export default class R extends CrawlSpider {
  name = "reload";
  startUrls = ["BASE/p/1"];
  rules = [{ link: { allow: "/gate" }, callback: this.parseGate }];
  *parseStartUrl(response) { this.state.n = 41; yield { url: response.url, v: 1 }; }
  *parseGate(response) { yield { url: response.url, v: 1, n: this.state.n }; }
}
`

// TestReload edits a spider during a crawl: the callback of a request queued before the
// reload runs the new code, with this.state and the pipeline's fields carried over; a
// callback the new code lost sends its request to the errback; new code that throws
// leaves the old code running.
func TestReload(t *testing.T) {
	t.Parallel()
	// toV2 changes the /gate callback and the pipeline.
	toV2 := func(s string) string {
		s = strings.Replace(s, "v: 1, n: this.state.n", "v: 2, n: this.state.n + 1", 1)
		return strings.Replace(s, "p: 1,", "p: 2,", 1)
	}
	tests := []struct {
		name      string
		src       string              // reloadV1 when empty
		edit      func(string) string // the new source from the old
		wantErr   string              // Reload's error
		wantGate  string              // the /gate item, url removed
		wantFirst string
	}{
		{
			name:      "new callback code",
			edit:      toV2,
			wantGate:  `{"v":2,"n":42,"p":2,"seen":2}`,
			wantFirst: `{"v":1,"p":1,"seen":1}`,
		},
		{
			name:      "CrawlSpider rule callback",
			src:       reloadCrawlSpider,
			edit:      toV2,
			wantGate:  `{"v":2,"n":42,"p":2,"seen":2}`,
			wantFirst: `{"v":1,"p":1,"seen":1}`,
		},
		{
			name:      "vanished callback",
			edit:      func(s string) string { return strings.Replace(s, "*parseGate(", "*parseGateRenamed(", 1) },
			wantGate:  `{"error":"TypeError: spider reload has no method \"parseGate\" for URL/gate (the code reloaded from FILE no longer defines it)","p":1,"seen":2}`,
			wantFirst: `{"v":1,"p":1,"seen":1}`,
		},
		{
			name:      "new code throws",
			edit:      func(s string) string { return s + "\nthrow new Error(\"half-written\");\n" },
			wantErr:   "half-written",
			wantGate:  `{"v":1,"n":41,"p":1,"seen":2}`,
			wantFirst: `{"v":1,"p":1,"seen":1}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			arrived, release := make(chan struct{}), make(chan struct{})
			mux := http.NewServeMux()
			mux.HandleFunc("/gate", func(w http.ResponseWriter, r *http.Request) {
				close(arrived)
				<-release
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<p>gate</p>"))
			})
			mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte(`<a href="/gate">gate</a>`))
			})
			srv := &server{Server: enginetest.StartWith(t, mux).Server}
			reloaded := make(chan error, 1)
			src := cmp.Or(tc.src, reloadV1)
			res := crawl(t, srv, spec{src: src, bound: func(s *jsapi.Spider, eng *engine.Engine) {
				// The crawl runs once bound returns: reload while /gate is held, once the
				// first item has left the pipeline.
				go func() {
					defer close(release)
					<-arrived
					deadline := time.Now().Add(30 * time.Second)
					for eng.Stats().Int("item_scraped_count") < 1 && time.Now().Before(deadline) {
						time.Sleep(time.Millisecond)
					}
					src := strings.ReplaceAll(tc.edit(src), "BASE", srv.URL)
					prog, err := runtime.BundleSource("spider.ts", src, runtime.BundleOptions{External: jsapi.NativeModules})
					if err != nil {
						reloaded <- err
						return
					}
					reloaded <- s.Dev().Reload(context.Background(), prog)
				}()
			}})
			reloadErr := <-reloaded
			if tc.wantErr == "" && reloadErr != nil || tc.wantErr != "" && (reloadErr == nil || !strings.Contains(reloadErr.Error(), tc.wantErr)) {
				t.Fatalf("Reload: %v, want an error containing %q", reloadErr, tc.wantErr)
			}
			got := map[string]string{}
			for _, it := range res.items {
				u, _ := it.Get("url")
				rest := slices.DeleteFunc(slices.Clone(it), func(f types.Field) bool { return f.Key == "url" })
				b, _ := rest.JSON()
				got[strings.TrimPrefix(u.(string), srv.URL)] = strings.ReplaceAll(string(b), srv.URL, "URL")
			}
			want := map[string]string{"/p/1": tc.wantFirst, "/gate": strings.ReplaceAll(tc.wantGate, "FILE", "spider.ts")}
			if !maps.Equal(got, want) {
				t.Errorf("items:\n got %q\nwant %q\nlog:\n%s", got, want, res.log)
			}
		})
	}
}

// reloadTwoVMs is the spider of TestReloadEveryVM. Each callback awaits a meeting point
// the server holds until two requests are in, so two callbacks run at once, and with
// JS_VMS=2 on different VMs (a response goes to the least busy VM). VM is a number
// drawn once per VM: module state is per VM.
const reloadTwoVMs = `import { Request } from "jscrawl";
const VM = Math.random();
export default class R {
  name = "reload2";
  *start() {
    for (const n of [1, 2]) yield new Request("BASE/p/" + n, { callback: this.parseFirst });
  }
  async *parseFirst(response) {
    await fetch("BASE/meet/first");
    yield { url: response.url, v: 1, vm: VM };
    yield new Request(response.url.replace("/p/", "/gate/"), { callback: this.parseGate });
  }
  async *parseGate(response) {
    await fetch("BASE/meet/gate");
    yield { url: response.url, v: 1, vm: VM };
  }
}
`

// TestReloadEveryVM reloads a spider running on two VMs (JS_VMS=2), both of which ran
// the old code: the callbacks that run after the reload run the new code on each VM.
func TestReloadEveryVM(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}, 2), make(chan struct{})
	var mu sync.Mutex
	meets := map[string]chan struct{}{"first": make(chan struct{}), "gate": make(chan struct{})}
	count := map[string]int{}
	mux := http.NewServeMux()
	mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>page</p>"))
	})
	mux.HandleFunc("/gate/{n}", func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>gate</p>"))
	})
	mux.HandleFunc("/meet/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		mu.Lock()
		count[name]++
		if count[name] == 2 {
			close(meets[name])
		}
		mu.Unlock()
		select {
		case <-meets[name]:
		case <-r.Context().Done():
		}
	})
	srv := &server{Server: enginetest.StartWith(t, mux).Server}
	reloaded := make(chan error, 1)
	res := crawl(t, srv, spec{src: reloadTwoVMs, settings: map[string]string{types.JSVMs: "2"},
		bound: func(s *jsapi.Spider, eng *engine.Engine) {
			go func() {
				defer close(release)
				<-arrived
				<-arrived
				src := strings.ReplaceAll(strings.ReplaceAll(reloadTwoVMs, "v: 1", "v: 2"), "BASE", srv.URL)
				prog, err := runtime.BundleSource("spider.ts", src, runtime.BundleOptions{External: jsapi.NativeModules})
				if err != nil {
					reloaded <- err
					return
				}
				reloaded <- s.Dev().Reload(context.Background(), prog)
			}()
		}})
	if err := <-reloaded; err != nil {
		t.Fatalf("Reload: %v", err)
	}
	// Per phase: the versions seen, and the VMs the callbacks ran on.
	versions, vms := map[string][]any{}, map[string]map[any]bool{"p": {}, "gate": {}}
	for _, it := range res.items {
		u, _ := it.Get("url")
		phase := "p"
		if strings.Contains(u.(string), "/gate/") {
			phase = "gate"
		}
		v, _ := it.Get("v")
		vm, _ := it.Get("vm")
		versions[phase] = append(versions[phase], v)
		vms[phase][vm] = true
	}
	if fmt.Sprint(versions["p"]) != "[1 1]" || fmt.Sprint(versions["gate"]) != "[2 2]" {
		t.Errorf("versions %v, want [1 1] before the reload and [2 2] after\nlog:\n%s", versions, res.log)
	}
	if len(vms["p"]) != 2 || len(vms["gate"]) != 2 {
		t.Errorf("callbacks ran on VMs %v, want two VMs in each phase", vms)
	}
}
