package codec_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/jscrawl/jscrawl/engine/frontier/codec"
	"github.com/jscrawl/jscrawl/types"
)

// TestEncodesExactly: a request EncodesExactly accepts comes back from the record equal
// field for field (from DecodeRequest and DecodeRequestString), and each kind of request
// it refuses would not.
func TestEncodesExactly(t *testing.T) {
	deep := types.Item{{Key: "v", Value: nil}}
	for range 1001 {
		deep = types.Item{{Key: "v", Value: []any{deep}}}
	}
	for _, tc := range []struct {
		name  string
		req   *types.Request
		exact bool
	}{
		{"bare", &types.Request{URL: "http://h/"}, true},
		{"follow", &types.Request{URL: "http://h/2", Headers: http.Header{"Referer": {"http://h/1"}}, Depth: 3}, true},
		{"everything", &types.Request{
			URL: "http://h/a?b=1", Method: "POST", Headers: http.Header{"X-A": {"1", "2"}, "X-None": {}},
			Body: []byte("body"), Callback: "cb", Errback: "eb", Priority: -3, DontFilter: true,
			Depth: 4, Retries: 2,
			CbKwargs: types.Item{{Key: "a", Value: 1.5}, {Key: "b", Value: []any{"x", int64(2), nil, true, []any{}}}},
			Meta: types.Item{{Key: "redirectUrls", Value: []string{"http://x/"}}, {Key: "e", Value: []string{}},
				{Key: "nested", Value: types.Item{{Key: "z", Value: false}}}, {Key: "i", Value: 7}, {Key: "n", Value: types.Item(nil)}},
			Cookies: []types.Cookie{{Name: "n", Value: "v", Domain: "h", Path: "/"}},
		}, true},
		{"empty meta", &types.Request{URL: "http://h/", Meta: types.Item{}}, true},
		{"empty body", &types.Request{URL: "http://h/", Body: []byte{}}, false},
		{"empty headers", &types.Request{URL: "http://h/", Headers: http.Header{}}, false},
		{"nil header values", &types.Request{URL: "http://h/", Headers: http.Header{"X": nil}}, false},
		{"empty cookies", &types.Request{URL: "http://h/", Cookies: []types.Cookie{}}, false},
		{"nil list", &types.Request{URL: "http://h/", Meta: types.Item{{Key: "l", Value: []any(nil)}}}, false},
		{"nil strings", &types.Request{URL: "http://h/", CbKwargs: types.Item{{Key: "l", Value: []string(nil)}}}, false},
		{"map", &types.Request{URL: "http://h/", Meta: types.Item{{Key: "m", Value: map[string]any{"a": 1.0}}}}, false},
		{"raw JSON", &types.Request{URL: "http://h/", Meta: types.Item{{Key: "j", Value: json.RawMessage(`{ "a" : 1 }`)}}}, false},
		{"int32 in a list", &types.Request{URL: "http://h/", Meta: types.Item{{Key: "l", Value: []any{int32(1)}}}}, false},
		{"too deep", &types.Request{URL: "http://h/", Meta: deep}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := codec.EncodesExactly(tc.req); got != tc.exact {
				t.Fatalf("EncodesExactly = %v, want %v", got, tc.exact)
			}
			rec := codec.EncodeRequest(nil, tc.req)
			out, err := codec.DecodeRequest(rec)
			if same := err == nil && reflect.DeepEqual(out, tc.req); same != tc.exact {
				t.Fatalf("round trip equal: %v (error %v), want %v:\n got %#v\nwant %#v", same, err, tc.exact, out, tc.req)
			}
			// From a string, sharing its bytes: the same request, and changing the record
			// buffer afterwards changes nothing (the string is a copy of it).
			str := string(rec)
			clear(rec)
			out2, err2 := codec.DecodeRequestString(str)
			if (err2 == nil) != (err == nil) || !reflect.DeepEqual(out2, out) {
				t.Fatalf("DecodeRequestString: %#v (error %v), DecodeRequest gave %#v", out2, err2, out)
			}
		})
	}
}

// followedLink is a request shaped like the bench spider's response.follow(href): a URL, the
// Referer header RefererMiddleware sets, a depth.
var followedLink = &types.Request{
	URL:     "http://127.0.0.1:18081/page/12345",
	Headers: http.Header{"Referer": {"http://127.0.0.1:18081/page/1234"}},
	Depth:   3,
}

// BenchmarkEncodeRequest: what the memory queue pays to keep a followed link while it
// waits (the check that it encodes exactly, the record, its string).
func BenchmarkEncodeRequest(b *testing.B) {
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		if !codec.EncodesExactly(followedLink) {
			b.Fatal("not exact")
		}
		buf = codec.EncodeRequest(buf[:0], followedLink)
		_ = string(buf)
	}
}

// BenchmarkDecodeRequest decodes a followed link's record: copying its strings
// (DecodeRequest, from a store's buffer) and pointing into it (DecodeRequestString, the
// memory queue's).
func BenchmarkDecodeRequest(b *testing.B) {
	rec := codec.EncodeRequest(nil, followedLink)
	str := string(rec)
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := codec.DecodeRequest(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("string", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := codec.DecodeRequestString(str); err != nil {
				b.Fatal(err)
			}
		}
	})
}
