package fingerprint_test

import (
	"bytes"
	"slices"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

// chromeStart writes, with x/net/http2's Framer and HPACK encoder, the start of an HTTP/2
// connection as Chrome opens it (the fingerprint
// "1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p" of Akamai's and tls.peet.ws's
// listings), plus the extras given.
func chromeStart(t *testing.T, priorities []http2.PriorityParam, padded, split bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&buf, nil)
	check := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	check(fr.WriteSettings(http2.Setting{ID: 1, Val: 65536}, http2.Setting{ID: 2, Val: 0},
		http2.Setting{ID: 4, Val: 6291456}, http2.Setting{ID: 6, Val: 262144}))
	check(fr.WriteWindowUpdate(0, 15663105))
	for i, p := range priorities {
		check(fr.WritePriority(uint32(3+2*i), p))
	}
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "GET"}, {":authority", "example.com"}, {":scheme", "https"}, {":path", "/"},
		{"sec-ch-ua", `"Chromium";v="156"`}, {"user-agent", "Mozilla/5.0"}, {"accept", "text/html"}} {
		check(enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}))
	}
	block := hb.Bytes()
	first := block
	if split {
		first = block[:5]
	}
	p := http2.HeadersFrameParam{StreamID: 1, BlockFragment: first, EndStream: true, EndHeaders: !split,
		Priority: http2.PriorityParam{StreamDep: 0, Exclusive: true, Weight: 255}}
	if padded {
		p.PadLength = 7
	}
	check(fr.WriteHeaders(p))
	if split {
		check(fr.WriteContinuation(1, true, block[5:]))
	}
	return buf.Bytes()
}

func TestParseHTTP2(t *testing.T) {
	t.Parallel()
	const chrome = "1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p"
	for _, tc := range []struct {
		name        string
		priorities  []http2.PriorityParam
		padded      bool
		split       bool
		fingerprint string
	}{
		{"chrome", nil, false, false, chrome},
		{"padded", nil, true, false, chrome},
		{"continuation", nil, false, true, chrome},
		// Firefox before 120 sent PRIORITY frames for its groups (Akamai's paper).
		{"priority frames", []http2.PriorityParam{{StreamDep: 0, Weight: 200}, {StreamDep: 0, Weight: 100}, {StreamDep: 3, Exclusive: true, Weight: 0}},
			false, false, "1:65536;2:0;4:6291456;6:262144|15663105|3:0:0:201,5:0:0:101,7:1:3:1|m,a,s,p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := chromeStart(t, tc.priorities, tc.padded, tc.split)
			h, err := fingerprint.ParseHTTP2(append(b, 0, 0, 0, 4, 1)) // trailing bytes of a next frame are ignored
			if err != nil {
				t.Fatal(err)
			}
			if got := h.Akamai(); got != tc.fingerprint {
				t.Errorf("Akamai = %s, want %s", got, tc.fingerprint)
			}
			if h.HeadersPriority == nil || !h.HeadersPriority.Exclusive || h.HeadersPriority.Weight != 255 || h.StreamID != 1 {
				t.Errorf("HeadersPriority = %+v, stream %d", h.HeadersPriority, h.StreamID)
			}
			if !slices.Equal(h.PseudoHeaderOrder(), []string{":method", ":authority", ":scheme", ":path"}) {
				t.Errorf("PseudoHeaderOrder = %v", h.PseudoHeaderOrder())
			}
			if len(h.Headers) != 3 || h.Headers[0] != [2]string{"sec-ch-ua", `"Chromium";v="156"`} || h.Headers[2][0] != "accept" {
				t.Errorf("Headers = %v", h.Headers)
			}
			for n := range len(b) - 1 {
				if _, err := fingerprint.ParseHTTP2(b[:n]); err != fingerprint.ErrIncomplete {
					t.Fatalf("first %d bytes: %v, want ErrIncomplete", n, err)
				}
			}
		})
	}
}
