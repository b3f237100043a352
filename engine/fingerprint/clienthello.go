// Package fingerprint computes what a server sees of a client: the fields of its TLS
// ClientHello with their JA3 and JA4 hashes, the start of its HTTP/2 connection in
// Akamai's fingerprint format, and the order of its headers. Its Server records them for
// each connection it accepts. `jscrawl fingerprint capture` learns an impersonate.Profile
// from Chromium with it, `jscrawl fingerprint show` prints what a site would see of
// jscrawl's own requests, and enginetest.GuardedSite refuses the clients that are not a
// browser with it.
package fingerprint

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// TLS extension types the ClientHello fields are read from (IANA "TLS ExtensionType
// Values").
const (
	ExtServerName          uint16 = 0x0000
	ExtSupportedGroups     uint16 = 0x000a
	ExtECPointFormats      uint16 = 0x000b
	ExtSignatureAlgorithms uint16 = 0x000d
	ExtALPN                uint16 = 0x0010
	ExtSupportedVersions   uint16 = 0x002b
	ExtKeyShare            uint16 = 0x0033
)

// ErrIncomplete is returned when the bytes end before the ClientHello, or the HTTP/2
// frames up to the first request, do.
var ErrIncomplete = errors.New("incomplete: the bytes end too soon")

// Extension is one ClientHello extension as sent.
type Extension struct {
	Type uint16
	Data []byte
}

// ClientHello is a parsed TLS ClientHello (RFC 8446 §4.1.2). The lists keep the order on
// the wire and include GREASE values (RFC 8701); IsGREASE tells them apart.
type ClientHello struct {
	// Raw is the handshake message, from its type byte (0x01) on, without record headers.
	Raw []byte
	// Version is legacy_version (0x0303 for TLS 1.2 and 1.3).
	Version            uint16
	Random             []byte
	SessionID          []byte
	CipherSuites       []uint16
	CompressionMethods []byte
	Extensions         []Extension
	// ServerName is the host name of the server_name extension ("": none).
	ServerName string
	// ALPN is the application_layer_protocol_negotiation list, e.g. ["h2", "http/1.1"].
	ALPN                []string
	SupportedVersions   []uint16
	SupportedGroups     []uint16
	ECPointFormats      []uint8
	SignatureAlgorithms []uint16
	// KeyShareGroups are the groups of the key_share extension's entries, in order.
	KeyShareGroups []uint16
}

// IsGREASE reports whether v is one of the GREASE values of RFC 8701 (0x0a0a, 0x1a1a, …
// 0xfafa), which clients send among cipher suites, extensions, groups and versions to keep
// servers tolerant of unknown values.
func IsGREASE(v uint16) bool {
	return v&0x0f0f == 0x0a0a && v>>8 == v&0xff
}

// HasExtension reports whether the ClientHello carries an extension of type t.
func (h *ClientHello) HasExtension(t uint16) bool {
	for _, e := range h.Extensions {
		if e.Type == t {
			return true
		}
	}
	return false
}

// TLSVersion is the highest version the client offers: the largest non-GREASE value of
// supported_versions, or Version without that extension.
func (h *ClientHello) TLSVersion() uint16 {
	var v uint16
	for _, s := range h.SupportedVersions {
		if !IsGREASE(s) && s > v {
			v = s
		}
	}
	if v == 0 {
		return h.Version
	}
	return v
}

// HandshakeMessage returns the ClientHello handshake message at the start of b, which
// holds either TLS records (content type 22, possibly several: a ClientHello may span
// records) or the bare handshake message. It returns ErrIncomplete when b ends first.
func HandshakeMessage(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, ErrIncomplete
	}
	if b[0] == 0x01 { // a bare handshake message
		if len(b) < 4 {
			return nil, ErrIncomplete
		}
		n := 4 + (int(b[1])<<16 | int(b[2])<<8 | int(b[3]))
		if len(b) < n {
			return nil, ErrIncomplete
		}
		return b[:n], nil
	}
	if b[0] != 0x16 {
		return nil, fmt.Errorf("not a TLS handshake record (content type %d)", b[0])
	}
	var msg []byte
	for off := 0; ; {
		if len(b)-off < 5 {
			return nil, ErrIncomplete
		}
		if b[off] != 0x16 {
			return nil, fmt.Errorf("record of content type %d inside the ClientHello", b[off])
		}
		l := int(binary.BigEndian.Uint16(b[off+3:]))
		if len(b)-off-5 < l {
			return nil, ErrIncomplete
		}
		msg = append(msg, b[off+5:off+5+l]...)
		off += 5 + l
		if len(msg) >= 4 {
			if msg[0] != 0x01 {
				return nil, fmt.Errorf("handshake message of type %d, not a ClientHello", msg[0])
			}
			n := 4 + (int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3]))
			if len(msg) >= n {
				return msg[:n], nil
			}
		}
	}
}

// ParseClientHello parses a ClientHello from TLS records or a bare handshake message (see
// HandshakeMessage).
func ParseClientHello(b []byte) (*ClientHello, error) {
	msg, err := HandshakeMessage(b)
	if err != nil {
		return nil, err
	}
	h := &ClientHello{Raw: msg}
	r := reader(msg[4:])
	var ok bool
	var ciphers, exts reader
	if h.Version, ok = r.u16(); !ok {
		return nil, errMalformed("version")
	}
	if h.Random, ok = r.bytes(32); !ok {
		return nil, errMalformed("random")
	}
	if h.SessionID, ok = r.vec8(); !ok {
		return nil, errMalformed("session id")
	}
	if ciphers, ok = r.vec16(); !ok || len(ciphers)%2 != 0 {
		return nil, errMalformed("cipher suites")
	}
	for len(ciphers) > 0 {
		c, _ := ciphers.u16()
		h.CipherSuites = append(h.CipherSuites, c)
	}
	if h.CompressionMethods, ok = r.vec8(); !ok {
		return nil, errMalformed("compression methods")
	}
	if len(r) == 0 { // no extensions (SSL 3.0 style)
		return h, nil
	}
	if exts, ok = r.vec16(); !ok {
		return nil, errMalformed("extensions")
	}
	for len(exts) > 0 {
		t, ok1 := exts.u16()
		d, ok2 := exts.vec16()
		if !ok1 || !ok2 {
			return nil, errMalformed("extension")
		}
		h.Extensions = append(h.Extensions, Extension{Type: t, Data: d})
		if err := h.parseExtension(t, d); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (h *ClientHello) parseExtension(t uint16, d reader) error {
	switch t {
	case ExtServerName:
		list, ok := d.vec16()
		for ok && len(list) > 0 {
			typ, ok1 := list.u8()
			name, ok2 := list.vec16()
			if !ok1 || !ok2 {
				return errMalformed("server_name")
			}
			if typ == 0 {
				h.ServerName = string(name)
			}
		}
	case ExtALPN:
		list, ok := d.vec16()
		for ok && len(list) > 0 {
			p, ok1 := list.vec8()
			if !ok1 {
				return errMalformed("alpn")
			}
			h.ALPN = append(h.ALPN, string(p))
		}
	case ExtSupportedVersions:
		list, ok := d.vec8()
		h.SupportedVersions = u16s(list, ok)
	case ExtSupportedGroups:
		list, ok := d.vec16()
		h.SupportedGroups = u16s(list, ok)
	case ExtECPointFormats:
		if list, ok := d.vec8(); ok {
			h.ECPointFormats = append([]byte{}, list...)
		}
	case ExtSignatureAlgorithms:
		list, ok := d.vec16()
		h.SignatureAlgorithms = u16s(list, ok)
	case ExtKeyShare:
		list, ok := d.vec16()
		for ok && len(list) > 0 {
			g, ok1 := list.u16()
			_, ok2 := list.vec16()
			if !ok1 || !ok2 {
				return errMalformed("key_share")
			}
			h.KeyShareGroups = append(h.KeyShareGroups, g)
		}
	}
	return nil
}

func errMalformed(what string) error { return fmt.Errorf("malformed ClientHello: %s", what) }

func u16s(r reader, ok bool) []uint16 {
	var out []uint16
	for ok && len(r) >= 2 {
		v, _ := r.u16()
		out = append(out, v)
	}
	return out
}

// reader consumes big-endian TLS vectors.
type reader []byte

func (r *reader) bytes(n int) ([]byte, bool) {
	if len(*r) < n {
		return nil, false
	}
	b := (*r)[:n]
	*r = (*r)[n:]
	return b, true
}

func (r *reader) u8() (uint8, bool) {
	b, ok := r.bytes(1)
	if !ok {
		return 0, false
	}
	return b[0], true
}

func (r *reader) u16() (uint16, bool) {
	b, ok := r.bytes(2)
	if !ok {
		return 0, false
	}
	return binary.BigEndian.Uint16(b), true
}

func (r *reader) vec8() (reader, bool) {
	n, ok := r.u8()
	if !ok {
		return nil, false
	}
	return r.bytes(int(n))
}

func (r *reader) vec16() (reader, bool) {
	n, ok := r.u16()
	if !ok {
		return nil, false
	}
	return r.bytes(int(n))
}
