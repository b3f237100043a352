package jsapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestScrapyMetaKeysRefused: Scrapy's snake_case spelling of a meta key jscrawl reads is a
// TypeError naming jscrawl's key, in fetch, crawler.download and yielded requests, and so is
// a snake_case fetch option; other snake_case keys stay user data.
func TestScrapyMetaKeysRefused(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	keys := []struct{ snake, camel string }{
		{"dont_cache", "dontCache"},
		{"dont_merge_cookies", "dontMergeCookies"},
		{"dont_obey_robotstxt", "dontObeyRobotstxt"},
		{"dont_redirect", "dontRedirect"},
		{"dont_retry", "dontRetry"},
		{"download_maxsize", "downloadMaxsize"},
		{"download_slot", "downloadSlot"},
		{"download_timeout", "downloadTimeout"},
		{"download_warnsize", "downloadWarnsize"},
		{"handle_httpstatus_all", "handleHttpStatusAll"},
		{"handle_httpstatus_list", "handleHttpStatusList"},
		{"max_retry_times", "maxRetryTimes"},
		{"redirect_reasons", "redirectReasons"},
		{"redirect_times", "redirectTimes"},
		{"redirect_urls", "redirectUrls"},
		{"referrer_policy", "referrerPolicy"},
		{"dont_count", "dontCount"},
	}
	for _, via := range []struct{ name, call string }{
		{"fetch", `await fetch("BASE/p/1", { meta: { KEY: 1 } })`},
		{"crawler.download", `await this.crawler.download(new Request("BASE/p/1", { meta: { KEY: 1 } }))`},
		{"fetch Request", `await fetch(new Request("BASE/p/1", { meta: { KEY: 1 } }))`},
	} {
		t.Run(via.name, func(t *testing.T) {
			t.Parallel()
			var js strings.Builder
			for _, k := range keys {
				fmt.Fprintf(&js, "    try { %s; yield { key: %q, err: \"none\" }; } catch (e) { yield { key: %q, err: e.name + \": \" + e.message }; }\n",
					strings.ReplaceAll(via.call, "KEY", k.snake), k.snake, k.snake)
			}
			res := crawl(t, srv, spec{src: `
import { Spider, Request, fetch } from "jscrawl";
export default class extends Spider {
  name = "meta";
  async *start() {
` + js.String() + `
    const r = ` + strings.ReplaceAll(via.call, "{ KEY: 1 }", `{ link_text: "a", my_key: 1 }`) + `;
    yield { key: "user data", err: "none", meta: r.meta.my_key };
  }
}
`})
			var want []string
			for _, k := range keys {
				want = append(want, fmt.Sprintf(`{"key":%q,"err":"TypeError: meta.%s is Scrapy's spelling: jscrawl spells it meta.%s"}`, k.snake, k.snake, k.camel))
			}
			want = append(want, `{"key":"user data","err":"none","meta":1}`)
			equalLines(t, "items", res.lines(t), want, res.log)
		})
	}
	t.Run("fetch options", func(t *testing.T) {
		t.Parallel()
		res := crawl(t, srv, spec{src: `
import { Spider, fetch } from "jscrawl";
export default class extends Spider {
  name = "opts";
  async *start() {
    for (const k of ["dont_obey_robotstxt", "dont_count", "dont_filter"]) {
      try { await fetch("BASE/p/1", { [k]: true }); yield { key: k, err: "none" }; } catch (e) { yield { key: k, err: e.name + ": " + e.message.replace(/ \(at [^)]*\)/, "") }; }
    }
  }
}
`})
		equalLines(t, "items", res.lines(t), []string{
			`{"key":"dont_obey_robotstxt","err":"TypeError: fetch(): option \"dont_obey_robotstxt\" is Scrapy's spelling: jscrawl spells it \"dontObeyRobotstxt\""}`,
			`{"key":"dont_count","err":"TypeError: fetch(): option \"dont_count\" is Scrapy's spelling: jscrawl spells it \"dontCount\""}`,
			`{"key":"dont_filter","err":"TypeError: fetch(): option \"dont_filter\" is Scrapy's spelling: jscrawl spells it \"dontFilter\""}`,
		}, res.log)
	})
	t.Run("yielded", func(t *testing.T) {
		t.Parallel()
		res := crawl(t, srv, spec{src: `
import { Spider, Request } from "jscrawl";
export default class extends Spider {
  name = "yielded";
  *start() { yield new Request("BASE/p/1", { meta: { dont_obey_robotstxt: true } }); }
  *parse(r) { yield { url: r.url }; }
}
`})
		if len(res.items) != 0 || res.stat("downloader/request_count") != 0 {
			t.Errorf("the request was crawled: %v", res.lines(t))
		}
		if !strings.Contains(res.log, "meta.dont_obey_robotstxt is Scrapy's spelling: jscrawl spells it meta.dontObeyRobotstxt") {
			t.Errorf("no error naming meta.dontObeyRobotstxt in the log:\n%s", res.log)
		}
	})
}
