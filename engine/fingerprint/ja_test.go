package fingerprint_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

// foxioCase is one ClientHello of the FoxIO-LLC/ja4 test captures with the JA4 outputs
// its Python implementation's test expects. testdata/foxio_ja4.json holds the
// ClientHellos extracted from the pcap files (pcap/*) of github.com/FoxIO-LLC/ja4 and the
// JA4.1, JA4_r.1, JA4_o.1 and JA4_ro.1 values of the same connection (by source port) in
// python/test/testdata/<pcap>.json, which python/test/test_ja4_output.py compares ja4.py's
// output to.
type foxioCase struct {
	File        string `json:"file"`
	Pcap        string `json:"pcap"`
	SrcPort     string `json:"srcport"`
	Domain      string `json:"domain"`
	JA4         string `json:"ja4"`
	JA4R        string `json:"ja4_r"`
	JA4O        string `json:"ja4_o"`
	JA4RO       string `json:"ja4_ro"`
	ClientHello string `json:"clientHello"`
}

func TestJA4FoxIOCaptures(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/foxio_ja4.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []foxioCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 8 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Pcap+":"+tc.SrcPort, func(t *testing.T) {
			t.Parallel()
			raw, err := hex.DecodeString(tc.ClientHello)
			if err != nil {
				t.Fatal(err)
			}
			h, err := fingerprint.ParseClientHello(raw)
			if err != nil {
				t.Fatal(err)
			}
			if h.ServerName != tc.Domain {
				t.Errorf("ServerName = %q, want %q", h.ServerName, tc.Domain)
			}
			for _, c := range []struct{ name, got, want string }{
				{"JA4", h.JA4(), tc.JA4},
				{"JA4_r", h.JA4R(), tc.JA4R},
				{"JA4_o", h.JA4O(), tc.JA4O},
				{"JA4_ro", h.JA4RO(), tc.JA4RO},
			} {
				if c.got != c.want {
					t.Errorf("%s = %s, want %s (%s)", c.name, c.got, c.want, tc.File)
				}
			}
			// The same bytes inside a TLS record parse the same.
			rec := append([]byte{0x16, 0x03, 0x01, byte(len(raw) >> 8), byte(len(raw))}, raw...)
			h2, err := fingerprint.ParseClientHello(rec)
			if err != nil || h2.JA4() != tc.JA4 || !slices.Equal(h2.Raw, raw) {
				t.Errorf("in a record: %v %v", h2, err)
			}
		})
	}
}
