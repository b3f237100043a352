package jsapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// sink is a local service that stores what is POSTed to /insert. Its robots.txt answers
// robotsStatus (a 404: it has none; a 500: a handler that only knows its own paths).
type sink struct {
	*httptest.Server
	mu      sync.Mutex
	inserts []string
	robots  int
}

func newSink(t *testing.T, robotsStatus int) *sink {
	s := &sink{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			s.mu.Lock()
			s.robots++
			s.mu.Unlock()
			w.WriteHeader(robotsStatus)
		case r.URL.Path == "/insert" && r.Method == http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			s.mu.Lock()
			s.inserts = append(s.inserts, string(b))
			s.mu.Unlock()
			w.WriteHeader(http.StatusCreated)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestPipelineServiceRequests: a pipeline that POSTs each item to a service, with
// ROBOTSTXT_OBEY on, through this.crawler.http.fetch or fetch(url, { dontObeyRobotstxt,
// dontCount }): every insert arrives, robots.txt of the service is never asked, and the
// crawl's stats count the crawl's pages only (the service requests in http_client/*).
func TestPipelineServiceRequests(t *testing.T) {
	t.Parallel()
	const pages = 4
	srv := newServer(t) // its robots.txt is a 404
	for _, tc := range []struct {
		name, call string
		counted    bool // the POSTs are crawl requests (dontObeyRobotstxt alone)
	}{
		{"crawler.http", `await spider.crawler.http.fetch(SINK + "/insert", { method: "POST", body: JSON.stringify(item) })`, false},
		{"fetch dontCount", `await fetch(SINK + "/insert", { method: "POST", body: JSON.stringify(item), dontObeyRobotstxt: true, dontCount: true })`, false},
		{"fetch Request dontCount", `await fetch(new Request(SINK + "/insert", { method: "POST", body: JSON.stringify(item), meta: { tag: "x" } }), { dontCount: true })
    .then((r) => { if (r.meta.tag !== "x" || r.meta.dontCount !== true) throw new Error("meta " + JSON.stringify(r.meta)); return r; })`, false},
		{"fetch dontObeyRobotstxt", `await fetch(SINK + "/insert", { method: "POST", body: JSON.stringify(item), dontObeyRobotstxt: true })`, true},
	} {
		for _, robots := range []int{404, 500} {
			t.Run(fmt.Sprintf("%s/robots %d", tc.name, robots), func(t *testing.T) {
				t.Parallel()
				snk := newSink(t, robots)
				src := `
import { Spider, Request, fetch } from "jscrawl";
const SINK = "` + snk.URL + `";
export default class extends Spider {
  name = "svc";
  customSettings = { ROBOTSTXT_OBEY: true };
  *start() { for (let i = 0; i < ` + fmt.Sprint(pages) + `; i++) yield new Request("BASE/p/" + i); }
  *parse(r) { yield { url: r.url }; }
}
export const pipelines = [{
  async processItem(item, spider) {
    const resp = ` + tc.call + `;
    if (resp.status !== 201) throw new Error("insert: " + resp.status);
    return item;
  },
}];
`
				res := crawl(t, srv, spec{src: src})
				snk.mu.Lock()
				inserts, robotsAsked := len(snk.inserts), snk.robots
				snk.mu.Unlock()
				if inserts != pages || res.stat("item_scraped_count") != pages {
					t.Fatalf("inserts %d, items %d, want %d\n%s", inserts, res.stat("item_scraped_count"), pages, res.log)
				}
				if robotsAsked != 0 {
					t.Errorf("the sink's robots.txt was asked %d times", robotsAsked)
				}
				posts, want := int64(0), int64(pages)
				if tc.counted {
					posts = pages
				} else {
					if got := res.stat("http_client/request_count"); got != want {
						t.Errorf("http_client/request_count = %d, want %d", got, want)
					}
					if got := res.stat("http_client/response_status_count/201"); got != want {
						t.Errorf("http_client/response_status_count/201 = %d, want %d", got, want)
					}
				}
				for key, want := range map[string]int64{
					"response_received_count":              pages + posts,
					"downloader/request_count":             pages + 1 + posts, // + the site's robots.txt
					"downloader/request_method_count/POST": posts,
					"robotstxt/request_count":              1,
				} {
					if got := res.stat(key); got != want {
						t.Errorf("%s = %d, want %d", key, got, want)
					}
				}
				if strings.Contains(res.log, "robots.txt: ") && strings.Contains(res.log, "Forbidden") {
					t.Errorf("a request was forbidden by robots.txt:\n%s", res.log)
				}
			})
		}
	}
}
