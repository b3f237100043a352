package links

import (
	"fmt"
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/jsapi/selector/memo"
)

// Matcher reports whether a URL (or a link text) matches a pattern.
type Matcher interface {
	MatchString(s string) bool
}

// MatchTimeout bounds one match of a JS pattern, so a catastrophically backtracking
// pattern cannot hang a crawl: a match that runs out of time counts as no match.
const MatchTimeout = time.Second

// JSRegexp is a JS regular expression compiled for Go. It is safe for concurrent use.
type JSRegexp struct {
	re *regexp2.Regexp
}

// MatchString reports whether s contains a match (JS: re.test(s), ignoring the g and y
// flags, which would make test stateful; Python: re.search).
func (r *JSRegexp) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	return err == nil && ok
}

// cacheLimit bounds each compiled-pattern cache; when full it is emptied.
const cacheLimit = 1024

// jsCache and globCache hold the compiled JS patterns (by flags and source) and globs.
var (
	jsCache   = memo.Cache[Matcher]{Limit: cacheLimit}
	globCache = memo.Cache[Matcher]{Limit: cacheLimit}
)

// CompileJS compiles the source and flags of a JS RegExp (re.source, re.flags) with the
// options goja gives regexp2: i, m, s and u are honoured, g, y and d ignored. Compiled
// patterns are cached, so a pattern built per page is compiled once.
func CompileJS(source, flags string) (Matcher, error) {
	return jsCache.Get(flags+"/"+source, func() (Matcher, error) {
		opts := regexp2.ECMAScript | selector.RegexFlags(flags)
		if strings.ContainsAny(flags, "uv") {
			opts |= regexp2.Unicode
		}
		re, err := regexp2.Compile(source, opts)
		if err != nil {
			return nil, fmt.Errorf("invalid regular expression /%s/%s: %w", source, flags, err)
		}
		re.MatchTimeout = MatchTimeout
		return &JSRegexp{re: re}, nil
	})
}

// CompileGlob compiles a glob matched against a whole absolute URL, as Crawlee's
// enqueueLinks does with minimatch (new Minimatch(glob, { nocase: true })): see [Glob] for
// the semantics (braces, extglobs, classes, "**", escapes, negation). Compiled globs are
// cached.
func CompileGlob(glob string) (Matcher, error) {
	return globCache.Get(glob, func() (Matcher, error) {
		g, err := compileGlob(glob, true)
		if err != nil {
			return nil, fmt.Errorf("invalid glob %q: %w", glob, err)
		}
		return g, nil
	})
}

// Any reports whether any of ms matches s.
func Any(ms []Matcher, s string) bool {
	for _, m := range ms {
		if m.MatchString(s) {
			return true
		}
	}
	return false
}
