package browser_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// infiniteLists are test pages that add 10 entries of 120px (50 at most) as the user
// reaches the bottom: on a scroll event, on a wheel event, or when an
// IntersectionObserver sees a sentinel below the list.
var infiniteLists = map[string]string{
	"scroll": `window.addEventListener("scroll", () => { if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 5) setTimeout(more, 20); });`,
	"wheel":  `window.addEventListener("wheel", () => setTimeout(more, 20));`,
	"sentinel": `const s = document.createElement("div"); s.id = "sentinel"; document.body.appendChild(s);
new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) more(); }).observe(s);`,
}

// TestBrowserPageScroll: page.scroll reaches the end of an infinite list however the
// page listens for it, in a new tab and in reused ones, whose page clear froze (and hid)
// and wake showed again.
func TestBrowserPageScroll(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := enginetest.BrowserMux()
	mux.HandleFunc("/list/{kind}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><style>.item{height:120px}</style><div id="list"></div><script>
let n = 0;
function more() { for (let i = 0; i < 10 && n < 50; i++) { const d = document.createElement("div"); d.className = "item"; d.textContent = "item " + (++n); document.getElementById("list").appendChild(d); } }
more();
` + infiniteLists[r.PathValue("kind")] + `</script>`))
	})
	srv := enginetest.StartWith(t, mux)
	e, logs := enginetest.NewEngine(t, &enginetest.Spider{}, map[string]any{types.BrowserConcurrency: 1})
	defer func() { _ = e.CloseHandlers() }()
	for _, kind := range []string{"scroll", "wheel", "sentinel", "scroll"} { // the last ones in a reused tab
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		resp, err := e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/list/"+kind, types.Item{{Key: "includePage", Value: true}}))
		if err != nil || resp.Page == nil {
			cancel()
			t.Fatalf("%s: %v, page %v\n%s", kind, err, resp, logs)
		}
		if err := resp.Page.Scroll(ctx, 20, time.Second); err != nil {
			t.Errorf("%s: scroll: %v", kind, err)
		}
		res, err := resp.Page.Evaluate(ctx, `() => [document.querySelectorAll(".item").length, document.querySelector(".item:last-child").textContent, document.visibilityState]`, nil)
		var got []any
		if err == nil {
			err = json.Unmarshal(res, &got)
		}
		if err != nil || len(got) != 3 || got[0] != float64(50) || got[1] != "item 50" || got[2] != "visible" {
			t.Errorf("%s: after page.scroll: %s, %v; want 50 entries, the last item 50, on a visible page", kind, res, err)
		}
		_ = resp.Page.Close()
		cancel()
	}
	wantStats(t, e, logs.String(), map[string]int64{"browser/page_count": 4, "browser/tab_count": 1})
}
