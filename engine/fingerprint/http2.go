package fingerprint

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/http2/hpack"

	"github.com/jscrawl/jscrawl/engine/impersonate"
)

// ClientPreface is the connection preface an HTTP/2 client sends first (RFC 9113 §3.4).
const ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// HTTP/2 frame types and flags read by ParseHTTP2 (RFC 9113 §6).
const (
	frameHeaders      = 0x1
	framePriority     = 0x2
	frameSettings     = 0x4
	frameWindowUpdate = 0x8
	frameContinuation = 0x9

	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20
)

// HTTP2 is how a client opened an HTTP/2 connection, from the frames it sent up to its
// first request's header block: what Akamai's HTTP/2 fingerprint is made of, and the
// request's header fields in order.
type HTTP2 struct {
	// Settings are the first SETTINGS frame's parameters in order: [id, value].
	Settings [][2]uint32
	// WindowUpdate is the increment of the first connection-level WINDOW_UPDATE (0: none
	// before the first request).
	WindowUpdate uint32
	// Priorities are the PRIORITY frames sent before the first request, in order.
	Priorities []impersonate.Priority
	// StreamID is the stream of the first request.
	StreamID uint32
	// HeadersPriority is the priority of the first HEADERS frame (nil: no PRIORITY flag).
	HeadersPriority *impersonate.Priority
	// PseudoHeaders are the first request's pseudo-header fields in order, e.g.
	// [":method", "GET"], [":authority", "example.com"].
	PseudoHeaders [][2]string
	// Headers are the first request's other header fields in order, names in lower case
	// as HTTP/2 sends them.
	Headers [][2]string
}

// PseudoHeaderOrder returns the names of the pseudo-headers in the order sent.
func (h *HTTP2) PseudoHeaderOrder() []string {
	out := make([]string, len(h.PseudoHeaders))
	for i, f := range h.PseudoHeaders {
		out[i] = f[0]
	}
	return out
}

// Akamai is the HTTP/2 fingerprint in the format of Akamai's "Passive Fingerprinting of
// HTTP/2 Clients" (Black Hat EU 2017), SETTINGS|WINDOW_UPDATE|PRIORITY|PSEUDO_HEADER_ORDER,
// e.g. "1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p": the settings as id:value
// joined by ";", the window increment ("00": none), the PRIORITY frames as
// stream:exclusive:dependency:weight joined by "," ("0": none; the weight from 1 to 256)
// and the first letters of the pseudo-headers.
func (h *HTTP2) Akamai() string {
	var b strings.Builder
	for i, s := range h.Settings {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%d:%d", s[0], s[1])
	}
	b.WriteByte('|')
	if h.WindowUpdate == 0 {
		b.WriteString("00")
	} else {
		b.WriteString(strconv.FormatUint(uint64(h.WindowUpdate), 10))
	}
	b.WriteByte('|')
	if len(h.Priorities) == 0 {
		b.WriteByte('0')
	}
	for i, p := range h.Priorities {
		if i > 0 {
			b.WriteByte(',')
		}
		excl := 0
		if p.Exclusive {
			excl = 1
		}
		fmt.Fprintf(&b, "%d:%d:%d:%d", p.StreamID, excl, p.StreamDep, int(p.Weight)+1)
	}
	b.WriteByte('|')
	for i, f := range h.PseudoHeaders {
		if i > 0 {
			b.WriteByte(',')
		}
		if len(f[0]) > 1 {
			b.WriteByte(f[0][1])
		}
	}
	return b.String()
}

// ParseHTTP2 reads the frames a client sent on an HTTP/2 connection, from the preface
// (optional) up to the end of its first request's header block, which it decodes with
// HPACK. It returns ErrIncomplete when b ends first.
func ParseHTTP2(b []byte) (*HTTP2, error) {
	if bytes.HasPrefix(b, []byte(ClientPreface)) {
		b = b[len(ClientPreface):]
	} else if len(b) < len(ClientPreface) && bytes.HasPrefix([]byte(ClientPreface), b) {
		return nil, ErrIncomplete
	}
	h := &HTTP2{}
	seenSettings, seenWindow := false, false
	var block []byte
	for {
		if len(b) < 9 {
			return nil, ErrIncomplete
		}
		n := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		typ, flags := b[3], b[4]
		stream := binary.BigEndian.Uint32(b[5:]) & 0x7fffffff
		if len(b) < 9+n {
			return nil, ErrIncomplete
		}
		p := b[9 : 9+n]
		b = b[9+n:]
		switch {
		case typ == frameSettings && flags&flagAck == 0 && !seenSettings:
			if n%6 != 0 {
				return nil, fmt.Errorf("http2: SETTINGS of %d bytes", n)
			}
			seenSettings = true
			for i := 0; i < n; i += 6 {
				h.Settings = append(h.Settings, [2]uint32{uint32(binary.BigEndian.Uint16(p[i:])), binary.BigEndian.Uint32(p[i+2:])})
			}
		case typ == frameWindowUpdate && stream == 0 && !seenWindow && block == nil:
			if n != 4 {
				return nil, fmt.Errorf("http2: WINDOW_UPDATE of %d bytes", n)
			}
			seenWindow = true
			h.WindowUpdate = binary.BigEndian.Uint32(p) & 0x7fffffff
		case typ == framePriority && block == nil:
			if n != 5 {
				return nil, fmt.Errorf("http2: PRIORITY of %d bytes", n)
			}
			pr := priority(p)
			pr.StreamID = stream
			h.Priorities = append(h.Priorities, pr)
		case typ == frameHeaders && block == nil:
			h.StreamID = stream
			if flags&flagPadded != 0 {
				if len(p) < 1 || int(p[0]) > len(p)-1 {
					return nil, fmt.Errorf("http2: bad HEADERS padding")
				}
				p = p[1 : len(p)-int(p[0])]
			}
			if flags&flagPriority != 0 {
				if len(p) < 5 {
					return nil, fmt.Errorf("http2: short HEADERS priority")
				}
				pr := priority(p)
				h.HeadersPriority = &pr
				p = p[5:]
			}
			block = append([]byte{}, p...)
			if flags&flagEndHeaders != 0 {
				return h, h.decode(block)
			}
		case typ == frameContinuation && block != nil && stream == h.StreamID:
			block = append(block, p...)
			if flags&flagEndHeaders != 0 {
				return h, h.decode(block)
			}
		}
	}
}

func priority(p []byte) impersonate.Priority {
	dep := binary.BigEndian.Uint32(p)
	return impersonate.Priority{StreamDep: dep & 0x7fffffff, Exclusive: dep>>31 == 1, Weight: p[4]}
}

func (h *HTTP2) decode(block []byte) error {
	fields, err := hpack.NewDecoder(4096, nil).DecodeFull(block)
	if err != nil {
		return fmt.Errorf("http2: hpack: %w", err)
	}
	for _, f := range fields {
		if strings.HasPrefix(f.Name, ":") {
			h.PseudoHeaders = append(h.PseudoHeaders, [2]string{f.Name, f.Value})
		} else {
			h.Headers = append(h.Headers, [2]string{f.Name, f.Value})
		}
	}
	return nil
}
