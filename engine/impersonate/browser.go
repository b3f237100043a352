package impersonate

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bogdanfinn/fhttp/http2"
	"github.com/bogdanfinn/tls-client/profiles"
	tls "github.com/bogdanfinn/utls"
)

// Browser is one HTTP_IMPERSONATE profile made ready for the wire: a built-in one
// (Lookup) or one read from a profile.json (FromProfile). Transport presents it. A
// Browser is immutable and safe for concurrent use.
type Browser struct {
	// Name is the built-in profile's versioned name ("chrome_133") or the profile.json's
	// path.
	Name string
	// UserAgent is the browser's User-Agent.
	UserAgent string
	// Headers are the browser's navigation headers in its order, names in lower case,
	// the User-Agent among them.
	Headers [][2]string

	order   []string // names in the order the browser sends them: Headers' and a few more
	client  profiles.ClientProfile
	shuffle bool // permute the TLS extensions on each connection, as Chrome does
}

// Order returns the header names in the order the browser sends them, in lower case:
// those of Headers with, where the browser puts them, referer and cookie.
func (b *Browser) Order() []string { return slices.Clone(b.order) }

// Names returns the built-in profile names, sorted: the unversioned ones (chrome,
// firefox, safari, safari_ios, opera) name the newest version of theirs.
func Names() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range aliases {
			if !yield(k) {
				return
			}
		}
		for k := range builtins {
			if !yield(k) {
				return
			}
		}
	})
}

// Lookup returns the built-in profile name names (case does not matter).
func Lookup(name string) (*Browser, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[key]; ok {
		key = a
	}
	bi, ok := builtins[key]
	if !ok {
		return nil, fmt.Errorf("unknown HTTP_IMPERSONATE profile %q (known: %s; or the path of a profile.json)", name, strings.Join(Names(), ", "))
	}
	b := &Browser{Name: key, Headers: slices.Clone(bi.headers), client: bi.client, shuffle: bi.shuffle}
	for _, kv := range b.Headers {
		if kv[0] == "user-agent" {
			b.UserAgent = kv[1]
		}
	}
	b.order = headerOrder(b.Headers)
	return b, nil
}

// Parse returns the profiles of an HTTP_IMPERSONATE value: comma-separated built-in
// names (Lookup) and profile.json paths (FromProfile; an entry ending in .json or holding
// a path separator is a path). "" gives none.
func Parse(setting string) ([]*Browser, error) {
	var out []*Browser
	for entry := range strings.SplitSeq(setting, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if strings.HasSuffix(strings.ToLower(entry), ".json") || strings.ContainsAny(entry, `/\`) {
			p, err := ReadProfile(entry)
			if err != nil {
				return nil, fmt.Errorf("HTTP_IMPERSONATE: %w", err)
			}
			b, err := FromProfile(entry, p)
			if err != nil {
				return nil, fmt.Errorf("HTTP_IMPERSONATE: %w", err)
			}
			out = append(out, b)
			continue
		}
		b, err := Lookup(entry)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// FromProfile turns a captured profile into a Browser named name. The ClientHello is
// parsed by uTLS's Fingerprinter into the spec of each new connection: GREASE values are
// regenerated, key shares (X25519MLKEM768 included) are made afresh for their groups, the
// ECH extension is sent as GREASE ECH with the captured cipher suite and lengths, ALPS
// (old and new code points) keeps its protocols, and an extension uTLS does not know is
// sent with the captured bytes as they are. A profile of a Chromium browser (its
// User-Agent names Chrome) has its extensions permuted on each connection, as Chromium
// does. The HTTP/2 part gives the SETTINGS frame and its order, the connection's
// WINDOW_UPDATE, the PRIORITY frames, the HEADERS frame's priority and the
// pseudo-header order.
func FromProfile(name string, p *Profile) (*Browser, error) {
	msg, err := hex.DecodeString(p.ClientHello)
	if err != nil {
		return nil, fmt.Errorf("%s: clientHello: %w", name, err)
	}
	if len(msg) < 4 || msg[0] != 1 || len(msg) > 0xffff {
		return nil, fmt.Errorf("%s: clientHello is not a TLS ClientHello message", name)
	}
	// The Fingerprinter reads a whole record: put the record header back.
	record := append([]byte{0x16, 0x03, 0x01, byte(len(msg) >> 8), byte(len(msg))}, msg...)
	f := &tls.Fingerprinter{AllowBluntMimicry: true, RealPSKResumption: true}
	if _, err := f.RawClientHello(record); err != nil {
		return nil, fmt.Errorf("%s: clientHello: %w", name, err)
	}
	id := tls.ClientHelloID{
		Client:  "jscrawl-profile",
		Version: "1",
		// A spec of its own for each connection: uTLS's extensions hold state.
		SpecFactory: func() (tls.ClientHelloSpec, error) {
			s, err := f.RawClientHello(record)
			if err != nil {
				return tls.ClientHelloSpec{}, err
			}
			return *s, nil
		},
	}
	h2 := p.HTTP2
	if h2.WindowUpdate == 0 {
		return nil, fmt.Errorf("%s: http2.windowUpdate is 0: the HTTP/2 library always sends a connection WINDOW_UPDATE, so a browser without one cannot be presented", name)
	}
	settings := map[http2.SettingID]uint32{}
	var settingsOrder []http2.SettingID
	for _, s := range h2.Settings {
		id := http2.SettingID(s[0])
		if _, dup := settings[id]; !dup {
			settingsOrder = append(settingsOrder, id)
		}
		settings[id] = s[1]
	}
	var prios []http2.Priority
	for _, pr := range h2.Priorities {
		prios = append(prios, http2.Priority{StreamID: pr.StreamID,
			PriorityParam: http2.PriorityParam{StreamDep: pr.StreamDep, Exclusive: pr.Exclusive, Weight: pr.Weight}})
	}
	var headerPrio *http2.PriorityParam
	if hp := h2.HeadersPriority; hp != nil {
		headerPrio = &http2.PriorityParam{StreamDep: hp.StreamDep, Exclusive: hp.Exclusive, Weight: hp.Weight}
	}
	pseudo := slices.Clone(h2.PseudoHeaderOrder)
	if len(pseudo) == 0 {
		pseudo = []string{":method", ":authority", ":scheme", ":path"}
	}
	for _, ph := range pseudo {
		if !slices.Contains([]string{":method", ":authority", ":scheme", ":path"}, ph) {
			return nil, fmt.Errorf("%s: http2.pseudoHeaderOrder: unknown pseudo-header %q", name, ph)
		}
	}
	b := &Browser{
		Name:      name,
		UserAgent: p.UserAgent,
		client:    profiles.NewClientProfile(id, settings, settingsOrder, pseudo, h2.WindowUpdate, prios, headerPrio),
		shuffle:   strings.Contains(p.UserAgent, "Chrome/"),
	}
	hasUA := false
	for _, kv := range p.Headers {
		k := strings.ToLower(kv[0])
		if strings.HasPrefix(k, ":") {
			continue
		}
		v := kv[1]
		if k == "user-agent" {
			hasUA = true
			if p.UserAgent != "" {
				v = p.UserAgent
			} else {
				b.UserAgent = v
			}
		}
		b.Headers = append(b.Headers, [2]string{k, v})
	}
	if !hasUA && b.UserAgent != "" {
		b.Headers = append([][2]string{{"user-agent", b.UserAgent}}, b.Headers...)
	}
	if b.UserAgent == "" {
		return nil, errors.New(name + ": no userAgent")
	}
	b.order = headerOrder(b.Headers)
	return b, nil
}

// headerOrder returns the names of headers with referer and cookie where browsers put
// them among a navigation's headers when a request has them: after accept-encoding in
// Firefox's order (the one that ends in te), else referer before accept-encoding and
// cookie after accept-language (Chrome's and Safari's).
func headerOrder(headers [][2]string) []string {
	names := make([]string, 0, len(headers)+2)
	idx := map[string]int{}
	for _, kv := range headers {
		idx[kv[0]] = len(names)
		names = append(names, kv[0])
	}
	insert := func(name string, at int) {
		if _, ok := idx[name]; ok {
			return
		}
		at = min(max(at, 0), len(names))
		names = slices.Insert(names, at, name)
		clear(idx)
		for i, n := range names {
			idx[n] = i
		}
	}
	ae, hasAE := idx["accept-encoding"]
	if _, firefox := idx["te"]; firefox && hasAE {
		insert("referer", ae+1)
		insert("cookie", idx["referer"]+1)
		return names
	}
	if hasAE {
		insert("referer", ae)
	} else {
		insert("referer", len(names))
	}
	if al, ok := idx["accept-language"]; ok {
		insert("cookie", al+1)
	} else {
		insert("cookie", len(names))
	}
	return names
}

// browserKey carries the Browser of a request in its context.
type browserKey struct{}

// WithBrowser returns ctx carrying b: Transport presents b for the requests made with it
// instead of its default.
func WithBrowser(ctx context.Context, b *Browser) context.Context {
	return context.WithValue(ctx, browserKey{}, b)
}

// BrowserOf returns the Browser ctx carries (WithBrowser), or nil.
func BrowserOf(ctx context.Context) *Browser {
	b, _ := ctx.Value(browserKey{}).(*Browser)
	return b
}
