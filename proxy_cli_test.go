package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// proxiedSpider requests baseUrl/p/0 ... /p/3 and yields one item per page.
const proxiedSpider = `import { Request } from "jscrawl";
export default class Proxied {
  name = "proxied";
  baseUrl = "http://127.0.0.1:1";
  *start() { for (let i = 0; i < 4; i++) yield new Request(this.baseUrl + "/p/" + i); }
  *parse(response) { yield { url: response.url, proxy: response.meta.proxy ?? null }; }
}
`

// TestProxyListFile: `-s PROXY_LIST=proxies.txt` reads the proxies from the file (a
// comment and a blank line in it), the crawl rotates over them (the site sees their two
// addresses), the stats dump counts per proxy under its masked URL, and the password is in
// neither the log, the items nor `jscrawl settings`; a bad entry is a usage error (exit 2)
// that names it masked.
func TestProxyListFile(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clients := map[string]int{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		clients[host]++
		mu.Unlock()
		fmt.Fprint(w, "<html>ok</html>")
	}))
	t.Cleanup(site.Close)
	a := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.2:0", User: "u", Pass: "hunter2-pw"})
	b := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{Addr: "127.0.0.3:0", User: "u", Pass: "hunter2-pw"})
	dir := t.TempDir()
	writeFile(t, dir, "spider.ts", proxiedSpider)
	writeFile(t, dir, "proxies.txt", "# the office's proxies\n"+a.URL()+"\n\n"+b.URL("socks5h")+"\n")
	stdout, stderr, code := jscrawlIn(t, dir, "", "run", "spider.ts", "-s", "PROXY_LIST=proxies.txt", "-s", "ROBOTSTXT_OBEY=false", "-a", "baseUrl="+site.URL, "-o", "-:jsonl", "-L", "DEBUG")
	items := runItems(t, stdout, stderr, code, 4)
	for _, it := range items {
		if it["proxy"] != nil {
			t.Errorf("response.meta.proxy = %v: the pool's choice is not the spider's meta", it["proxy"])
		}
	}
	mu.Lock()
	got := fmt.Sprint(clients)
	mu.Unlock()
	if got != "map[127.0.0.2:2 127.0.0.3:2]" {
		t.Errorf("clients at the site %s, want two from each proxy", got)
	}
	_, stats := statsDump(t, stderr)
	for _, key := range []string{
		"proxy/http://u:****@" + a.Addr() + "/response_count",
		"proxy/socks5h://u:****@" + b.Addr() + "/response_count",
	} {
		if stats[key] != float64(2) {
			t.Errorf("%s = %v, want 2", key, stats[key])
		}
	}
	if strings.Contains(stdout+stderr, "hunter2") {
		t.Errorf("the password is in the output:\n%s", stderr)
	}

	out, errOut, code := jscrawlIn(t, dir, "", "settings", "-s", "PROXY_LIST=http://u:hunter2-pw@10.0.0.1:3128,10.0.0.2:3128", "--get", "PROXY_LIST")
	if code != 0 || strings.Contains(out, "hunter2") || !strings.Contains(out, "u:****@10.0.0.1:3128") {
		t.Errorf("jscrawl settings --get PROXY_LIST: exit %d: %s%s", code, out, errOut)
	}

	writeFile(t, dir, "bad.txt", "http://u:hunter2-pw@10.0.0.1:3128\nftp://u:hunter2-pw@10.0.0.2:21\n")
	_, stderr, code = jscrawlIn(t, dir, "", "run", "spider.ts", "-s", "PROXY_LIST=bad.txt")
	if code != 2 || !strings.Contains(stderr, `bad.txt line 2: proxy "ftp://u:****@10.0.0.2:21"`) || strings.Contains(stderr, "hunter2") {
		t.Errorf("a bad PROXY_LIST: exit %d\n%s", code, stderr)
	}
}

// TestMaskValueProxyList: a job's remembered -s PROXY_LIST keeps its proxies with their
// passwords masked, or is masked whole when an entry has credentials without a scheme.
func TestMaskValueProxyList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"PROXY_LIST=proxies.txt", "PROXY_LIST=proxies.txt"},
		{"PROXY_LIST=http://u:pw@h:1,socks5://h:2", "PROXY_LIST=http://u:****@h:1,socks5://h:2"},
		{"PROXY_LIST=u:pw@h:1", "PROXY_LIST=****"},
		{`PROXY_LIST=["http://u:pw@h:1","v:pw2@h:2"]`, "PROXY_LIST=****"},
	} {
		if got, _ := maskValue("s", tc.in); got != tc.want {
			t.Errorf("maskValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
