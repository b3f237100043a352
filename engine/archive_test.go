package engine_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// archiveSpider follows the test site's links from / and also requests a redirect chain,
// a gzipped body, a POST with a body and, from the home page's callback, an inline
// download; every response is an item. Its items, as JSON lines, sort for comparison.
type archiveSpider struct {
	base string
	eng  *engine.Engine

	mu       sync.Mutex
	items    []string
	failures []*types.Failure
}

func (s *archiveSpider) spider() *enginetest.Spider {
	return &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(types.Output{Request: &types.Request{URL: s.base + "/"}})
			emit(types.Output{Request: &types.Request{URL: s.base + "/redirect/2"}})
			emit(types.Output{Request: &types.Request{URL: s.base + "/gzip"}})
			emit(types.Output{Request: &types.Request{URL: s.base + "/echo", Method: "POST", Body: []byte("a=1")}})
			emit(types.Output{Request: &types.Request{URL: s.base + "/echo", Method: "POST", Body: []byte("a=2")}})
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			body := string(resp.Body)
			if strings.HasSuffix(resp.URL, "/echo") { // the echo shows the headers sent, which vary
				var m map[string]any
				_ = json.Unmarshal(resp.Body, &m)
				body = m["method"].(string) + " " + m["body"].(string)
			}
			s.add(types.Item{{Key: "url", Value: resp.URL}, {Key: "status", Value: resp.Status}, {Key: "body", Value: body}})
			if strings.HasSuffix(resp.URL, "/") {
				r, err := s.eng.Download(ctx, &types.Request{URL: s.base + "/item/7"})
				if err != nil {
					return err
				}
				s.add(types.Item{{Key: "inline", Value: r.URL}, {Key: "body", Value: string(r.Body)}})
			}
			return enginetest.FollowAll(ctx, resp, emit)
		},
		ErrbackFunc: s.errback,
	}
}

// errback collects failures.
func (s *archiveSpider) errback(_ context.Context, f *types.Failure, _ engine.Emit) error {
	s.mu.Lock()
	s.failures = append(s.failures, f)
	s.mu.Unlock()
	return nil
}

func (s *archiveSpider) add(it types.Item) {
	b, _ := it.JSON()
	s.mu.Lock()
	s.items = append(s.items, string(b))
	s.mu.Unlock()
}

// crawlArchive crawls base with opts and returns the spider (its items sorted) and the
// engine.
func crawlArchive(t *testing.T, base string, kv map[string]any, opts ...engine.Option) (*archiveSpider, *engine.Engine) {
	t.Helper()
	s := &archiveSpider{base: base}
	e, _ := newEngine(t, s.spider(), kv, opts...)
	s.eng = e
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	slices.Sort(s.items)
	return s, e
}

// record runs a crawl with the option that records it to a new WARC file at path, closes
// the file and returns the crawl's engine.
func record(t *testing.T, path string, run func(opt engine.Option) *engine.Engine) *engine.Engine {
	t.Helper()
	w, err := warc.Create(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := run(engine.WithWARC(w))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestRecordReplay: a crawl recorded to a WARC file (robots.txt, redirect hops, an inline
// download, POSTs told apart by their bodies) replays to the same items while the server,
// which counts its hits, sees none.
func TestRecordReplay(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	path := filepath.Join(t.TempDir(), "crawl.warc.gz")
	kv := map[string]any{types.RobotsTxtObey: true}
	var rec *archiveSpider
	e := record(t, path, func(opt engine.Option) (e *engine.Engine) {
		rec, e = crawlArchive(t, srv.URL, kv, opt)
		return e
	})
	if len(rec.failures) != 0 {
		t.Fatalf("recording: failures %v", rec.failures)
	}
	hits := srv.TotalHits()
	for _, p := range []string{"/robots.txt", "/redirect/2", "/redirect/1", "/redirect/0", "/item/7", "/gzip"} {
		if srv.Hits(p) == 0 {
			t.Fatalf("the recorded crawl did not download %s", p)
		}
	}
	if got := stat(e, "warc/record_count"); got != 2*int64(hits) {
		t.Errorf("warc/record_count %d, want 2 × %d downloads", got, hits)
	}

	a := engine.OpenArchive(t, path)
	if a.Len() != hits {
		t.Errorf("the archive has %d responses, the server served %d", a.Len(), hits)
	}
	rep, e2 := crawlArchive(t, srv.URL, kv, engine.WithReplay(a, false))
	if got := srv.TotalHits(); got != hits {
		t.Errorf("the replay made %d requests to the server", got-hits)
	}
	if !slices.Equal(rep.items, rec.items) {
		t.Errorf("replayed items differ:\n%s\nrecorded:\n%s", strings.Join(rep.items, "\n"), strings.Join(rec.items, "\n"))
	}
	if len(rep.failures) != 0 || stat(e2, "replay/miss_count") != 0 {
		t.Errorf("replay: failures %v, replay/miss_count %d", rep.failures, stat(e2, "replay/miss_count"))
	}
	if got, want := stat(e2, "replay/response_count"), int64(hits); got != want {
		t.Errorf("replay/response_count %d, want %d", got, want)
	}
	if got, want := stat(e2, "downloader/response_count"), stat(e, "downloader/response_count"); got != want {
		t.Errorf("downloader/response_count %d on replay, %d recorded", got, want)
	}
}

// TestReplayMiss: a request the archive lacks fails with NotInArchive to its errback and
// counts in replay/miss_count, without the network; with fallback it is downloaded.
func TestReplayMiss(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	path := filepath.Join(t.TempDir(), "one.warc.gz")
	record(t, path, func(opt engine.Option) *engine.Engine {
		e, _ := crawl(t, &enginetest.Spider{StartURLs: []string{srv.URL + "/item/1"}}, nil, opt)
		return e
	})
	for _, fallback := range []bool{false, true} {
		a, err := warc.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		before := srv.Hits("/item/2")
		s := &archiveSpider{}
		two := &enginetest.Spider{
			StartFunc: func(_ context.Context, emit engine.Emit) error {
				for _, p := range []string{"/item/1", "/item/2"} {
					emit(types.Output{Request: &types.Request{URL: srv.URL + p, Errback: "onError"}})
				}
				return nil
			},
			ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
				s.add(types.Item{{Key: "url", Value: resp.URL}})
				return nil
			},
			ErrbackFunc: s.errback,
		}
		e, _ := crawl(t, two, nil, engine.WithReplay(a, fallback))
		a.Close()
		slices.Sort(s.items)
		got, failures := s.items, s.failures
		item := func(path string) string { return `{"url":"` + srv.URL + path + `"}` }
		if stat(e, "replay/miss_count") != 1 {
			t.Errorf("fallback %v: replay/miss_count %d, want 1", fallback, stat(e, "replay/miss_count"))
		}
		if fallback {
			if len(failures) != 0 || !slices.Equal(got, []string{item("/item/1"), item("/item/2")}) || srv.Hits("/item/2") != before+1 {
				t.Errorf("fallback: responses %v, failures %v, server hits of /item/2 %d", got, failures, srv.Hits("/item/2")-before)
			}
			continue
		}
		if len(failures) != 1 || failures[0].Name != engine.NameNotInArchive || failures[0].Request.URL != srv.URL+"/item/2" {
			t.Fatalf("failures %+v, want NotInArchive for /item/2", failures)
		}
		if !slices.Equal(got, []string{item("/item/1")}) || srv.Hits("/item/2") != before {
			t.Errorf("responses %v, server hits of /item/2 %d", got, srv.Hits("/item/2")-before)
		}
		if stat(e, "downloader/exception_type_count/NotInArchive") != 1 {
			t.Errorf("downloader/exception_type_count/NotInArchive = %d", stat(e, "downloader/exception_type_count/NotInArchive"))
		}
	}
}

// TestReplayEncodedArchive: an archive that keeps a body as it came over the wire, with
// its Content-Encoding (as other tools write them), replays decoded.
func TestReplayEncodedArchive(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wire.warc.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"gzipped":true}`))
	zw.Close()
	req := &types.Request{URL: "http://archive.example/data"}
	resp := &types.Response{Status: 200, Protocol: "HTTP/1.1",
		Headers: http.Header{"Content-Encoding": {"gzip"}, "Content-Length": {strconv.Itoa(gz.Len())}}, Body: gz.Bytes()}
	a := engine.WriteArchive(t, path, req, resp)
	s := &archiveSpider{}
	spider := &enginetest.Spider{
		StartURLs: []string{req.URL},
		ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
			s.add(types.Item{{Key: "body", Value: string(resp.Body)}, {Key: "encoding", Value: resp.Headers.Get("Content-Encoding")}})
			return nil
		},
		ErrbackFunc: s.errback,
	}
	crawl(t, spider, nil, engine.WithReplay(a, false))
	if want := []string{`{"body":"{\"gzipped\":true}","encoding":""}`}; !slices.Equal(s.items, want) || len(s.failures) != 0 {
		t.Errorf("items %q, failures %v; want %q", s.items, s.failures, want)
	}
}

// TestRecordReplayBrowser: a crawl with browser requests records each rendered main
// document (told apart from a plain download of the same URL) and replays offline with
// no Chromium (BROWSER_EXECUTABLE names none) and no hit on the server; a request with
// includePage, which needs a live page, fails with NotSupported on replay.
func TestRecordReplayBrowser(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := enginetest.StartWith(t, enginetest.BrowserMux())
	path := filepath.Join(t.TempDir(), "rendered.warc.gz")
	reqs := func() []*types.Request {
		return []*types.Request{
			enginetest.BrowserRequest(srv.URL+"/app", types.Item{{Key: "waitUntil", Value: "networkidle"}}),
			{URL: srv.URL + "/app"},
			enginetest.BrowserRequest(srv.URL+"/late", types.Item{{Key: "waitFor", Value: "#late"}}),
			enginetest.BrowserRequest(srv.URL+"/missing", types.Item{{Key: "includePage", Value: true}}),
		}
	}
	run := func(kv map[string]any, opts ...engine.Option) (*archiveSpider, *engine.Engine) {
		s := &archiveSpider{}
		sp := &enginetest.Spider{
			StartFunc: func(_ context.Context, emit engine.Emit) error {
				for _, r := range reqs() {
					r.Errback = "onError"
					r.Meta = append(r.Meta, types.Field{Key: types.MetaHandleHTTPStatusAll, Value: true})
					emit(types.Output{Request: r})
				}
				return nil
			},
			ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
				if resp.Page != nil {
					_ = resp.Page.Close()
				}
				_, browser, _ := resp.Request.Browser()
				s.add(types.Item{{Key: "url", Value: resp.URL}, {Key: "browser", Value: browser}, {Key: "status", Value: resp.Status},
					{Key: "pear", Value: bytes.Contains(resp.Body, []byte(`<li class="product">pear</li>`))},
					{Key: "late", Value: bytes.Contains(resp.Body, []byte(`<div id="late">arrived</div>`))}})
				return nil
			},
			ErrbackFunc: s.errback,
		}
		e, logs := crawl(t, sp, kv, opts...)
		slices.Sort(s.items)
		if testing.Verbose() {
			t.Log(logs)
		}
		return s, e
	}
	var rec *archiveSpider
	e := record(t, path, func(opt engine.Option) (e *engine.Engine) {
		rec, e = run(nil, opt)
		return e
	})
	if len(rec.failures) != 0 || len(rec.items) != 4 {
		t.Fatalf("recording: items %v, failures %v", rec.items, rec.failures)
	}
	if got := stat(e, "warc/record_count"); got != 2*4 { // the page's own requests (the API call) are not recorded
		t.Errorf("warc/record_count %d, want 8", got)
	}
	hits := srv.TotalHits()

	a := engine.OpenArchive(t, path)
	rep, e2 := run(map[string]any{types.BrowserExecutable: filepath.Join(t.TempDir(), "no-chromium")}, engine.WithReplay(a, false))
	if got := srv.TotalHits(); got != hits {
		t.Errorf("the replay made %d requests to the server", got-hits)
	}
	var want []string
	for _, it := range rec.items {
		if !strings.Contains(it, "/missing") {
			want = append(want, it)
		}
	}
	if !slices.Equal(rep.items, want) {
		t.Errorf("replayed items differ:\n%s\nrecorded:\n%s", strings.Join(rep.items, "\n"), strings.Join(want, "\n"))
	}
	if len(rep.failures) != 1 || rep.failures[0].Name != engine.NameNotSupported || !strings.Contains(rep.failures[0].Error(), "includePage") {
		t.Errorf("replay failures %v, want NotSupported for includePage", rep.failures)
	}
	if n := stat(e2, "browser/page_count"); n != 0 {
		t.Errorf("the replay rendered %d pages", n)
	}
	if got := stat(e2, "replay/response_count"); got != 3 {
		t.Errorf("replay/response_count %d, want 3", got)
	}
}
