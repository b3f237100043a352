package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/jscrawl/jscrawl/engine/proxypool"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// frontierEnv is the environment variable of --frontier (crawlFlags).
const frontierEnv = "JSCRAWL_FRONTIER"

// secretLog is the last line of defence between the crawl's log and the secrets the
// operator gave (types.SecretSetting): a slog.Handler that masks, in every record's
// message and text attributes before inner sees them, the credentials of any URL
// (types.MaskURLsIn) and every occurrence of a secret setting's value (as it is, and as the
// Basic Authorization value of HTTP_USER and HTTP_PASS; the credential headers'
// values of DEFAULT_REQUEST_HEADERS). The code that logs is meant not to
// log secrets in the first place; this catches what it misses. Safe for concurrent use;
// setSecrets may be called while records are handled.
type secretLog struct {
	inner   slog.Handler
	secrets *atomic.Pointer[[]string]
}

// newSecretLog returns a secretLog in front of inner, with no secret values yet.
func newSecretLog(inner slog.Handler) *secretLog {
	return &secretLog{inner: inner, secrets: new(atomic.Pointer[[]string])}
}

// minSecretLen is the length below which a secret's value is not searched for in the
// log: "1" or "ab" would mask unrelated text, and are not worth hiding.
const minSecretLen = 4

// setSecrets takes the secret values to mask from settings (call it again once they
// change: after the spider's customSettings).
func (h *secretLog) setSecrets(settings *types.Settings) {
	var out []string
	add := func(s string) {
		if len(s) >= minSecretLen && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, k := range settings.Keys() {
		if !types.SecretSetting(k) {
			continue
		}
		if strings.EqualFold(k, types.ProxyList) {
			// The proxies' URLs, read from the file when the list names one.
			urls, _ := proxypool.Parse(settings.StringList(types.ProxyList))
			for _, u := range urls {
				addURLSecrets(u.String(), add)
			}
			continue
		}
		v := settings.Get(k)
		if m, ok := v.(map[string]any); ok {
			for name, hv := range m {
				switch {
				case strings.EqualFold(k, types.Feeds):
					addURLSecrets(name, add)
				case strings.EqualFold(k, types.DefaultRequestHeaders) && types.SecretHeader(name):
					if s, ok := hv.(string); ok {
						_, cred, hasScheme := strings.Cut(strings.TrimSpace(s), " ")
						if !hasScheme {
							cred = s
						}
						add(cred)
					}
				}
			}
			continue
		}
		s, ok := v.(string)
		if !ok {
			if v == nil {
				continue
			}
			s = fmt.Sprint(v)
		}
		if strings.Contains(s, "://") {
			addURLSecrets(s, add)
			continue
		}
		add(s)
	}
	if user, pass := settings.String(types.HTTPUser), settings.String(types.HTTPPass); pass != "" {
		add(base64.StdEncoding.EncodeToString([]byte(user + ":" + pass)))
	}
	// Longest first: a secret that contains another is masked whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	h.secrets.Store(&out)
}

// addURLSecrets adds the password (or lone user name) of u's user info and its
// credential-looking query values, as they are written and decoded.
func addURLSecrets(u string, add func(string)) {
	masked := types.MaskURL(u)
	if masked == u {
		return
	}
	// What MaskURL replaced is secret: find it by comparing the two forms around each mask.
	for rest, m := u, masked; m != ""; {
		i := strings.Index(m, types.Mask)
		if i < 0 || i > len(rest) {
			return
		}
		rest, m = rest[i:], m[i+len(types.Mask):]
		end := len(rest)
		if m != "" {
			if j := strings.IndexByte(rest, m[0]); j >= 0 {
				end = j
			}
		}
		add(rest[:end])
		if dec, err := url.PathUnescape(rest[:end]); err == nil {
			add(dec)
		}
		rest = rest[end:]
	}
}

// mask returns s with the secrets masked.
func (h *secretLog) mask(s string) string {
	s = types.MaskURLsIn(s)
	if p := h.secrets.Load(); p != nil {
		for _, v := range *p {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, types.Mask)
			}
		}
	}
	return s
}

// maskAttr returns a with the secrets of its text masked (in groups too).
func (h *secretLog) maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.mask(v.String()))
	case slog.KindGroup:
		as := v.Group()
		out := make([]any, len(as))
		for i, g := range as {
			out[i] = h.maskAttr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.mask(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, h.mask(x.String()))
		case map[string]any, []any:
			return slog.Any(a.Key, h.maskValue(x))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// maskValue returns a JSON-like value (the stats dump) with the secrets of its text
// masked, keys included; other values are kept.
func (h *secretLog) maskValue(v any) any {
	switch x := v.(type) {
	case string:
		return h.mask(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[h.mask(k)] = h.maskValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = h.maskValue(e)
		}
		return out
	}
	return v
}

// Enabled implements slog.Handler.
func (h *secretLog) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle implements slog.Handler: it passes on r with its secrets masked.
func (h *secretLog) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.mask(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.maskAttr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h *secretLog) WithAttrs(as []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = h.maskAttr(a)
	}
	return &secretLog{inner: h.inner.WithAttrs(masked), secrets: h.secrets}
}

// WithGroup implements slog.Handler.
func (h *secretLog) WithGroup(name string) slog.Handler {
	return &secretLog{inner: h.inner.WithGroup(name), secrets: h.secrets}
}

// Interface guards
var _ slog.Handler = (*secretLog)(nil)

// warnVisibleFrontier warns when --frontier was given on the command line with a password,
// which the process list (ps) shows to every user of the host: JSCRAWL_FRONTIER keeps it
// out.
func warnVisibleFrontier(c *cli.Context, logger *slog.Logger) {
	if !c.IsSet("frontier") {
		return
	}
	u := c.String("frontier")
	if os.Getenv(frontierEnv) == u || types.MaskURL(u) == u {
		return
	}
	logger.Warn(fmt.Sprintf("--frontier %s: the process list shows its password to every user of this host; give the URL in %s instead", types.MaskURL(u), frontierEnv))
}
