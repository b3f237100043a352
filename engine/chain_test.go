package engine_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// ownSpider is a Go spider with its own middlewares (as jsapi.Spider has JS ones): it
// records the groups of downloader middlewares the engine asks for.
type ownSpider struct {
	*enginetest.Spider
	dl, out []int
	groups  [][]int
}

func (s *ownSpider) MiddlewareOrders() (downloader, spiderOutput []int) { return s.dl, s.out }

func (s *ownSpider) DownloaderMiddlewares(idx []int) engine.DownloaderMiddleware {
	s.groups = append(s.groups, idx)
	return passOn{}
}

// passOn is a downloader middleware that does nothing.
type passOn struct{}

func (passOn) Fetch(ctx context.Context, req *types.Request, next engine.Downloader) (*types.Response, error) {
	return next.Fetch(ctx, req)
}

// chainCase is a case of the chain tests: the spider's own order numbers, the settings and
// the chain wanted.
type chainCase struct {
	name string
	own  []int
	kv   map[string]any
	want string
}

// planString shows an output plan spider side first: own middlewares as #i, runs of
// built-in filters as [Name Name].
func planString(plan []engine.OutputStage) string {
	var parts []string
	for _, st := range plan {
		if st.Own >= 0 {
			parts = append(parts, fmt.Sprintf("#%d", st.Own))
			continue
		}
		var names []string
		for _, f := range st.Filters {
			n := strings.TrimPrefix(fmt.Sprintf("%T", f), "*engine.")
			names = append(names, strings.TrimSuffix(n, "Middleware"))
		}
		parts = append(parts, "["+strings.Join(names, " ")+"]")
	}
	return strings.Join(parts, " ")
}

// TestOutputPlan: the spider's own output middlewares are placed among the built-in
// output filters (Depth 900, UrlLength 800, Referer 700, Offsite 500, Scheme 60) by order
// number; SPIDER_MIDDLEWARES moves or disables built-ins; on a tie the built-in is nearer
// the engine and own middlewares keep their declared order; the plan ends at the own
// middleware nearest the engine.
func TestOutputPlan(t *testing.T) {
	t.Parallel()
	for _, tc := range []chainCase{
		{"no own middleware", nil, nil, ""},
		{"default 543", []int{543}, nil, "[Depth URLLength Referer] #0"},
		{"below every built-in", []int{10}, nil, "[Depth URLLength Referer Offsite Scheme] #0"},
		{"above every built-in", []int{950}, nil, "#0"},
		{"two around built-ins", []int{950, 100}, nil, "#0 [Depth URLLength Referer Offsite] #1"},
		{"same order keeps declared order", []int{543, 543}, nil, "[Depth URLLength Referer] #1 #0"},
		{"tie with a built-in", []int{700}, nil, "[Depth URLLength] #0"},
		{"tie above the lowest", []int{543, 700}, nil, "[Depth URLLength] #1 [Referer] #0"},
		{"built-in moved", []int{543}, map[string]any{types.SpiderMiddlewares: map[string]any{"DepthMiddleware": 100}},
			"[URLLength Referer] #0"},
		{"built-in moved by a float", []int{543}, map[string]any{types.SpiderMiddlewares: map[string]any{"OffsiteMiddleware": 600.0}},
			"[Depth URLLength Referer Offsite] #0"},
		{"built-in disabled", []int{543}, map[string]any{types.SpiderMiddlewares: map[string]any{"RefererMiddleware": nil}},
			"[Depth URLLength] #0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := newEngine(t, &ownSpider{Spider: &enginetest.Spider{}, out: tc.own}, tc.kv)
			if got := planString(e.OutputPlan()); got != tc.want {
				t.Errorf("plan = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestOwnDownloaderMiddlewareGroups: the spider's own downloader middlewares are placed
// among the built-ins (Robots 100, Auth 300, Retry 550, MetaRefresh 580, Redirect 600,
// Cookies 700, Proxy 750, Cache 900) and those left adjacent run as one group, in chain
// order; a built-in at the same order stays nearer the engine.
func TestOwnDownloaderMiddlewareGroups(t *testing.T) {
	t.Parallel()
	off := map[string]any{}
	for _, n := range []string{"OffsiteMiddleware", "RobotsTxtMiddleware", "HttpAuthMiddleware", "RetryMiddleware",
		"MetaRefreshMiddleware", "RedirectMiddleware", "CookiesMiddleware", "HttpProxyMiddleware", "HttpCacheMiddleware"} {
		off[n] = nil
	}
	for _, tc := range []chainCase{
		{"none", nil, nil, "[]"},
		{"around the built-ins", []int{100, 543, 560, 950, 543}, nil, "[[0] [1 4] [2] [3]]"},
		{"retry moved below", []int{100, 543, 560, 950, 543}, map[string]any{types.DownloaderMiddlewares: map[string]any{"RetryMiddleware": 200}},
			"[[0] [1 4 2] [3]]"},
		{"every built-in disabled", []int{100, 543, 560, 950, 543}, map[string]any{types.DownloaderMiddlewares: off},
			"[[0 1 4 2 3]]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp := &ownSpider{Spider: &enginetest.Spider{}, dl: tc.own}
			newEngine(t, sp, tc.kv)
			if got := fmt.Sprint(sp.groups); got != tc.want {
				t.Errorf("groups = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestUnknownMiddlewareNameWarns: a *_MIDDLEWARES key that names no built-in is a warning
// naming the known ones.
func TestUnknownMiddlewareNameWarns(t *testing.T) {
	t.Parallel()
	for _, key := range []string{types.DownloaderMiddlewares, types.SpiderMiddlewares} {
		_, logs := newEngine(t, &enginetest.Spider{}, map[string]any{key: map[string]any{"NoSuchMiddleware": 10}})
		if !strings.Contains(logs.String(), key+`: unknown built-in middleware "NoSuchMiddleware"`) ||
			!strings.Contains(logs.String(), "OffsiteMiddleware") {
			t.Errorf("%s: the log lacks the warning:\n%s", key, logs)
		}
	}
}

// TestMiddlewareOrder: order numbers as JSON and JS give them; anything else is none.
func TestMiddlewareOrder(t *testing.T) {
	t.Parallel()
	var got []string
	for _, v := range []any{543.0, int64(560), 7, -5.9, math.NaN(), nil, "600", true} {
		o, ok := engine.MiddlewareOrder(v)
		got = append(got, fmt.Sprint(o, ok))
	}
	if s, want := strings.Join(got, ","), "543 true,560 true,7 true,-5 true,0 false,0 false,0 false,0 false"; s != want {
		t.Errorf("MiddlewareOrder = %s, want %s", s, want)
	}
}
