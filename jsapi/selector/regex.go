package selector

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/jscrawl/jscrawl/jsapi/selector/memo"
)

// ErrMatchTimeout is wrapped by the error of a match that ran longer than the match
// timeout (SetMatchTimeout): a backtracking pattern on hostile text.
var ErrMatchTimeout = errors.New("match timeout")

// matchTimeout is SetMatchTimeout's duration in nanoseconds (0: none).
var matchTimeout atomic.Int64

// SetMatchTimeout bounds every match of the Regexes compiled from now on (re(), re_first(),
// the EXSLT re: functions) to d (0 or less: no bound); a match that runs longer fails with
// an error wrapping ErrMatchTimeout. jscrawl sets it to JS_CALLBACK_TIMEOUT: a match runs
// in native code, where the callback watchdog's interrupt cannot stop it. Safe from any
// goroutine; the last call wins.
func SetMatchTimeout(d time.Duration) { matchTimeout.Store(max(int64(d), 0)) }

// Regex is a compiled regular expression with the semantics of Python's re module, which
// parsel's re() and re_first() use: \w, \d, \s and \b are Unicode-aware ("cumpleaños" is
// one word), groups are numbered left to right whether named or not, and Python's
// (?P<name>...) and (?P=name) are accepted. It runs on github.com/dlclark/regexp2 (the
// .NET dialect, a backtracking engine close to Python's: lookarounds and backreferences
// work). Obtain one with CompileRegex; it is safe for concurrent use.
type Regex struct {
	re      *regexp2.Regexp
	extract int // number of the group named "extract", or -1
}

// regexCache maps a pattern plus its flags and the match timeout to its *Regex or error
// (bounded like the CSS cache).
var regexCache = memo.Cache[*Regex]{Limit: cacheLimit}

// CompileRegex compiles pattern, a Python re pattern, or returns it from a process-wide
// cache. flags may contain i (IGNORECASE), m (MULTILINE) and s (DOTALL); other letters are
// ignored (a JS RegExp's g, u, y and d have no meaning here).
func CompileRegex(pattern, flags string) (*Regex, error) {
	timeout := time.Duration(matchTimeout.Load())
	key := flags + "\x00" + timeout.String() + "\x00" + pattern
	return regexCache.Get(key, func() (*Regex, error) {
		re, err := regexp2.Compile(pythonToNET(pattern), RegexFlags(flags), regexp2.OptionMaintainCaptureOrder())
		if err != nil {
			return nil, fmt.Errorf("invalid regular expression %q: %w", pattern, err)
		}
		if timeout > 0 {
			re.MatchTimeout = timeout
		}
		r := &Regex{re: re, extract: -1}
		for _, name := range re.GetGroupNames() {
			if name == "extract" {
				r.extract = re.GroupNumberFromName(name)
			}
		}
		return r, nil
	})
}

// RegexFlags returns the regexp2 options for the flag letters that JS and Python spell
// alike: i (ignore case), m (multiline: ^ and $ at line ends) and s (a dot matches a
// newline). Other letters are ignored.
func RegexFlags(flags string) regexp2.RegexOptions {
	opts := regexp2.None
	for _, f := range flags {
		switch f {
		case 'i':
			opts |= regexp2.IgnoreCase
		case 'm':
			opts |= regexp2.Multiline
		case 's':
			opts |= regexp2.Singleline
		}
	}
	return opts
}

// Within returns r with each match also bounded by d (d <= 0, or no shorter than r's match
// timeout: r itself): the time left to the running callback (JS_CALLBACK_TIMEOUT), so a
// match fails with ErrMatchTimeout before the watchdog has to break the VM. Safe for
// concurrent use; r is not changed.
func (r *Regex) Within(d time.Duration) *Regex {
	if d <= 0 || d >= r.re.MatchTimeout {
		return r
	}
	re := *r.re // regexp2 reads MatchTimeout from the Regexp a match runs on
	re.MatchTimeout = d
	return &Regex{re: &re, extract: r.extract}
}

// pythonToNET rewrites Python's named-group syntax, (?P<name>...) and (?P=name), to the
// .NET one, and \Z (end of text in Python) to \z.
func pythonToNET(p string) string {
	if !strings.Contains(p, "(?P") && !strings.Contains(p, `\Z`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			if p[i+1] == 'Z' {
				b.WriteString(`\z`)
			} else {
				b.WriteString(p[i : i+2])
			}
			i++
		case strings.HasPrefix(p[i:], "(?P<"):
			b.WriteString("(?<")
			i += 3
		case strings.HasPrefix(p[i:], "(?P="):
			end := strings.IndexByte(p[i:], ')')
			if end < 0 {
				b.WriteString(p[i:])
				return b.String()
			}
			b.WriteString(`\k<` + p[i+4:i+end] + ">")
			i += end
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// Extract returns what parsel's extract_regex returns for text: with a group named
// "extract", that group of the first match (nothing if there is no match or the group did
// not take part); otherwise Python's findall: every whole match when the pattern has no
// groups, else the groups of every match in order ("" for a group that did not take
// part). Unless replaceEntities is false, character references other than &lt; and &amp;
// are replaced in each string (ReplaceEntities). A match that runs into regexp2's
// backtracking limit or past the match timeout (SetMatchTimeout) is an error.
func (r *Regex) Extract(text string, replaceEntities bool, first bool) ([]string, error) {
	var out []string
	m, err := r.re.FindStringMatch(text)
	if r.extract >= 0 {
		if err == nil && m != nil {
			if g := m.GroupByNumber(r.extract); g != nil && len(g.Captures) > 0 {
				out = append(out, g.String())
			}
		}
	} else {
		for err == nil && m != nil {
			groups := m.Groups()
			if len(groups) == 1 {
				out = append(out, m.String())
			} else {
				for _, g := range groups[1:] {
					out = append(out, g.String()) // "" when the group did not take part
				}
			}
			if first {
				break
			}
			m, err = r.re.FindNextMatch(m)
		}
	}
	if err != nil {
		return nil, r.matchError(err)
	}
	if replaceEntities {
		for i, s := range out {
			out[i] = ReplaceEntities(s)
		}
	}
	return out, nil
}

// matchError is err, returned by a match of r, with r's pattern; a timeout (regexp2's error
// is a plain one: any error but the backtracking limit is the timeout) wraps
// ErrMatchTimeout.
func (r *Regex) matchError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, regexp2.ErrBacktrackingStackLimit) {
		return fmt.Errorf("regular expression %s: %w", r.re.String(), err)
	}
	return fmt.Errorf("regular expression %s: %w after %s", r.re.String(), ErrMatchTimeout, r.re.MatchTimeout.Round(time.Millisecond))
}
