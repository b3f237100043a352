package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// checkSite is the shop jscrawl check tests against: /list has three products (the third
// without a price) and two links; /item/{id} is a product page; /boom answers 500.
func checkSite(t *testing.T) string { return checkServer(t).Server.URL }

// checkServer is checkSite's server, to count what it served.
func checkServer(t *testing.T) *enginetest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body>
<div class="p"><h2>One</h2><span class="price">1.50</span></div>
<div class="p"><h2>Two</h2><span class="price">2.50</span></div>
<div class="p"><h2>Three</h2></div>
<a href="/item/1">1</a><a href="/item/2">2</a></body></html>`)
	})
	mux.HandleFunc("GET /item/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><h1>Item %s</h1></body></html>", r.PathValue("id"))
	})
	mux.HandleFunc("GET /boom", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	return enginetest.StartWith(t, mux)
}

// checkSpiderSrc is a TypeScript spider whose doc comments the tests fill in: PARSE_DOC
// documents parse, ITEM_DOC parseItem.
const checkSpiderSrc = `import { Request, Response } from "jscrawl";

interface Product { title: string; price?: string; id?: number; tag?: string }

export default class Shop {
  name = "shop";

  /**
   * Reads the product list.
PARSE_DOC
   * @param response the list page
   */
  async *parse(response: Response): AsyncGenerator<Product | Request> {
    for (const p of response.css("div.p")) {
      const price = p.css(".price::text").get();
      yield { title: p.css("h2::text").get()!, ...(price ? { price } : {}) };
    }
    for (const a of response.css("a::attr(href)").getall()) {
      yield response.follow(a, { callback: this.parseItem });
    }
  }

  /**
ITEM_DOC
   */
  *parseItem(response: Response, kw: { id?: number }): Generator<Product> {
    if (kw.id === undefined) return;
    const tag = response.meta.tag;
    yield { title: response.css("h1::text").get()!, id: kw.id, ...(tag ? { tag } : {}) };
  }

  /** Not a callback with contracts: @returns {string} */
  label(): string { return "x"; }

  /**
   * @url BASE/list
   * @returns items 1
   */
  *broken(response: Response) { throw new Error("broken callback"); }
}
`

// TestCheck runs jscrawl check on a spider whose contracts pass or fail, one tag at a time,
// against a real site: the report's lines, the failures' texts and the exit code.
func TestCheck(t *testing.T) {
	t.Parallel()
	base := checkSite(t)
	const parseOK = "   * @url BASE/list\n   * @returns items 3 3\n   * @returns requests 2 2\n   * @scrapes title"
	const itemOK = "   * @url BASE/item/7\n   * @cbKwargs {\"id\": 7}\n   * @meta {\"tag\": \"new\"}\n   * @returns items 1 1\n   * @scrapes title id tag"
	tests := []struct {
		name           string
		parseDoc, item string
		args           []string
		code           int
		want, wantNot  []string // regexps the output must (not) match
	}{
		{"all pass", parseOK, itemOK, []string{"parse", "parseItem"}, 0, []string{
			`(?m)^\[shop\] parse \(@returns items 3 3\) \.\.\. ok$`,
			`(?m)^\[shop\] parse \(@returns requests 2 2\) \.\.\. ok$`,
			`(?m)^\[shop\] parse \(@scrapes title\) \.\.\. ok$`,
			`(?m)^\[shop\] parseItem \(@returns items 1 1\) \.\.\. ok$`,
			`(?m)^\[shop\] parseItem \(@scrapes title id tag\) \.\.\. ok$`,
			`(?m)^Ran 5 contracts in \d+\.\d{3}s\n\nOK$`,
		}, []string{`label`, `broken`}},
		{"@returns items fails", strings.Replace(parseOK, "items 3 3", "items 5", 1), itemOK, []string{"parse"}, 1, []string{
			`(?m)^\[shop\] parse \(@returns items 5\) \.\.\. FAIL$`,
			`(?m)^FAIL: \[shop\] parse \(@returns items 5\)\n-{70}\nReturned 3 items, expected 5\.\.inf$`,
			`(?m)^Ran 3 contracts in .*\n\nFAILED \(failures=1\)$`,
		}, nil},
		{"@returns requests fails", strings.Replace(parseOK, "requests 2 2", "requests 0 0", 1), itemOK, []string{"parse"}, 1, []string{
			`(?m)^FAIL: \[shop\] parse \(@returns requests 0 0\)\n-{70}\nReturned 2 requests, expected 0$`,
		}, nil},
		{"@scrapes fails", strings.Replace(parseOK, "@scrapes title", "@scrapes title price", 1), itemOK, []string{"parse"}, 1, []string{
			`(?m)^\[shop\] parse \(@scrapes title price\) \.\.\. FAIL$`,
			`(?m)^Missing fields: price \(item 3 of 3\)$`,
		}, nil},
		{"without @cbKwargs", parseOK, strings.Replace(itemOK, "   * @cbKwargs {\"id\": 7}\n", "", 1), []string{"parseItem"}, 1, []string{
			`(?m)^Returned 0 items, expected 1$`,
		}, nil},
		{"@cb_kwargs, Scrapy's spelling", parseOK, strings.Replace(itemOK, "@cbKwargs", "@cb_kwargs", 1), []string{"parseItem"}, 0, []string{
			`(?m)^OK$`,
		}, nil},
		{"@cbKwargs not JSON", parseOK, strings.Replace(itemOK, `{"id": 7}`, `{id: 7}`, 1), []string{"parseItem"}, 1, []string{
			`(?m)^\[shop\] parseItem \(contract\) \.\.\. ERROR$`,
			`(?m)^@cbKwargs \{id: 7\}: .* \(want a JSON object\)$`,
			`(?m)^FAILED \(errors=1\)$`,
		}, nil},
		{"without @meta", parseOK, strings.Replace(itemOK, "   * @meta {\"tag\": \"new\"}\n", "", 1), []string{"parseItem"}, 1, []string{
			`(?m)^Missing fields: tag \(item 1 of 1\)$`,
		}, nil},
		{"@url that fails", strings.Replace(parseOK, "BASE/list", "BASE/boom", 1), itemOK, []string{"parse"}, 1, []string{
			`(?m)^\[shop\] parse \(errback\) \.\.\. ERROR$`,
			`(?m)^HttpError: .*500`,
			`(?m)^Ran 0 contracts`,
		}, nil},
		{"callback throws", parseOK, itemOK, []string{"broken"}, 1, []string{
			`(?m)^\[shop\] broken \(callback\) \.\.\. ERROR$`,
			`broken callback`,
		}, nil},
		{"every callback", parseOK, itemOK, nil, 1, []string{
			`(?m)^Ran 5 contracts in .*\n\nFAILED \(errors=1\)$`,
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := strings.NewReplacer("PARSE_DOC", tc.parseDoc, "ITEM_DOC", tc.item).Replace(checkSpiderSrc)
			writeFile(t, dir, "shop.ts", strings.ReplaceAll(src, "BASE", base))
			out, errOut, code := jscrawlIn(t, dir, "", append([]string{"check", "shop.ts", "-s", "ROBOTSTXT_OBEY=false"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			for _, re := range tc.want {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output does not match %s", re)
				}
			}
			for _, re := range tc.wantNot {
				if regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output matches %s", re)
				}
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
			}
		})
	}
}

// TestCheckReplay runs the contracts against a recording: check --warc records the sample
// pages, and check --replay passes (and fails) on them with the server getting no request.
func TestCheckReplay(t *testing.T) {
	t.Parallel()
	srv := checkServer(t)
	const parseOK = "   * @url BASE/list\n   * @returns items 3 3\n   * @returns requests 2 2\n   * @scrapes title"
	const itemOK = "   * @url BASE/item/7\n   * @cbKwargs {\"id\": 7}\n   * @returns items 1 1\n   * @scrapes title id"
	dir := t.TempDir()
	write := func(parseDoc string) {
		src := strings.NewReplacer("PARSE_DOC", parseDoc, "ITEM_DOC", itemOK).Replace(checkSpiderSrc)
		writeFile(t, dir, "shop.ts", strings.ReplaceAll(src, "BASE", srv.URL))
	}
	write(parseOK)
	archive := filepath.Join(dir, "check.warc.gz")
	check := func(args ...string) (string, int) {
		t.Helper()
		out, errOut, code := jscrawlIn(t, dir, "", append([]string{"check", "shop.ts", "-s", "ROBOTSTXT_OBEY=false"}, args...)...)
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
		}
		return out, code
	}
	if out, code := check("--warc", archive, "parse", "parseItem"); code != 0 || !strings.HasSuffix(strings.TrimSpace(out), "OK") {
		t.Fatalf("recording: exit code %d\n%s", code, out)
	}
	hits := srv.TotalHits()
	if hits != 2 {
		t.Errorf("recording downloaded %d pages, want the 2 sample URLs", hits)
	}
	if out, code := check("--replay", archive, "parse", "parseItem"); code != 0 || !regexp.MustCompile(`(?m)^Ran 5 contracts in .*\n\nOK$`).MatchString(out) {
		t.Errorf("replay: exit code %d\n%s", code, out)
	}
	write(strings.Replace(parseOK, "items 3 3", "items 4 4", 1))
	if out, code := check("--replay", archive, "parse"); code != 1 || !strings.Contains(out, "Returned 3 items, expected 4") {
		t.Errorf("replay of a failing contract: exit code %d\n%s", code, out)
	}
	if n := srv.TotalHits() - hits; n != 0 {
		t.Errorf("the replays sent %d requests to the server", n)
	}
}

// TestCheckList lists the callbacks with contracts (the @url ones, sorted), those of a
// base class in a local import included, and a named callback without contracts is a
// usage error.
func TestCheckList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := strings.NewReplacer("PARSE_DOC", "   * @url http://127.0.0.1:1/", "ITEM_DOC", "   * @url http://127.0.0.1:1/x",
		"export default class Shop {", "import { Base } from \"./lib/base\";\nexport default class Shop extends Base {").Replace(checkSpiderSrc)
	writeFile(t, dir, "shop.ts", src)
	if err := os.Mkdir(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "lib/base.ts", `export class Base {
  /**
   * Inherited.
   * @url http://127.0.0.1:1/base
   * @returns items 1
   */
  *parseInherited(response: unknown) {}
  /** @url http://127.0.0.1:1/helper (not a callback: a function outside the class) */
}
/** @url http://127.0.0.1:1/fn */
export function notAMethod() {}
`)
	out, errOut, code := jscrawlIn(t, dir, "", "check", "-l", "shop.ts")
	if want := "shop\n  * broken\n  * parse\n  * parseInherited\n  * parseItem\n"; code != 0 || out != want {
		t.Errorf("check -l: exit %d, output %q, want %q\n%s", code, out, want, errOut)
	}
	_, errOut, code = jscrawlIn(t, dir, "", "check", "shop.ts", "label")
	if code != 2 || !strings.Contains(errOut, "label has no contracts") {
		t.Errorf("check shop.ts label: exit %d, want 2 and \"label has no contracts\"\n%s", code, errOut)
	}
}
