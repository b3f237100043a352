package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// authorsSpider is Scrapy's tutorial spider for the authors, as a Scrapy user ports it: the
// callback given positionally to followAll. CALL is replaced by each case's callback
// argument.
const authorsSpider = `import { Request } from "jscrawl";
export default class Authors {
  name = "authors";
  baseUrl = "http://127.0.0.1:1";
  *start() { yield new Request(this.baseUrl + "/quotes/"); }
  *parse(response) {
    const authorLinks = response.css(".author + a");
    yield response.followAll(authorLinks, CALL); // MARK
    yield response.followAll(response.css("li.next a"), this.parse);
  }
  *parseAuthor(response) {
    yield {
      name: response.css("h3.author-title::text").get("").trim(),
      birthdate: response.css(".author-born-date::text").get(),
    };
  }
}
`

// TestCallbackScrapyTutorialForm runs Scrapy's tutorial form response.followAll(links,
// this.parseAuthor) with the real binary on the demo site: the author pages go to
// parseAuthor (before, they went to parse: 0 items, no warning). A mistyped callback, given
// positionally or as the callback option, is a TypeError in the log naming it and the
// spider's file:line, and scrapes nothing.
func TestCallbackScrapyTutorialForm(t *testing.T) {
	t.Parallel()
	line := slices.IndexFunc(strings.Split(authorsSpider, "\n"), func(l string) bool { return strings.Contains(l, "MARK") }) + 1
	for _, tc := range []struct {
		name, call string
		items      int
		want       []string // in stderr
	}{
		{"positional callback", "this.parseAuthor", 6, nil},
		{"callback by name", `"parseAuthor"`, 6, nil},
		{"mistyped positional callback", "this.parseAuthr", 0, []string{"TypeError: response.followAll(): argument 2 (the callback or the options) is undefined"}},
		{"mistyped callback option", "{ callback: this.parseAuthr }", 0, []string{`TypeError: response.followAll(): option "callback" is undefined`}},
		{"snake_case option", `{ cb_kwargs: {}, callback: "parseAuthor" }`, 0, []string{`unknown option "cb_kwargs"`, `jscrawl spells it "cbKwargs"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "spider.ts", strings.Replace(authorsSpider, "CALL", tc.call, 1))
			stdout, stderr, code := jscrawlIn(t, dir, "", "run", "--demo", "spider.ts", "-o", "-:jsonl")
			items := runItems(t, stdout, stderr, code, tc.items)
			if tc.items > 0 {
				if a := find(items, "name", "Jorge Albarrán"); a == nil || a["birthdate"] != "July 19, 1902" {
					t.Errorf("no author item for Jorge Albarrán: %v", items)
				}
				if strings.Contains(stderr, "ERROR") {
					t.Errorf("the log has an error:\n%s", stderr)
				}
				return
			}
			for _, w := range append(tc.want, fmt.Sprintf("(at spider.ts:%d:", line)) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
		})
	}
}
