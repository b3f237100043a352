package fingerprint

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// JA3 is the JA3 string of the ClientHello (salesforce/ja3):
// "SSLVersion,Ciphers,Extensions,EllipticCurves,EllipticCurvePointFormats", decimal
// values joined by "-", GREASE values left out.
func (h *ClientHello) JA3() string {
	dec := func(vs []uint16) string {
		var b strings.Builder
		for _, v := range vs {
			if IsGREASE(v) {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteString(strconv.Itoa(int(v)))
		}
		return b.String()
	}
	exts := make([]uint16, len(h.Extensions))
	for i, e := range h.Extensions {
		exts[i] = e.Type
	}
	formats := make([]uint16, len(h.ECPointFormats))
	for i, f := range h.ECPointFormats {
		formats[i] = uint16(f)
	}
	return fmt.Sprintf("%d,%s,%s,%s,%s", h.Version, dec(h.CipherSuites), dec(exts), dec(h.SupportedGroups), dec(formats))
}

// JA3Hash is the MD5 of JA3, in hex: the JA3 fingerprint.
func (h *ClientHello) JA3Hash() string { return JA3Hash(h.JA3()) }

// JA3Hash is the MD5 of a JA3 string, in hex.
func JA3Hash(ja3 string) string {
	sum := md5.Sum([]byte(ja3))
	return hex.EncodeToString(sum[:])
}

// JA4 is the JA4 fingerprint of the ClientHello over TCP (FoxIO's JA4 spec,
// technical_details/JA4.md), e.g. "t13d1516h2_8daaf6152771_e5627efa2ab1": protocol,
// version, SNI or not, cipher and extension counts and ALPN; the hash of the sorted
// cipher suites; the hash of the sorted extensions (without SNI and ALPN) and the
// signature algorithms in order.
func (h *ClientHello) JA4() string { return h.ja4(true, false) }

// JA4R is JA4 with the sorted lists in the clear instead of hashed (JA4_r).
func (h *ClientHello) JA4R() string { return h.ja4(true, true) }

// JA4O is JA4 over the lists in their original order, SNI and ALPN included (JA4_o).
func (h *ClientHello) JA4O() string { return h.ja4(false, false) }

// JA4RO is JA4O with the lists in the clear (JA4_ro).
func (h *ClientHello) JA4RO() string { return h.ja4(false, true) }

func (h *ClientHello) ja4(sorted, raw bool) string {
	var ciphers, exts []string
	for _, c := range h.CipherSuites {
		if !IsGREASE(c) {
			ciphers = append(ciphers, fmt.Sprintf("%04x", c))
		}
	}
	nExt := 0
	for _, e := range h.Extensions {
		if IsGREASE(e.Type) {
			continue
		}
		nExt++
		if sorted && (e.Type == ExtServerName || e.Type == ExtALPN) {
			continue
		}
		exts = append(exts, fmt.Sprintf("%04x", e.Type))
	}
	var sigs []string
	for _, s := range h.SignatureAlgorithms {
		if !IsGREASE(s) {
			sigs = append(sigs, fmt.Sprintf("%04x", s))
		}
	}
	if sorted {
		slices.Sort(ciphers)
		slices.Sort(exts)
	}
	sni := "i"
	if h.HasExtension(ExtServerName) {
		sni = "d"
	}
	a := fmt.Sprintf("t%s%s%02d%02d%s", ja4Version(h.TLSVersion()), sni, min(len(ciphers), 99), min(nExt, 99), ja4ALPN(h.ALPN))
	b := strings.Join(ciphers, ",")
	c := strings.Join(exts, ",")
	if len(sigs) > 0 {
		c += "_" + strings.Join(sigs, ",")
	}
	if raw {
		return a + "_" + b + "_" + c
	}
	hb, hc := ja4Hash(b), ja4Hash(c)
	if len(ciphers) == 0 {
		hb = "000000000000"
	}
	if len(exts) == 0 {
		hc = "000000000000"
	}
	return a + "_" + hb + "_" + hc
}

// ja4Hash is the first 12 hex digits of the SHA-256 of s.
func ja4Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

func ja4Version(v uint16) string {
	switch v {
	case 0x0304:
		return "13"
	case 0x0303:
		return "12"
	case 0x0302:
		return "11"
	case 0x0301:
		return "10"
	case 0x0300:
		return "s3"
	case 0x0002:
		return "s2"
	case 0xfeff:
		return "d1"
	case 0xfefd:
		return "d2"
	case 0xfefc:
		return "d3"
	}
	return "00"
}

// ja4ALPN is the first and last character of the first ALPN value ("00": none); when
// either is not an ASCII letter or digit, the first and last hex digits of the value.
func ja4ALPN(alpn []string) string {
	if len(alpn) == 0 || alpn[0] == "" {
		return "00"
	}
	p := alpn[0]
	first, last := p[0], p[len(p)-1]
	if !alnum(first) || !alnum(last) {
		x := hex.EncodeToString([]byte(p))
		return x[:1] + x[len(x)-1:]
	}
	return string([]byte{first, last})
}

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
