package jsapi_test

// Crawlee's forms under jscrawl (crawlee.js): export default router, export default
// crawler and a script that runs a crawler, with Crawlee 3.18's context and options.

import (
	"strings"
	"testing"
)

// TestCrawleeRouter: export default createCheerioRouter() with labels routing to handlers,
// userData travelling, pushData items in the feed and start URLs from -a startUrls.
func TestCrawleeRouter(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, mod := range []string{"crawlee", "@crawlee/cheerio"} {
		t.Run(mod, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `
import { createCheerioRouter, EnqueueStrategy } from "` + mod + `";
const router = createCheerioRouter();
router.addDefaultHandler(async ({ request, enqueueLinks, log }) => {
  log.info("start " + request.url);
  const r = await enqueueLinks({ globs: ["**/p/*"], label: "DETAIL", userData: { from: request.loadedUrl }, strategy: EnqueueStrategy.SameHostname });
  await enqueueLinks({ urls: ["BASE/json"], label: "JSON" });
  if (r.processedRequests.length !== 3) throw new Error("processed " + r.processedRequests.length);
});
router.addHandler("DETAIL", async ({ request, body, pushData }) => {
  await pushData({ url: request.url, label: request.label, from: request.userData.from, h1: /<h1>([^<]*)/.exec(body)[1] });
});
router.addHandler("JSON", async ({ request, json, contentType, response, pushData }) => {
  await pushData({ url: request.url, x: json.x, type: contentType.type, status: response.statusCode, test: response.headers["x-test"] });
});
export default router;
`, args: map[string]string{"startUrls": srv.URL + "/"}})
			got := strings.Join(res.sorted(t), "\n")
			want := strings.Join([]string{
				`{"url":"` + srv.URL + `/json","x":1,"type":"application/json","status":200,"test":"yes"}`,
				`{"url":"` + srv.URL + `/p/1","label":"DETAIL","from":"` + srv.URL + `/","h1":"Page 1"}`,
				`{"url":"` + srv.URL + `/p/2","label":"DETAIL","from":"` + srv.URL + `/","h1":"Page 2"}`,
				`{"url":"` + srv.URL + `/p/3","label":"DETAIL","from":"` + srv.URL + `/","h1":"Page 3"}`,
			}, "\n")
			if got != want {
				t.Fatalf("items:\n%s\nwant:\n%s\n%s", got, want, res.log)
			}
			if !strings.Contains(res.log, "start "+srv.URL+"/") {
				t.Errorf("no log line from the handler's log:\n%s", res.log)
			}
		})
	}
}
