package jsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/types"
)

// stateSpider records, in each item, what setup(), opened(), the callback and a pipeline
// saw of this.state and this.resumed; each callback counts a page in this.state.pages.
const stateSpider = `import { Request, Spider, type Response } from "jscrawl";
export default class S extends Spider {
  name = "state";
  CLASSFIELD
  seen: Record<string, string> = {};
  see(where: string) { this.seen[where] = this.resumed + " " + JSON.stringify(this.state); }
  setup() { this.see("setup"); }
  opened() { this.see("opened"); }
  *start() {
    yield new Request("BASE/p/1");
    yield new Request("BASE/p/2");
  }
  parse(r: Response) {
    this.state.pages = (this.state.pages ?? 0) + 1;
    (this.state.urls ??= []).push(r.url.replace(/^http:\/\/[^/]+/, ""));
    return { setup: this.seen.setup, opened: this.seen.opened, callback: this.resumed + " " + (this.state.pages > 0) };
  }
}
export const pipelines = [{ processItem(item: any, spider: any) { item.pipeline = spider.resumed + " " + typeof spider.state; return item; } }];
`

// TestJobStateRoundTrip: SetJobState's state and resumed are seen by setup(), opened(),
// callbacks and pipelines; the callbacks' changes are what JobState returns after the
// crawl (read by Close before the VMs close).
func TestJobStateRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		job        bool   // call SetJobState
		state      string // "" : nil
		resumed    bool
		classField string
		wantSeen   string // what setup() and opened() saw
		wantFinal  string // JobState after the crawl ("" : not checked)
	}{
		{name: "no job", wantSeen: "false {}"},
		{name: "new job", job: true, wantSeen: "false {}", wantFinal: `{"pages":2,"urls":["/p/1","/p/2"]}`},
		{name: "resumed job", job: true, state: `{"pages":5,"urls":["/p/0"],"note":"kept"}`, resumed: true,
			wantSeen:  `true {"pages":5,"urls":["/p/0"],"note":"kept"}`,
			wantFinal: `{"pages":7,"urls":["/p/0","/p/1","/p/2"],"note":"kept"}`},
		{name: "class field in a new job", job: true, classField: `state = { pages: 10 };`,
			wantSeen: `false {"pages":10}`, wantFinal: `{"pages":12,"urls":["/p/1","/p/2"]}`},
		{name: "class field replaced on resume", job: true, state: `{"pages":1}`, resumed: true, classField: `state = { pages: 10, extra: 1 };`,
			wantSeen: `true {"pages":1}`, wantFinal: `{"pages":3,"urls":["/p/1","/p/2"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			var spider *jsapi.Spider
			src := strings.Replace(stateSpider, "CLASSFIELD", tc.classField, 1)
			res := crawl(t, srv, spec{src: src, bound: func(s *jsapi.Spider, _ *engine.Engine) {
				spider = s
				if !tc.job {
					return
				}
				var state []byte
				if tc.state != "" {
					state = []byte(tc.state)
				}
				if err := s.SetJobState(state, tc.resumed); err != nil {
					t.Fatalf("SetJobState: %v", err)
				}
			}})
			r := fmt.Sprint(tc.resumed)
			want := fmt.Sprintf(`{"setup":%q,"opened":%q,"callback":"%s true","pipeline":"%s object"}`, tc.wantSeen, tc.wantSeen, r, r)
			equalLines(t, "items", res.lines(t), []string{want, want}, res.log)
			if tc.wantFinal == "" {
				return
			}
			got, err := spider.JobState(context.Background())
			if err != nil {
				t.Fatalf("JobState: %v", err)
			}
			var a, b any
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatalf("JobState returned %s: %v", got, err)
			}
			_ = json.Unmarshal([]byte(tc.wantFinal), &b)
			// The two callbacks may run in either order: compare urls as a set.
			sortURLs := func(v any) {
				if m, ok := v.(map[string]any); ok {
					if l, ok := m["urls"].([]any); ok {
						slices.SortFunc(l, func(x, y any) int { return strings.Compare(x.(string), y.(string)) })
					}
				}
			}
			sortURLs(a)
			sortURLs(b)
			ga, _ := json.Marshal(a)
			gb, _ := json.Marshal(b)
			if string(ga) != string(gb) {
				t.Errorf("JobState = %s, want %s\n%s", got, tc.wantFinal, res.log)
			}
		})
	}
}

// loadSpider bundles and loads src without a crawl.
func loadSpider(t *testing.T, src string) *jsapi.Spider {
	t.Helper()
	spider, _, err := load(t, spec{src: src}, "http://127.0.0.1:1", nil)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(func() { _ = spider.Close() })
	return spider
}

// TestJobStateErrors: a state JobState cannot save as JSON is an error naming the JS type
// and the path; so is a saved state that is not an object, and, in a job, a spider whose
// own state field is not an object.
func TestJobStateErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		field string // the spider's state field
		saved string // given to SetJobState (else nil)
		want  string // in SetJobState's error, or JobState's when the set succeeds
		set   string // JS run in setup() (then only JobState fails)
	}{
		{name: "function", field: `state = { ok: 1, onPage: () => 1 };`, want: "a function at state.onPage"},
		{name: "nested BigInt", field: `state = { a: { b: [1, BigInt(2)] } };`, want: "a BigInt at state.a.b[1]"},
		{name: "Symbol", field: `state = { s: Symbol("x") };`, want: "a Symbol at state.s"},
		{name: "Map", field: `state = { m: new Map([[1, 2]]) };`, want: "a Map at state.m"},
		{name: "Set in an array", field: `state = { l: [new Set()] };`, want: "a Set at state.l[0]"},
		{name: "odd key", field: `state = { "a b": { f() {} } };`, want: `a function at state["a b"].f`},
		{name: "cycle", set: `const a: any = { x: 1 }; a.b = { back: a }; this.state.a = a;`, want: "a cycle at state.a.b.back (it refers back to state.a)"},
		{name: "not an object", set: `(this as any).state = 5;`, want: "this.state must be an object, got a number"},
		{name: "own field not an object", field: `state = "CA";`, want: "this.state is a string: a job saves this.state, which must be an object"},
		{name: "saved array", saved: `[1]`, want: "the saved state is not a JSON object"},
		{name: "saved garbage", saved: `{"a":`, want: "the saved state is not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spider := loadSpider(t, `export default class S {
  name = "bad";
  `+tc.field+`
  setup() { `+tc.set+` }
}`)
			var saved []byte
			if tc.saved != "" {
				saved = []byte(tc.saved)
			}
			err := spider.SetJobState(saved, saved != nil)
			if tc.set != "" {
				if err != nil {
					t.Fatalf("SetJobState: %v", err)
				}
				if err := spider.Open(context.Background()); err != nil {
					t.Fatalf("open: %v", err)
				}
				_, err = spider.JobState(context.Background())
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestJobStateValues: what JSON keeps of values that are not plain data, as
// JSON.stringify does (toJSON, undefined left out).
func TestJobStateValues(t *testing.T) {
	t.Parallel()
	spider := loadSpider(t, `export default class S {
  name = "values";
  state = { d: new Date(0), u: undefined, n: null, nested: { l: [1, "two", { three: true }] }, shared: undefined as any };
  constructor() { const x = { v: 1 }; this.state.shared = [x, x]; }
}`)
	if err := spider.SetJobState(nil, false); err != nil {
		t.Fatal(err)
	}
	got, err := spider.JobState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"d":"1970-01-01T00:00:00.000Z","n":null,"nested":{"l":[1,"two",{"three":true}]},"shared":[{"v":1},{"v":1}]}`
	if string(got) != want {
		t.Errorf("JobState = %s, want %s", got, want)
	}
}

// TestHasCallback: class methods, methods of a user base class and of the built-in base
// spiders, methods set on the instance (in setup() too), and missing names.
func TestHasCallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		src      string
		has, not []string
	}{
		{name: "class and base class", src: `class Base { parseBase() {} }
export default class S extends Base {
  name = "cb";
  onError = (f: any) => {};
  get computed() { throw new Error("getters are not called"); }
  parse() {}
  parseItem() {}
  setup() { (this as any).parseLater = () => {}; }
}`, has: []string{"parse", "parseItem", "parseBase", "onError", "setup", "", "parseLater"}, not: []string{"parseGone", "constructor", "computed", "name", "_parse"}},
		{name: "CrawlSpider", src: `import { CrawlSpider } from "jscrawl";
export default class S extends CrawlSpider {
  name = "crawl";
  rules = [{ link: { allow: "/p/" }, callback: "parsePage" }];
  parsePage() {}
}`, has: []string{"", "_parse", "_callback", "_errback", "parseStartUrl", "parsePage"}, not: []string{"parse", "parseGone"}},
		{name: "SitemapSpider", src: `import { SitemapSpider } from "jscrawl";
export default class S extends SitemapSpider {
  name = "sitemap";
  sitemapUrls = ["http://127.0.0.1:1/sitemap.xml"];
  parse() {}
}`, has: []string{"_parseSitemap", "parse", "sitemapFilter"}, not: []string{"parseGone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spider := loadSpider(t, tc.src)
			if err := spider.Open(context.Background()); err != nil {
				t.Fatalf("open: %v", err)
			}
			for _, n := range tc.has {
				if !spider.HasCallback(n) {
					t.Errorf("HasCallback(%q) = false, want true", n)
				}
			}
			for _, n := range tc.not {
				if spider.HasCallback(n) {
					t.Errorf("HasCallback(%q) = true, want false", n)
				}
			}
		})
	}
}

// TestJobStateWhileCallbacksRun reads the state from another goroutine while callbacks
// change it (run with -race: the read goes through the VM's loop). The counts read never
// go down, and the last one is the number of pages.
func TestJobStateWhileCallbacksRun(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	const pages = 40
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads []int
	var readErr error
	var spider *jsapi.Spider
	res := crawl(t, srv, spec{settings: map[string]string{"CONCURRENT_REQUESTS": "8"}, src: `import { Request, type Response } from "jscrawl";
export default class S {
  name = "busy";
  state: any = {};
  *start() { for (let i = 0; i < ` + fmt.Sprint(pages) + `; i++) yield new Request("BASE/p/" + i); }
  async parse(r: Response) {
    this.state.pages = (this.state.pages ?? 0) + 1;
    (this.state.seen ??= {})[r.url] = true;
    await fetch(r.urljoin("/text"));
    return { page: r.url };
  }
}`, bound: func(s *jsapi.Spider, _ *engine.Engine) {
		spider = s
		if err := s.SetJobState(nil, false); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				b, err := s.JobState(ctx)
				cancel()
				if err != nil {
					readErr = err
					return
				}
				var st struct{ Pages int }
				if err := json.Unmarshal(b, &st); err != nil {
					readErr = fmt.Errorf("%s: %w", b, err)
					return
				}
				reads = append(reads, st.Pages)
			}
		})
	}})
	close(stop)
	wg.Wait()
	if readErr != nil {
		t.Fatalf("JobState: %v", readErr)
	}
	if len(res.items) != pages {
		t.Fatalf("%d items, want %d\n%s", len(res.items), pages, res.log)
	}
	if !slices.IsSorted(reads) {
		t.Errorf("the page count read went down: %v", reads)
	}
	final, err := spider.JobState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Pages int
		Seen  map[string]bool
	}
	if err := json.Unmarshal(final, &st); err != nil || st.Pages != pages || len(st.Seen) != pages {
		t.Errorf("final state: pages %d, %d seen (%v), want %d", st.Pages, len(st.Seen), err, pages)
	}
}

// TestJobStateOnReplacementVM: a VM made to replace one discarded after a runaway callback
// (JS_CALLBACK_TIMEOUT) gets the last state JobState read, and resumed, not {}.
func TestJobStateOnReplacementVM(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	// 1 s, not less: the errback is the replacement VM's first call and runs under the
	// same timeout, which a loaded machine running the -race suite can take 0.2 s on.
	res := crawl(t, srv, spec{settings: map[string]string{"JS_CALLBACK_TIMEOUT": "1"}, src: `import { Request, type Response } from "jscrawl";
export default class S {
  name = "replaced";
  vm = Math.random();
  *start() { yield new Request("BASE/p/1"); }
  parse(r: Response) { this.state.pages = 8; return { page: 1, vm: this.vm }; }
  spin(r: Response) { this.state.pages = 99; while (true) {} }
  recover(f: any) { return { recovered: JSON.stringify(this.state), resumed: this.resumed, vm: this.vm }; }
}`, bound: func(s *jsapi.Spider, eng *engine.Engine) {
		if err := s.SetJobState([]byte(`{"pages":7}`), true); err != nil {
			t.Fatal(err)
		}
		// Once the first page's item is scraped, read the state (pages 8), then schedule
		// the runaway callback.
		var once sync.Once
		eng.Connect(engine.ItemScraped, func(ctx context.Context, _ engine.SignalEvent) error {
			once.Do(func() {
				b, err := s.JobState(ctx)
				if err != nil || string(b) != `{"pages":8}` {
					t.Errorf("JobState = %s, %v; want {\"pages\":8}", b, err)
				}
				eng.Crawl(&types.Request{URL: srv.URL + "/p/2", Callback: "spin", Errback: "recover"})
			})
			return nil
		})
	}})
	if len(res.items) != 2 {
		t.Fatalf("items: %v\n%s", res.lines(t), res.log)
	}
	var first, second map[string]any
	b0, _ := res.items[0].JSON()
	b1, _ := res.items[1].JSON()
	_ = json.Unmarshal(b0, &first)
	_ = json.Unmarshal(b1, &second)
	if second["recovered"] != `{"pages":8}` || second["resumed"] != true {
		t.Errorf("the replacement VM saw state %v, resumed %v; want {\"pages\":8}, true\n%s", second["recovered"], second["resumed"], res.log)
	}
	if first["vm"] == second["vm"] {
		t.Errorf("the errback ran on the same spider instance: the VM was not replaced\n%s", res.log)
	}
}

// TestJobStateJSVMs: with JS_VMS=2 and SetJobState called before Bind, both VMs' spiders
// start with the restored state and resumed; the state saved is the first VM's.
func TestJobStateJSVMs(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	var spider *jsapi.Spider
	res := crawl(t, srv, spec{settings: map[string]string{"JS_VMS": "2"}, src: `import { Request, type Response } from "jscrawl";
export default class S {
  name = "vms";
  id = Math.random();
  atSetup = "";
  setup() { this.atSetup = this.resumed + " " + JSON.stringify(this.state); }
  *start() {
    yield new Request("BASE/p/1");
    yield new Request("BASE/p/2");
  }
  async parse(r: Response) {
    this.state.pages++;
    // Both callbacks wait for /together: they run at the same time, one on each VM.
    const t = await fetch(r.urljoin("/together"));
    return { setup: this.atSetup, resumed: this.resumed, pages: this.state.pages, id: this.id, together: await t.text() };
  }
}`, loaded: func(s *jsapi.Spider) {
		spider = s
		if err := s.SetJobState([]byte(`{"pages":3}`), true); err != nil {
			t.Fatal(err)
		}
	}})
	ids := map[any]bool{}
	for _, it := range res.items {
		var m map[string]any
		b, _ := it.JSON()
		_ = json.Unmarshal(b, &m)
		ids[m["id"]] = true
		if m["setup"] != `true {"pages":3}` || m["resumed"] != true || m["pages"] != 4.0 || m["together"] != "overlap" {
			t.Errorf("item %s, want setup %q, resumed, pages 4, together overlap", b, `true {"pages":3}`)
		}
	}
	if len(res.items) != 2 || len(ids) != 2 {
		t.Fatalf("%d items from %d spider instances, want 2 and 2\n%s", len(res.items), len(ids), res.log)
	}
	got, err := spider.JobState(context.Background())
	if err != nil || string(got) != `{"pages":4}` {
		t.Errorf("JobState = %s, %v; want the first VM's {\"pages\":4}", got, err)
	}
}
