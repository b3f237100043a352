package fingerprint_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

// FuzzParseClientHello: any bytes a client sends first parse or fail without a panic, and
// a ClientHello that parses has fingerprints.
func FuzzParseClientHello(f *testing.F) {
	b, err := os.ReadFile("testdata/foxio_ja4.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []foxioCase
	if err := json.Unmarshal(b, &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		raw, _ := hex.DecodeString(c.ClientHello)
		f.Add(raw)
	}
	f.Add(specHello.bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := fingerprint.ParseClientHello(b)
		if err != nil {
			return
		}
		if h.JA4() == "" || h.JA3Hash() == "" || h.JA4RO() == "" {
			t.Error("no fingerprint")
		}
	})
}

// FuzzParseHTTP2: any bytes after the handshake parse or fail without a panic.
func FuzzParseHTTP2(f *testing.F) {
	f.Add([]byte(fingerprint.ClientPreface))
	f.Add([]byte(fingerprint.ClientPreface + "\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00\x00"))
	f.Add([]byte("\x00\x00\x05\x01\x2d\x00\x00\x00\x01\x03\x82\x84\x86\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := fingerprint.ParseHTTP2(b); err == nil {
			_ = h.Akamai()
		}
	})
}
