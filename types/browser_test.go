package types_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

func TestBrowserOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		meta    any // meta.browser; absent when nil
		ok      bool
		want    string // the options as JSON
		wantErr string
	}{
		{"absent", nil, false, "", ""},
		{"false", false, false, "", ""},
		{"true", true, true, `{"waitUntil":"load","blockResources":["font","image","media"]}`, ""},
		{"options", types.Item{{Key: "waitUntil", Value: "networkidle"}, {Key: "waitFor", Value: "#x"}, {Key: "timeout", Value: int64(5)},
			{Key: "blockResources", Value: []any{"Script", "image"}}, {Key: "screenshot", Value: true}, {Key: "includePage", Value: true}}, true,
			`{"waitUntil":"networkidle","waitFor":"#x","timeout":5,"blockResources":["image","script"],"screenshot":true,"includePage":true}`, ""},
		{"decoded from JSON", map[string]any{"blockResources": []any{}, "timeout": 2.5}, true, `{"waitUntil":"load","timeout":2.5,"blockResources":[]}`, ""},
		{"bad waitUntil", types.Item{{Key: "waitUntil", Value: "idle"}}, false, "", "waitUntil"},
		{"unknown key", types.Item{{Key: "wait", Value: 1}}, false, "", `unknown key "wait"`},
		{"unknown resource type", types.Item{{Key: "blockResources", Value: []any{"pictures"}}}, false, "", "unknown resource type pictures"},
		{"negative timeout", types.Item{{Key: "timeout", Value: -1.0}}, false, "", "timeout"},
		{"not an object", "yes", false, "", "want true or an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &types.Request{URL: "http://example.com/"}
			if tc.meta != nil {
				r.Meta = types.Item{{Key: types.MetaBrowser, Value: tc.meta}}
			}
			opts, ok, err := r.Browser()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || ok != tc.ok {
				t.Fatalf("ok, err = %v, %v; want %v, nil", ok, err, tc.ok)
			}
			if !ok {
				return
			}
			b, _ := json.Marshal(opts)
			if string(b) != tc.want {
				t.Errorf("options = %s, want %s", b, tc.want)
			}
		})
	}
}

func TestBrowserFingerprint(t *testing.T) {
	fp := func(browser any) string {
		r := &types.Request{URL: "http://example.com/a"}
		if browser != nil {
			r.Meta = types.Item{{Key: types.MetaBrowser, Value: browser}}
		}
		return r.Fingerprint()
	}
	plain := fp(nil)
	if plain != fp(false) {
		t.Error("browser: false changes the fingerprint")
	}
	if fp(true) == plain {
		t.Error("a browser request has the fingerprint of the plain one")
	}
	if fp(true) != fp(types.Item{}) || fp(true) != fp(map[string]any{"waitUntil": "load"}) {
		t.Error("browser: true, {} and {waitUntil: load} are the same request but differ")
	}
	if fp(true) != fp(map[string]any{"blockResources": []any{"media", "image", "font"}}) {
		t.Error("browser: true and the default blockResources given in another order differ")
	}
	if fp(true) == fp(types.Item{{Key: "screenshot", Value: true}}) {
		t.Error("the screenshot option does not change the fingerprint")
	}
}
