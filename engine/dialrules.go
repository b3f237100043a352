package engine

import (
	"context"
	"fmt"
	"net"
	"strings"
)

// DialRules maps the "host:port" the http(s) download handler connects to onto the
// "ip:port" it dials instead; a key may also be a bare host name, and "*" matches any
// address. The request's URL, its TLS
// server name and its Host header stay the URL's: it is curl's --connect-to and
// Chromium's --host-resolver-rules. `jscrawl fingerprint show` sends its request to a
// loopback recorder with it, and tests send a crawl of a named host to a loopback site.
type DialRules map[string]string

// dialRulesKey carries DialRules in a context.
type dialRulesKey struct{}

// WithDialRules returns ctx under which the new connections of the downloads follow
// rules: give it to Engine.Download, or to Engine.Run for a whole crawl.
func WithDialRules(ctx context.Context, rules DialRules) context.Context {
	return context.WithValue(ctx, dialRulesKey{}, rules)
}

// dialTarget returns the address to dial for address under the DialRules of ctx.
func dialTarget(ctx context.Context, address string) string {
	rules, _ := ctx.Value(dialRulesKey{}).(DialRules)
	if len(rules) == 0 {
		return address
	}
	if to, ok := rules[address]; ok {
		return to
	}
	if to, ok := rules["*"]; ok {
		return to
	}
	if host, _, err := net.SplitHostPort(address); err == nil {
		if to, ok := rules[host]; ok {
			return to
		}
	}
	return address
}

// ParseDialRules reads DOWNLOAD_CONNECT_TO's rules, each "host:port=ip:port" or
// "host=ip:port" (any port of host); the address may be a host name too.
func ParseDialRules(rules []string) (DialRules, error) {
	out := DialRules{}
	for _, r := range rules {
		from, to, ok := strings.Cut(strings.TrimSpace(r), "=")
		if !ok || from == "" {
			return nil, fmt.Errorf("connect-to rule %q: want host:port=ip:port", r)
		}
		if _, _, err := net.SplitHostPort(to); err != nil {
			return nil, fmt.Errorf("connect-to rule %q: the address after = needs a port: %w", r, err)
		}
		out[strings.ToLower(from)] = to
	}
	return out, nil
}
