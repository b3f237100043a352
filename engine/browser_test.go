package engine_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// browserMux serves the pages the browser tests render.
func browserMux() *http.ServeMux {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("X-Doc", "main")
			_, _ = w.Write([]byte("<!doctype html><html><head><title>t</title></head><body>" + body + "</body></html>"))
		}
	}
	// Products rendered client-side from a JSON API.
	mux.HandleFunc("/app", page(`<ul id="list"></ul><script>
fetch("/api/products").then(r => r.json()).then(ps => {
  document.getElementById("list").innerHTML = ps.map(p => "<li class=product>" + p + "</li>").join("");
});</script>`))
	mux.HandleFunc("/api/products", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`["apple","pear","plum"]`))
	})
	// An element that appears 300 ms after the load event.
	mux.HandleFunc("/late", page(`<script>
window.addEventListener("load", () => setTimeout(() => {
  const d = document.createElement("div"); d.id = "late"; d.textContent = "arrived"; document.body.appendChild(d);
}, 300));</script>`))
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		page(`<p>not here</p>`)(w, r)
	})
	return mux
}

func TestBrowserRendersPage(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := enginetest.StartWith(t, browserMux())
	var mu sync.Mutex
	got := map[string]*types.Response{}
	sp := &enginetest.Spider{
		StartFunc: func(ctx context.Context, emit engine.Emit) error {
			for _, r := range []*types.Request{
				{URL: srv.URL + "/app", Meta: types.Item{{Key: "browser", Value: types.Item{{Key: "waitUntil", Value: "networkidle"}}}}, CbKwargs: types.Item{{Key: "k", Value: "browser"}}},
				{URL: srv.URL + "/app", CbKwargs: types.Item{{Key: "k", Value: "plain"}}},
				{URL: srv.URL + "/late", Meta: types.Item{{Key: "browser", Value: types.Item{{Key: "waitFor", Value: "#late"}}}}, CbKwargs: types.Item{{Key: "k", Value: "waitFor"}}},
				{URL: srv.URL + "/missing", Meta: types.Item{{Key: "browser", Value: true}, {Key: types.MetaHandleHTTPStatusAll, Value: true}}, CbKwargs: types.Item{{Key: "k", Value: "404"}}},
			} {
				emit(types.Output{Request: r})
			}
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			k, _ := resp.Request.CbKwargs.Get("k")
			mu.Lock()
			got[k.(string)] = resp
			mu.Unlock()
			return nil
		},
	}
	e, logs := crawl(t, sp, nil)
	if len(got) != 4 {
		t.Fatalf("got responses %v, want 4; log:\n%s", got, logs)
	}
	if b := got["browser"]; !bytes.Contains(b.Body, []byte(`<li class="product">pear</li>`)) || b.Status != 200 || b.Headers.Get("X-Doc") != "main" {
		t.Errorf("rendered /app: status %d, X-Doc %q, body:\n%s", b.Status, b.Headers.Get("X-Doc"), b.Body)
	}
	if p := got["plain"]; bytes.Contains(p.Body, []byte("pear")) {
		t.Errorf("plain /app has the rendered products:\n%s", p.Body)
	}
	if b := got["waitFor"]; !bytes.Contains(b.Body, []byte(`<div id="late">arrived</div>`)) {
		t.Errorf("waitFor #late: body without it:\n%s", b.Body)
	}
	if b := got["404"]; b.Status != 404 || !strings.Contains(string(b.Body), "not here") {
		t.Errorf("/missing: status %d, body:\n%s", b.Status, b.Body)
	}
	if n := srv.Hits("/app"); n != 2 {
		t.Errorf("/app hits = %d, want 2 (a browser and a plain request are different requests)", n)
	}
	if n := stat(e, "browser/page_count"); n != 3 {
		t.Errorf("browser/page_count = %d, want 3", n)
	}
	if s, _ := e.Stats().Get("browser/page_seconds").(float64); s <= 0 {
		t.Errorf("browser/page_seconds = %v, want > 0", e.Stats().Get("browser/page_seconds"))
	}
}
