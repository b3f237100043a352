// Package robotstxt parses robots.txt files and answers whether a user agent may fetch a
// URL, following RFC 9309 and the behaviour of Google's reference parser, with the leniency
// of Scrapy's parser, protego:
//
//   - Lines are "key: value" (a missing colon is forgiven when the key is a known directive:
//     "user agent foobot"), comments start at '#', blank lines are ignored, keys are
//     case-insensitive and common misspellings of Disallow (Dissallow, Disalow, ...) count.
//     Rules before the first User-agent line and unknown or malformed lines are skipped; the
//     rest of the file still applies.
//   - A group is one or more User-agent lines followed by rules; any other line ends the
//     list of user agents. Groups naming the same user agent are merged.
//   - Paths are compared after normalising percent-encoding on both sides (RFC 9309 2.2.2):
//     %3c equals %3C and '<', %7E equals '~', raw UTF-8 equals its encoding.
//   - '*' matches any characters and a '$' at the end of a pattern anchors it; elsewhere '$'
//     is a literal character. The longest matching pattern (as written, wildcards counted
//     as characters) wins, and Allow wins a tie. Allowing ".../index.html" also allows
//     ".../".
//   - A user agent finds the group whose name appears in it, case-insensitively; the longest
//     such name wins, then "*" (see [Robots.Group]).
//   - Crawl-delay, Request-rate and Sitemap are read.
package robotstxt

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// Robots is a parsed robots.txt. The zero value allows everything. Safe for concurrent use
// once parsed.
type Robots struct {
	groups      []*Group          // in order of first appearance
	byAgent     map[string]*Group // lower-cased user agent → its (merged) group
	sitemaps    []string
	disallowAll bool
}

// Group is the rules, Crawl-delay and Request-rate that apply to one user agent.
type Group struct {
	agent       string // lower-cased, as in the User-agent line; "*" for the default group
	rules       []rule
	crawlDelay  time.Duration
	requestRate *RequestRate
}

// RequestRate is a Request-rate directive: Requests requests per Seconds seconds, only
// between Start and End (UTC, minutes since midnight) when HasWindow.
type RequestRate struct {
	Requests   int
	Seconds    int
	HasWindow  bool
	Start, End int // minutes since midnight, UTC
}

// Delay returns the interval between two requests that the rate asks for (0 when the rate
// is not a positive one).
func (r RequestRate) Delay() time.Duration {
	if r.Requests <= 0 || r.Seconds <= 0 {
		return 0
	}
	return time.Duration(float64(r.Seconds) / float64(r.Requests) * float64(time.Second))
}

// rule is one Allow or Disallow pattern, normalised.
type rule struct {
	allow    bool
	pattern  string // normalised; '*' is a wildcard
	anchored bool   // the pattern ended with '$'
	length   int    // priority: the normalised pattern's length with its '$'
}

// AllowAll returns rules that allow everything (a missing robots.txt).
func AllowAll() *Robots { return &Robots{} }

// DisallowAll returns rules that disallow everything (a robots.txt that answered 5xx).
func DisallowAll() *Robots { return &Robots{disallowAll: true} }

// Directive sets, as protego and Google's parser accept them (lower case).
var (
	userAgentKeys  = set("user-agent", "useragent", "user agent")
	allowKeys      = set("allow")
	disallowKeys   = set("disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw")
	sitemapKeys    = set("sitemap", "sitemaps", "site-map")
	crawlDelayKeys = set("crawl-delay", "crawl delay")
	requestRateKey = set("request-rate", "request rate")
	knownKeys      = merge(userAgentKeys, allowKeys, disallowKeys, sitemapKeys, crawlDelayKeys, requestRateKey, set("host"))
)

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

func merge(sets ...map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		for k := range s {
			m[k] = true
		}
	}
	return m
}

// Parse parses the body of a robots.txt. It never fails: what it cannot read it skips.
func Parse(body []byte) *Robots {
	r := &Robots{byAgent: map[string]*Group{}}
	var current []*Group // the groups the rules being read apply to
	prevKey := ""        // the key of the previous non-blank line
	// A UTF-8 byte order mark, which Google's parser skips too.
	body = bytes.TrimPrefix(body, []byte("\uFEFF"))
	for _, line := range splitLines(string(body)) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := keyValue(line)
		if !ok {
			continue
		}
		if value == "" { // "Disallow:" allows everything: no rule, but it ends the agents
			prevKey = key
			continue
		}
		if len(current) == 0 && !userAgentKeys[key] && !sitemapKeys[key] {
			continue // a rule outside any group
		}
		switch {
		case userAgentKeys[key]:
			if prevKey != "" && !userAgentKeys[prevKey] {
				current = nil
			}
			agent := strings.ToLower(value)
			agents := []string{agent}
			if agent != "*" && strings.Contains(agent, "*") {
				// No wildcards in user agents, but be generous: "foo*bot" also names foobot.
				agents = append(agents, strings.ReplaceAll(agent, "*", ""))
			}
			for _, a := range agents {
				if a == "" {
					continue
				}
				g := r.byAgent[a]
				if g == nil {
					g = &Group{agent: a}
					r.byAgent[a] = g
					r.groups = append(r.groups, g)
				}
				if !contains(current, g) {
					current = append(current, g)
				}
			}
		case allowKeys[key], disallowKeys[key]:
			for _, g := range current {
				g.add(allowKeys[key], value)
			}
		case sitemapKeys[key]:
			r.sitemaps = append(r.sitemaps, value)
		case crawlDelayKeys[key]:
			if d, err := strconv.ParseFloat(value, 64); err == nil && d >= 0 && d < 1e9 {
				for _, g := range current {
					g.crawlDelay = time.Duration(d * float64(time.Second))
				}
			}
		case requestRateKey[key]:
			if rr, ok := parseRequestRate(value); ok {
				for _, g := range current {
					g.requestRate = &rr
				}
			}
		}
		prevKey = key
	}
	return r
}

// splitLines splits s at "\n", "\r\n" and "\r".
func splitLines(s string) []string {
	return strings.FieldsFunc(s, func(c rune) bool { return c == '\n' || c == '\r' })
}

// keyValue splits a line into its lower-cased key and its value. Without a colon the line
// is read as "known directive words value" (protego's generosity: "user agent foobot").
func keyValue(line string) (key, value string, ok bool) {
	if k, v, found := strings.Cut(line, ":"); found {
		return strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v), true
	}
	words := strings.Split(line, " ")
	for i := 1; i < len(words); i++ {
		k := strings.ToLower(strings.Join(words[:i], " "))
		if knownKeys[k] {
			return k, strings.TrimSpace(strings.Join(words[i:], " ")), true
		}
	}
	return "", "", false
}

func contains(gs []*Group, g *Group) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

// add adds an Allow or Disallow rule for pattern.
func (g *Group) add(allow bool, pattern string) {
	if strings.HasPrefix(pattern, "http://") || strings.HasPrefix(pattern, "https://") {
		pattern = "/" + pattern // an absolute URL is matched as a path, as protego does
	}
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	norm := normalize(pattern, true)
	if norm == "" && !anchored {
		return
	}
	length := len(norm)
	if anchored {
		length++
	}
	for strings.Contains(norm, "**") { // the same match, fewer steps; length stays as written
		norm = strings.ReplaceAll(norm, "**", "*")
	}
	g.rules = append(g.rules, rule{allow: allow, pattern: norm, anchored: anchored, length: length})
	// Google: allowing a directory's index.html allows the directory itself.
	if allow && strings.HasSuffix(norm, "/index.html") {
		dir := norm[:len(norm)-len("index.html")]
		g.rules = append(g.rules, rule{allow: true, pattern: dir, anchored: true, length: len(dir) + 1})
	}
}

// parseRequestRate reads "n/s", "n/10s", "n/15m", "n/1h", "n/1d", optionally followed by a
// time window "hhmm-hhmm".
func parseRequestRate(v string) (RequestRate, bool) {
	var rr RequestRate
	fields := strings.Fields(v)
	if len(fields) == 0 || len(fields) > 2 {
		return rr, false
	}
	n, per, ok := strings.Cut(fields[0], "/")
	if !ok || per == "" {
		return rr, false
	}
	mult := 1
	switch per[len(per)-1] {
	case 's', 'S':
		per = per[:len(per)-1]
	case 'm', 'M':
		per, mult = per[:len(per)-1], 60
	case 'h', 'H':
		per, mult = per[:len(per)-1], 3600
	case 'd', 'D':
		per, mult = per[:len(per)-1], 86400
	}
	requests, err1 := strconv.Atoi(n)
	seconds, err2 := strconv.Atoi(per)
	if err1 != nil || err2 != nil || requests < 0 || seconds < 0 {
		return rr, false
	}
	rr.Requests, rr.Seconds = requests, seconds*mult
	if len(fields) == 2 {
		a, b, ok := strings.Cut(fields[1], "-")
		start, ok1 := clock(a)
		end, ok2 := clock(b)
		if !ok || !ok1 || !ok2 {
			return RequestRate{}, false
		}
		rr.HasWindow, rr.Start, rr.End = true, start, end
	}
	return rr, true
}

// clock reads "hhmm" as minutes since midnight.
func clock(s string) (int, bool) {
	if len(s) != 4 {
		return 0, false
	}
	h, err1 := strconv.Atoi(s[:2])
	m, err2 := strconv.Atoi(s[2:])
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// Sitemaps returns the values of the Sitemap lines, in order, wherever they stand.
func (r *Robots) Sitemaps() []string { return r.sitemaps }

// Group returns the group that applies to agent, nil when none does (then everything is
// allowed). agent is a robot name or a whole User-Agent value: the group whose user agent
// appears in it, compared case-insensitively, is chosen, the longest such name winning
// ("hedwig-news" over "hedwig" for "hedwig-news/1.0"); a User-Agent like
// "Mozilla/5.0 (compatible; MyBot/1.0)" thus finds the "MyBot" group. Failing that, the "*"
// group applies.
func (r *Robots) Group(agent string) *Group {
	if r == nil {
		return nil
	}
	agent = strings.ToLower(strings.TrimSpace(agent))
	var best, star *Group
	for _, g := range r.groups {
		if g.agent == "*" {
			star = g
			continue
		}
		if strings.Contains(agent, g.agent) && (best == nil || len(g.agent) > len(best.agent)) {
			best = g
		}
	}
	if best != nil {
		return best
	}
	return star
}

// Allowed reports whether agent may fetch target, a URL ("http://host/path?q") or a path
// with its query ("/path?q"); see [Robots.Group] for how agent chooses the group.
func (r *Robots) Allowed(agent, target string) bool {
	if r == nil {
		return true
	}
	if r.disallowAll {
		return false
	}
	return r.Group(agent).Allowed(target)
}

// CrawlDelay returns the group's Crawl-delay, 0 when it has none (or g is nil).
func (g *Group) CrawlDelay() time.Duration {
	if g == nil {
		return 0
	}
	return g.crawlDelay
}

// RequestRate returns the group's Request-rate, if it has one.
func (g *Group) RequestRate() (RequestRate, bool) {
	if g == nil || g.requestRate == nil {
		return RequestRate{}, false
	}
	return *g.requestRate, true
}

// Allowed reports whether the group's rules allow target, a URL or a path with its query.
// A nil group allows everything.
func (g *Group) Allowed(target string) bool {
	if g == nil || len(g.rules) == 0 {
		return true
	}
	path := normalize(requestPath(target), false)
	best := -1
	allowed := true
	for _, ru := range g.rules {
		if ru.length < best || (ru.length == best && (allowed || !ru.allow)) {
			continue // cannot change the verdict
		}
		if !match(path, ru.pattern, ru.anchored) {
			continue
		}
		if ru.length > best {
			best, allowed = ru.length, ru.allow
		} else if ru.allow { // a tie: Allow wins
			allowed = true
		}
	}
	return allowed
}

// requestPath returns the path and query of target, a URL or a path: the scheme and
// authority and the fragment are dropped, and an empty path becomes "/".
func requestPath(target string) string {
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	if i := strings.Index(target, "://"); i > 0 && isScheme(target[:i]) {
		rest := target[i+3:]
		j := strings.IndexAny(rest, "/?")
		if j < 0 {
			return "/"
		}
		target = rest[j:]
	}
	if target == "" || target[0] == '?' {
		target = "/" + target
	}
	return target
}

func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// match reports whether pattern (normalised, with '*' wildcards) matches the start of path,
// or all of it when anchored. It tracks every position of path that the pattern read so far
// can end at, as Google's matcher does: O(len(path) × len(pattern)) at worst.
func match(path, pattern string, anchored bool) bool {
	if !strings.Contains(pattern, "*") {
		if anchored {
			return path == pattern
		}
		return strings.HasPrefix(path, pattern)
	}
	pos := make([]int, 1, len(path)+1) // sorted, distinct
	next := make([]int, 0, len(path)+1)
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '*' {
			from := pos[0]
			pos = pos[:0]
			for p := from; p <= len(path); p++ {
				pos = append(pos, p)
			}
			continue
		}
		next = next[:0]
		for _, p := range pos {
			if p < len(path) && path[p] == c {
				next = append(next, p+1)
			}
		}
		if len(next) == 0 {
			return false
		}
		pos, next = next, pos
	}
	if anchored {
		return pos[len(pos)-1] == len(path)
	}
	return true
}

// normalize returns s with its percent-encoding normalised, so that equivalent paths
// compare equal (RFC 9309 section 2.2.2): an escaped unreserved character is decoded
// ("%7E" → "~", "%62" → "b"), other escapes are upper-cased ("%3c" → "%3C") and stay
// escaped ("%2F" is not "/"), and every other byte is escaped (raw UTF-8, '<', ':', '$',
// and '*' outside patterns) except '/' and the first '?' before the query, so that "/a<b"
// equals "/a%3cb", "/Käyttäjä" equals "/K%C3%A4ytt%C3%A4j%C3%A4" and "?u=https://x" equals
// "?u=https%3A%2F%2Fx". In a pattern '*' stays a wildcard.
func normalize(s string, pattern bool) string {
	var b strings.Builder
	b.Grow(len(s))
	query := false // past the first '?'
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				writeEscaped(&b, v)
			}
			i += 2
		case unreserved(c) || (!query && (c == '/' || c == '?')) || (pattern && c == '*'):
			b.WriteByte(c)
			query = query || c == '?'
		default:
			writeEscaped(&b, c)
		}
	}
	return b.String()
}

func writeEscaped(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}

// unreserved reports whether c is an unreserved character of RFC 3986.
func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
