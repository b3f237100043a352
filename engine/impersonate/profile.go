// Package impersonate makes the http(s) download handler look like a browser on the wire
// (HTTP_IMPERSONATE): its TLS ClientHello, ALPN, HTTP/2 SETTINGS, window update, priorities,
// pseudo-header order and default headers in their order.
package impersonate

import (
	"encoding/json"
	"fmt"
	"os"
)

// Profile is what one browser presents on the wire. `jscrawl fingerprint capture` writes
// it as profile.json from a real Chromium; HTTP_IMPERSONATE=profile.json reads it back.
type Profile struct {
	// Name says where the profile comes from, e.g. "chromium-156.0.8078.73".
	Name string `json:"name"`
	// UserAgent is the browser's User-Agent, sent unless the spider sets its own.
	UserAgent string `json:"userAgent"`
	// ClientHello is the browser's TLS ClientHello handshake message, hex-encoded: from its
	// handshake type byte (0x01) on, without the TLS record header.
	ClientHello string `json:"clientHello"`
	// HTTP2 is how the browser opens an HTTP/2 connection.
	HTTP2 HTTP2 `json:"http2"`
	// Headers are the headers of a top-level navigation in the order the browser sends
	// them, names in lower case, pseudo-headers excluded.
	Headers [][2]string `json:"headers"`
}

// HTTP2 is the start of a browser's HTTP/2 connection.
type HTTP2 struct {
	// Settings are the SETTINGS frame's parameters in the order sent: [id, value].
	Settings [][2]uint32 `json:"settings"`
	// WindowUpdate is the connection-level WINDOW_UPDATE increment sent after SETTINGS
	// (0: none).
	WindowUpdate uint32 `json:"windowUpdate"`
	// Priorities are PRIORITY frames sent before the first request, in order.
	Priorities []Priority `json:"priorities,omitempty"`
	// PseudoHeaderOrder is the order of the request pseudo-headers, e.g.
	// [":method", ":authority", ":scheme", ":path"].
	PseudoHeaderOrder []string `json:"pseudoHeaderOrder"`
	// HeadersPriority is the priority the first HEADERS frame carries, if any.
	HeadersPriority *Priority `json:"headersPriority,omitempty"`
}

// Priority is an HTTP/2 stream priority (RFC 9113 §5.3.2 and §6.3).
type Priority struct {
	StreamID  uint32 `json:"streamId,omitempty"`
	StreamDep uint32 `json:"streamDep"`
	Exclusive bool   `json:"exclusive"`
	Weight    uint8  `json:"weight"` // as on the wire: the weight minus one
}

// ReadProfile reads a profile.json.
func ReadProfile(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Profile
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.ClientHello == "" {
		return nil, fmt.Errorf("%s: not a profile: no clientHello", path)
	}
	return &p, nil
}

// WriteProfile writes p as an indented profile.json.
func WriteProfile(path string, p *Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
