package types

import (
	"net/url"
	"strings"
)

// Secrets: settings whose values hold credentials, and how they are shown to anyone who
// is not the operator (spider code through this.crawler.settings, `jscrawl settings`, logs,
// stats and error messages). A secret keeps working where jscrawl uses it; only its
// readable form is masked.

// Mask is what a masked secret reads as.
const Mask = "****"

// secretSuffixes are the key endings that make any setting, known or not, a secret.
var secretSuffixes = []string{"_PASSWORD", "_PASS", "_TOKEN", "_KEY", "_SECRET"}

// urlSettings hold URLs whose user info and credential query parameters are secret, but
// whose host and path are not.
var urlSettings = map[string]bool{Frontier: true}

// SecretSetting reports whether key's value is (or may hold) a secret: HTTP_PASS, FRONTIER
// (its password), FEEDS (the passwords in its URIs), DEFAULT_REQUEST_HEADERS (its
// credential headers, SecretHeader), PROXY_LIST (the passwords of its proxies) and any key ending in _PASSWORD, _PASS, _TOKEN, _KEY or
// _SECRET, known or not. The comparison ignores case.
func SecretSetting(key string) bool {
	k := strings.ToUpper(key)
	if k == HTTPPass || k == Feeds || k == DefaultRequestHeaders || k == ProxyList || urlSettings[k] {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// MaskSetting returns v as it may be shown for key: v itself when key is not a secret
// (SecretSetting); for FRONTIER, the URL with its password masked (MaskURL); for FEEDS, the
// object with each URI key masked (MaskURL, options kept); for DEFAULT_REQUEST_HEADERS, the
// object with its credential headers masked (MaskHeader); for PROXY_LIST, the list with
// each proxy's password masked; for another secret, Mask, or
// v when it is empty (nil or ""), so an unset secret still reads as unset.
func MaskSetting(key string, v any) any {
	if !SecretSetting(key) {
		return v
	}
	k := strings.ToUpper(key)
	switch {
	case k == DefaultRequestHeaders:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for name, hv := range m {
			if s, isText := hv.(string); isText && SecretHeader(name) {
				hv = MaskHeader(name, s)
			}
			out[name] = hv
		}
		return out
	case k == Feeds:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for uri, opts := range m {
			out[MaskURL(uri)] = opts
		}
		return out
	case urlSettings[k]:
		if s, ok := v.(string); ok {
			return MaskURL(s)
		}
	case k == ProxyList:
		l, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(l))
		for i, e := range l {
			if s, isText := e.(string); isText {
				e = maskProxyEntry(s)
			}
			out[i] = e
		}
		return out
	}
	if v == nil || v == "" {
		return v
	}
	return Mask
}

// maskProxyEntry masks the credentials of an entry of PROXY_LIST: a URL, or a bare
// user:pass@host:port (a file path is kept).
func maskProxyEntry(s string) string {
	if !strings.Contains(s, "://") && strings.Contains(s, "@") {
		return strings.TrimPrefix(MaskURL("http://"+s), "http://")
	}
	return MaskURL(s)
}

// credentialParams are the query parameter names (compared without case, and also as the
// end of a longer name such as aws_secret_access_key's "key") whose values MaskURL masks.
var credentialParams = []string{"password", "passwd", "pass", "pwd", "secret", "token", "key",
	"signature", "sig", "credential", "credentials", "auth", "authorization", "sslpassword"}

// MaskURL returns s with its credentials masked and the rest kept, so the value still tells
// where it points: the password of its user info (redis://:****@host:6379/0,
// s3://KEYID:****@bucket/path; a user name alone, as redis://TOKEN@host reads it, is
// masked too) and the values of query parameters that look like credentials (password=,
// token=, X-Amz-Signature=, sslpassword=...). Text that is not a URL with a scheme is
// returned as it is.
func MaskURL(s string) string {
	scheme := strings.Index(s, "://")
	if scheme <= 0 {
		return s
	}
	rest := s[scheme+3:]
	// The authority ends at the first /, ? or #; user info before its last @.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		user, _, hasPass := strings.Cut(auth[:at], ":")
		switch {
		case hasPass:
			auth = user + ":" + Mask + auth[at:]
		case user != "":
			auth = Mask + auth[at:]
		}
	}
	return s[:scheme+3] + auth + maskQuery(tail)
}

// maskQuery masks the credential values in the query of tail (a URL's path, query and
// fragment), keeping everything else byte for byte.
func maskQuery(tail string) string {
	q := strings.IndexByte(tail, '?')
	if q < 0 {
		return tail
	}
	query, frag := tail[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		if dec, err := url.QueryUnescape(name); err == nil {
			name = dec
		}
		if credentialParam(name) {
			parts[i] = p[:strings.IndexByte(p, '=')+1] + Mask
		}
	}
	return tail[:q+1] + strings.Join(parts, "&") + frag
}

// credentialParam reports whether a query parameter's name looks like a credential's.
func credentialParam(name string) bool {
	n := strings.ToLower(name)
	for _, c := range credentialParams {
		if n == c || strings.HasSuffix(n, "_"+c) || strings.HasSuffix(n, "-"+c) || strings.HasSuffix(n, "."+c) {
			return true
		}
	}
	return false
}

// MaskURLsIn returns text with the credentials of every URL in it masked (MaskURL): each
// scheme://... up to the next space, quote or angle bracket. For log lines and messages
// that may quote a URL given by the operator.
func MaskURLsIn(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		start := i
		for start > 0 && schemeByte(rest[start-1]) {
			start--
		}
		end := i + 3
		for end < len(rest) && !strings.ContainsRune(" \t\r\n\"'<>`", rune(rest[end])) {
			end++
		}
		b.WriteString(rest[:start])
		if start == i { // no scheme before ://
			b.WriteString(rest[start:end])
		} else {
			b.WriteString(MaskURL(rest[start:end]))
		}
		rest = rest[end:]
	}
	b.WriteString(rest)
	return b.String()
}

// schemeByte reports whether c may be part of a URL scheme.
func schemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// secretHeaderSuffixes are the header name endings (compared without case) of credentials
// such as X-Api-Key and X-Auth-Token.
var secretHeaderSuffixes = []string{"-key", "-token", "-secret", "-password"}

// SecretHeader reports whether the HTTP header name carries a credential: Authorization,
// Proxy-Authorization, or a name ending in -Key, -Token, -Secret or -Password (X-Api-Key).
// The comparison ignores case.
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	if n == "authorization" || n == "proxy-authorization" {
		return true
	}
	for _, s := range secretHeaderSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// MaskHeader returns the value v of the credential header name masked: Authorization and
// Proxy-Authorization keep their scheme ("Basic ****"), others become Mask. Call it for a
// SecretHeader.
func MaskHeader(name, v string) string {
	if n := strings.ToLower(name); n == "authorization" || n == "proxy-authorization" {
		if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
			return scheme + " " + Mask
		}
	}
	return Mask
}
