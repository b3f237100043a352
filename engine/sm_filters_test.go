package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

func TestOutputFilters(t *testing.T) {
	t.Parallel()
	parent := &types.Response{URL: "http://a/", Request: &types.Request{URL: "http://a/", Depth: 2}}
	long := "http://a/" + strings.Repeat("x", 100)
	for _, tc := range []struct {
		name      string
		filter    func(s *types.Settings, st *engine.Stats) engine.SpiderOutputFilter
		kv        map[string]any
		parent    *types.Response
		url       string
		keep      bool
		depth     int
		priority  int
		statKey   string
		statValue int64
	}{
		{"depth +1", depthMW, nil, parent, "http://a/x", true, 3, 0, "request_depth_max", 3},
		{"start request keeps depth", depthMW, nil, nil, "http://a/x", true, 0, 0, "request_depth_max", 0},
		{"depth limit", depthMW, map[string]any{types.DepthLimit: 2}, parent, "http://a/x", false, 3, 0, "request_depth_max", 0},
		{"depth priority", depthMW, map[string]any{types.DepthPriority: 2}, parent, "http://a/x", true, 3, -6, "", 0},
		{"depth stats verbose", depthMW, map[string]any{types.DepthStatsVerbose: true}, parent, "http://a/x", true, 3, 0, "request_depth_count/3", 1},
		{"url length ok", urlLenMW, map[string]any{types.URLLengthLimit: 200}, parent, long, true, 0, 0, "urllength/request_ignored_count", 0},
		{"url too long", urlLenMW, map[string]any{types.URLLengthLimit: 50}, parent, long, false, 0, 0, "urllength/request_ignored_count", 1},
		{"scheme ok", schemeMW, nil, nil, "https://a/", true, 0, 0, "", 0},
		{"scheme refused", schemeMW, nil, nil, "file:///etc/passwd", false, 0, 0, "", 0},
		{"scheme added", schemeMW, map[string]any{types.DownloadSchemes: "http,https,file"}, nil, "file:///etc/passwd", true, 0, 0, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := engine.NewStats()
			f := tc.filter(settings(t, tc.kv), st)
			r := &types.Request{URL: tc.url}
			out, keep := f.ProcessSpiderOutput(context.Background(), tc.parent, types.Output{Request: r})
			if keep != tc.keep {
				t.Fatalf("keep = %v, want %v", keep, tc.keep)
			}
			if keep && (out.Request.Depth != tc.depth || out.Request.Priority != tc.priority) {
				t.Errorf("depth %d priority %d, want %d %d", out.Request.Depth, out.Request.Priority, tc.depth, tc.priority)
			}
			if tc.statKey != "" {
				if v, _ := st.Get(tc.statKey).(int64); v != tc.statValue {
					t.Errorf("%s = %d, want %d", tc.statKey, v, tc.statValue)
				}
			}
		})
	}
}

func depthMW(s *types.Settings, st *engine.Stats) engine.SpiderOutputFilter {
	return engine.NewDepthMiddleware(s, st, discard())
}

func urlLenMW(s *types.Settings, st *engine.Stats) engine.SpiderOutputFilter {
	return engine.NewURLLengthMiddleware(s, st, discard())
}

func schemeMW(s *types.Settings, _ *engine.Stats) engine.SpiderOutputFilter {
	return engine.NewSchemeMiddleware(s, discard())
}
