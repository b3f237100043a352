package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// shopSite is a fixture shop whose products a test changes: / links to /p/ID for each
// product, /p/ID shows its name and price.
type shopSite struct {
	mu       sync.Mutex
	products map[string][2]string // id → name, price
	srv      *enginetest.Server
}

func newShopSite(t *testing.T) *shopSite {
	s := &shopSite{products: map[string][2]string{"1": {"Tea", "12.5"}, "2": {"Coffee", "8"}, "3": {"Cocoa", "5"}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		fmt.Fprint(w, "<html><body>")
		for id := range s.products {
			fmt.Fprintf(w, `<a href="/p/%s">%s</a>`, id, id)
		}
		fmt.Fprint(w, "</body></html>")
	})
	mux.HandleFunc("GET /p/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		p, ok := s.products[r.PathValue("id")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><body><h1>%s</h1><span class="price">%s</span></body></html>`, p[0], p[1])
	})
	s.srv = enginetest.StartWith(t, mux)
	return s
}

func (s *shopSite) set(f func(p map[string][2]string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.products)
}

// shopSpider has two cases: every product, and with -a only=ID one product.
const shopSpider = `import { Request } from "jscrawl";
export const tests = [
  { name: "all" },
  { name: "one", args: { only: "2" }, testKey: "name" },
];
export default class Shop {
  name = "shop";
  baseUrl = "http://127.0.0.1:1";
  only = "";
  *start() { yield new Request(this.baseUrl + (this.only ? "/p/" + this.only : "/")); }
  *parse(response) {
    for (const a of response.css("a")) yield response.follow(a, { callback: "product" });
    if (this.only) yield* this.product(response);
  }
  *product(response) {
    yield { url: response.url, name: response.css("h1::text").get(), price: response.css(".price::text").get() };
  }
}
`

// TestSpiderTestCommand: jscrawl test without a snapshot fails; --record writes one per
// case; a replay passes with no request to the site; after the site changes --record
// fails with a diff and leaves the snapshot alone, --record --update takes the new one;
// an edit of the spider fails with a diff and --update accepts it.
func TestSpiderTestCommand(t *testing.T) {
	t.Parallel()
	site := newShopSite(t)
	dir := t.TempDir()
	spider := writeFile(t, dir, "shop.js", shopSpider)
	snap := filepath.Join(dir, "__snapshots__", "shop")
	test := func(wantCode int, args ...string) string {
		t.Helper()
		args = append([]string{"test", spider, "-a", "baseUrl=" + site.srv.URL}, args...)
		stdout, stderr, code := jscrawl(t, args...)
		if code != wantCode {
			t.Fatalf("%v: exit code %d, want %d\n%s\n%s", args, code, wantCode, stdout, stderr)
		}
		return stdout
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(snap, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	contains := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("no %q in the output:\n%s", w, out)
			}
		}
	}
	u := site.srv.URL

	out := test(1)
	contains(out, "FAIL all: no snapshot", "FAIL one: no snapshot", "0 passed, 2 failed")

	out = test(0, "--record")
	contains(out, "RECORDED all (3 items)", "RECORDED one (1 items)", "2 passed, 0 failed")
	all := read("all.items.jsonl")
	if want := fmt.Sprintf(`{"url":"%s/p/1","name":"Tea","price":"12.5"}`, u); !strings.HasPrefix(all, want+"\n") || strings.Count(all, "\n") != 3 {
		t.Errorf("all.items.jsonl:\n%s", all)
	}
	allWARC := read("all.warc.gz")

	hits := site.srv.TotalHits()
	out = test(0)
	contains(out, "PASS all (3 items)", "PASS one (1 items)", "2 passed, 0 failed")
	if site.srv.TotalHits() != hits {
		t.Errorf("the replay sent %d requests to the site", site.srv.TotalHits()-hits)
	}

	// The site changes: a replay does not see it, a recording does.
	site.set(func(p map[string][2]string) {
		p["1"] = [2]string{"Tea", "12.50"}
		delete(p, "3")
		p["4"] = [2]string{"Mate", "7"}
	})
	test(0)
	out = test(1, "--record")
	contains(out, "FAIL all: 1 items added, 1 removed, 1 changed", "PASS one",
		fmt.Sprintf(`changed item[url=%s/p/1].price: "12.5" → "12.50"`, u),
		fmt.Sprintf(`removed item[url=%s/p/3]: {"url":"%s/p/3","name":"Cocoa","price":"5"}`, u, u),
		fmt.Sprintf(`added   item[url=%s/p/4]: {"url":"%s/p/4","name":"Mate","price":"7"}`, u, u))
	if read("all.items.jsonl") != all || read("all.warc.gz") != allWARC {
		t.Error("a failed --record changed the snapshot")
	}
	if _, err := os.Stat(filepath.Join(snap, "all.new.warc.gz")); err == nil {
		t.Error("the new recording was left beside the snapshot")
	}
	out = test(0, "--record", "--update")
	contains(out, "UPDATED all: 1 items added, 1 removed, 1 changed", "PASS one")
	hits = site.srv.TotalHits()
	test(0)
	if site.srv.TotalHits() != hits {
		t.Errorf("the replay sent %d requests to the site", site.srv.TotalHits()-hits)
	}

	// The spider changes: the replay shows it; --update accepts it.
	writeFile(t, dir, "shop.js", strings.Replace(shopSpider, `price: response.css(".price::text").get()`,
		`price: Number(response.css(".price::text").get())`, 1))
	out = test(1)
	contains(out, "FAIL all: 0 items added, 0 removed, 3 changed", "FAIL one: 0 items added, 0 removed, 1 changed",
		`changed item[name=Coffee].price: "8" → 8`)
	test(0, "--update")
	out = test(0)
	contains(out, "PASS all (3 items)", "PASS one (1 items)")
}
