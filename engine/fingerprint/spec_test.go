package fingerprint_test

import (
	"encoding/binary"
	"testing"

	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

// hello builds a ClientHello handshake message with the given lists (the extensions with
// empty data unless their field is given).
type hello struct {
	version uint16
	ciphers []uint16
	exts    []uint16
	sni     string
	alpn    [][]byte
	groups  []uint16
	formats []byte
	sigs    []uint16
	vers    []uint16
	shares  []uint16
}

func u16(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }

func vec16(b, body []byte) []byte { return append(u16(b, uint16(len(body))), body...) }

func (h hello) bytes() []byte {
	body := u16(nil, h.version)
	body = append(body, make([]byte, 32)...) // random
	body = append(body, 0)                   // session id
	var cs []byte
	for _, c := range h.ciphers {
		cs = u16(cs, c)
	}
	body = vec16(body, cs)
	body = append(body, 1, 0) // null compression
	var exts []byte
	for _, t := range h.exts {
		var d []byte
		switch t {
		case fingerprint.ExtServerName:
			name := append([]byte{0}, vec16(nil, []byte(h.sni))...)
			d = vec16(nil, name)
		case fingerprint.ExtALPN:
			var l []byte
			for _, p := range h.alpn {
				l = append(append(l, byte(len(p))), p...)
			}
			d = vec16(nil, l)
		case fingerprint.ExtSupportedGroups:
			d = vec16(nil, u16s(h.groups))
		case fingerprint.ExtECPointFormats:
			d = append([]byte{byte(len(h.formats))}, h.formats...)
		case fingerprint.ExtSignatureAlgorithms:
			d = vec16(nil, u16s(h.sigs))
		case fingerprint.ExtSupportedVersions:
			v := u16s(h.vers)
			d = append([]byte{byte(len(v))}, v...)
		case fingerprint.ExtKeyShare:
			var l []byte
			for _, g := range h.shares {
				l = vec16(u16(l, g), []byte{1, 2, 3})
			}
			d = vec16(nil, l)
		}
		exts = vec16(u16(exts, t), d)
	}
	body = vec16(body, exts)
	return append([]byte{1, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
}

func u16s(vs []uint16) []byte {
	var b []byte
	for _, v := range vs {
		b = u16(b, v)
	}
	return b
}

// specHello is the example of FoxIO-LLC/ja4 technical_details/JA4.md ("Cipher hash",
// "Extension hash", "Example" and "Raw Output"), with GREASE values added as Chrome sends
// them, which JA4 ignores.
var specHello = hello{
	version: 0x0303,
	ciphers: []uint16{0x3a3a, 0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035},
	exts:    []uint16{0x8a8a, 0x001b, 0x0000, 0x0033, 0x0010, 0x4469, 0x0017, 0x002d, 0x000d, 0x0005, 0x0023, 0x0012, 0x002b, 0xff01, 0x000b, 0x000a, 0x0015, 0xbaba},
	sni:     "example.com",
	alpn:    [][]byte{[]byte("h2"), []byte("http/1.1")},
	groups:  []uint16{0x2a2a, 0x001d, 0x0017, 0x0018},
	formats: []byte{0},
	sigs:    []uint16{0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601},
	vers:    []uint16{0x7a7a, 0x0304, 0x0303},
	shares:  []uint16{0x2a2a, 0x001d},
}

func TestJA4Spec(t *testing.T) {
	t.Parallel()
	h, err := fingerprint.ParseClientHello(specHello.bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, got, want string }{
		{"JA4", h.JA4(), "t13d1516h2_8daaf6152771_e5627efa2ab1"},
		{"JA4_r", h.JA4R(), "t13d1516h2_002f,0035,009c,009d,1301,1302,1303,c013,c014,c02b,c02c,c02f,c030,cca8,cca9_0005,000a,000b,000d,0012,0015,0017,001b,0023,002b,002d,0033,4469,ff01_0403,0804,0401,0503,0805,0501,0806,0601"},
		{"JA4_ro", h.JA4RO(), "t13d1516h2_1301,1302,1303,c02b,c02f,c02c,c030,cca9,cca8,c013,c014,009c,009d,002f,0035_001b,0000,0033,0010,4469,0017,002d,000d,0005,0023,0012,002b,ff01,000b,000a,0015_0403,0804,0401,0503,0805,0501,0806,0601"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}

// TestJA4Parts covers the rules of technical_details/JA4.md one at a time: the ALPN
// examples of "ALPN Extension Value", "If there are no signature algorithms … 6d807ffa2a79",
// no SNI ("i"), no ciphers or extensions ("000000000000") and the version without
// supported_versions.
func TestJA4Parts(t *testing.T) {
	t.Parallel()
	noSigs := specHello // signature_algorithms sent with an empty list
	noSigs.sigs = nil
	with := func(f func(*hello)) hello { h := specHello; f(&h); return h }
	for _, tc := range []struct {
		name string
		h    hello
		want string
	}{
		{"no signature algorithms", noSigs, "t13d1516h2_8daaf6152771_6d807ffa2a79"},
		{"alpn 0x20 0x61", with(func(h *hello) { h.alpn = [][]byte{{0x20, 0x61}} }), "t13d151621_8daaf6152771_e5627efa2ab1"},
		{"alpn 0x30 0xab", with(func(h *hello) { h.alpn = [][]byte{{0x30, 0xab}} }), "t13d15163b_8daaf6152771_e5627efa2ab1"},
		{"alpn 0x61 0x20", with(func(h *hello) { h.alpn = [][]byte{{0x61, 0x20}} }), "t13d151660_8daaf6152771_e5627efa2ab1"},
		{"alpn 0x30 0x31 0xab 0xcd", with(func(h *hello) { h.alpn = [][]byte{{0x30, 0x31, 0xab, 0xcd}} }), "t13d15163d_8daaf6152771_e5627efa2ab1"},
		{"alpn 0x30 0xab 0xcd 0x31", with(func(h *hello) { h.alpn = [][]byte{{0x30, 0xab, 0xcd, 0x31}} }), "t13d151601_8daaf6152771_e5627efa2ab1"},
		{"alpn http/1.1", with(func(h *hello) { h.alpn = [][]byte{[]byte("http/1.1")} }), "t13d1516h1_8daaf6152771_e5627efa2ab1"},
		{"no alpn", with(func(h *hello) {
			h.exts = []uint16{0x001b, 0x0000, 0x0033, 0x4469, 0x0017, 0x002d, 0x000d, 0x0005, 0x0023, 0x0012, 0x002b, 0xff01, 0x000b, 0x000a, 0x0015}
		}), "t13d151500_8daaf6152771_e5627efa2ab1"},
		{"no sni", with(func(h *hello) {
			h.exts = []uint16{0x001b, 0x0033, 0x0010, 0x4469, 0x0017, 0x002d, 0x000d, 0x0005, 0x0023, 0x0012, 0x002b, 0xff01, 0x000b, 0x000a, 0x0015}
		}), "t13i1515h2_8daaf6152771_e5627efa2ab1"},
		{"tls 1.2 without supported_versions", hello{version: 0x0303, ciphers: []uint16{0x002f}, exts: []uint16{0x0010}, alpn: [][]byte{[]byte("h2")}},
			"t12i0101h2_ba72b8082249_000000000000"}, // sha256("002f")
		{"no ciphers", hello{version: 0x0301}, "t10i000000_000000000000_000000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := fingerprint.ParseClientHello(tc.h.bytes())
			if err != nil {
				t.Fatal(err)
			}
			if got := h.JA4(); got != tc.want {
				t.Errorf("JA4 = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestClientHelloFields(t *testing.T) {
	t.Parallel()
	raw := specHello.bytes()
	// Split over three records, as a large ClientHello (post-quantum key shares) is.
	var recs []byte
	for _, part := range [][]byte{raw[:10], raw[10:50], raw[50:]} {
		recs = vec16(append(recs, 0x16, 0x03, 0x01), part)
	}
	h, err := fingerprint.ParseClientHello(recs)
	if err != nil {
		t.Fatal(err)
	}
	if h.ServerName != "example.com" || len(h.ALPN) != 2 || h.ALPN[1] != "http/1.1" || h.TLSVersion() != 0x0304 ||
		len(h.KeyShareGroups) != 2 || h.KeyShareGroups[1] != 0x001d || len(h.ECPointFormats) != 1 || len(h.SignatureAlgorithms) != 8 {
		t.Errorf("fields: %+v", h)
	}
	if !fingerprint.IsGREASE(h.CipherSuites[0]) || fingerprint.IsGREASE(h.CipherSuites[1]) {
		t.Error("GREASE cipher not told apart")
	}
	if _, err := fingerprint.ParseClientHello(recs[:len(recs)-1]); err != fingerprint.ErrIncomplete {
		t.Errorf("truncated: %v, want ErrIncomplete", err)
	}
}

func TestIsGREASE(t *testing.T) {
	t.Parallel()
	n := 0
	for v := range 0x10000 {
		if fingerprint.IsGREASE(uint16(v)) {
			n++
			if v&0xff != v>>8 || v&0x0f != 0x0a {
				t.Errorf("%#04x is not GREASE", v)
			}
		}
	}
	if n != 16 { // RFC 8701 §2: 0x0a0a, 0x1a1a, …, 0xfafa
		t.Errorf("%d GREASE values, want 16", n)
	}
}

// TestJA3 checks the JA3 string and hash: the example of github.com/salesforce/ja3
// README.md ("769,47-53-5-10-49161-49162-49171-49172-50-56-19-4,0-10-11,23-24-25,0"),
// rebuilt as a ClientHello with GREASE values added, which JA3 leaves out.
func TestJA3(t *testing.T) {
	t.Parallel()
	h, err := fingerprint.ParseClientHello(hello{
		version: 769,
		ciphers: []uint16{0x0a0a, 47, 53, 5, 10, 49161, 49162, 49171, 49172, 50, 56, 19, 4},
		exts:    []uint16{0x1a1a, 0, 10, 11},
		sni:     "example.com",
		groups:  []uint16{0x2a2a, 23, 24, 25},
		formats: []byte{0},
	}.bytes())
	if err != nil {
		t.Fatal(err)
	}
	const want = "769,47-53-5-10-49161-49162-49171-49172-50-56-19-4,0-10-11,23-24-25,0"
	if got := h.JA3(); got != want {
		t.Errorf("JA3 = %s, want %s", got, want)
	}
	if got := h.JA3Hash(); got != "ada70206e40642a3e4461f35503241d5" {
		t.Errorf("JA3Hash = %s", got)
	}
}
