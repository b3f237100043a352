package impersonate

import (
	"github.com/bogdanfinn/tls-client/profiles"
)

// builtin describes one built-in profile: the library's TLS and HTTP/2 profile with the
// browser's User-Agent and navigation headers.
type builtin struct {
	client  profiles.ClientProfile
	headers [][2]string // in the browser's order, names in lower case
	shuffle bool        // the browser permutes its TLS extensions on each connection (Chrome ≥ 110)
}

// aliases map the unversioned names to the newest version the library has.
var aliases = map[string]string{
	"chrome":     "chrome_133",
	"firefox":    "firefox_135",
	"safari":     "safari_16_0",
	"safari_ios": "safari_ios_18_5",
	"opera":      "opera_91",
}

// Navigation header values shared by several profiles.
const (
	chromeAccept  = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
	firefoxAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	safariAccept  = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
)

// chromeHeaders are the headers of a Chrome navigation on Windows, in Chrome's order.
func chromeHeaders(major, brands, encodings string, priority bool) [][2]string {
	h := [][2]string{
		{"sec-ch-ua", brands},
		{"sec-ch-ua-mobile", "?0"},
		{"sec-ch-ua-platform", `"Windows"`},
		{"upgrade-insecure-requests", "1"},
		{"user-agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" + major + ".0.0.0 Safari/537.36"},
		{"accept", chromeAccept},
		{"sec-fetch-site", "none"},
		{"sec-fetch-mode", "navigate"},
		{"sec-fetch-user", "?1"},
		{"sec-fetch-dest", "document"},
		{"accept-encoding", encodings},
		{"accept-language", "en-US,en;q=0.9"},
	}
	if priority {
		h = append(h, [2]string{"priority", "u=0, i"})
	}
	return h
}

// firefoxHeaders are the headers of a Firefox navigation on Windows, in Firefox's order.
func firefoxHeaders(major, accept, encodings string, priority bool) [][2]string {
	h := [][2]string{
		{"user-agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:" + major + ".0) Gecko/20100101 Firefox/" + major + ".0"},
		{"accept", accept},
		{"accept-language", "en-US,en;q=0.5"},
		{"accept-encoding", encodings},
		{"upgrade-insecure-requests", "1"},
		{"sec-fetch-dest", "document"},
		{"sec-fetch-mode", "navigate"},
		{"sec-fetch-site", "none"},
		{"sec-fetch-user", "?1"},
	}
	if priority {
		h = append(h, [2]string{"priority", "u=0, i"})
	}
	return append(h, [2]string{"te", "trailers"})
}

// safariIOSHeaders are the headers of a Safari navigation on an iPhone, in Safari's order.
func safariIOSHeaders(version string) [][2]string {
	return [][2]string{
		{"sec-fetch-dest", "document"},
		{"user-agent", "Mozilla/5.0 (iPhone; CPU iPhone OS " + version + " like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/" + dotted(version) + " Mobile/15E148 Safari/604.1"},
		{"accept", safariAccept},
		{"sec-fetch-site", "none"},
		{"sec-fetch-mode", "navigate"},
		{"accept-language", "en-US,en;q=0.9"},
		{"priority", "u=0, i"},
		{"accept-encoding", "gzip, deflate, br"},
	}
}

// dotted turns "18_5" into "18.5".
func dotted(v string) string {
	b := []byte(v)
	for i, c := range b {
		if c == '_' {
			b[i] = '.'
		}
	}
	return string(b)
}

const (
	brEncodings   = "gzip, deflate, br"
	zstdEncodings = "gzip, deflate, br, zstd"
)

// builtins are the built-in profiles by name: those of tls-client's profiles package
// with a known browser behind them (not its app profiles such as okhttp or nike).
var builtins = map[string]builtin{
	"chrome_133": {profiles.Chrome_133, chromeHeaders("133", `"Not(A:Brand";v="99", "Google Chrome";v="133", "Chromium";v="133"`, zstdEncodings, true), true},
	"chrome_131": {profiles.Chrome_131, chromeHeaders("131", `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`, zstdEncodings, true), true},
	"chrome_124": {profiles.Chrome_124, chromeHeaders("124", `"Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"`, zstdEncodings, true), true},
	"chrome_120": {profiles.Chrome_120, chromeHeaders("120", `"Not_A Brand";v="8", "Chromium";v="120", "Google Chrome";v="120"`, brEncodings, false), true},

	"firefox_135": {profiles.Firefox_135, firefoxHeaders("135", firefoxAccept, zstdEncodings, true), false},
	"firefox_133": {profiles.Firefox_133, firefoxHeaders("133", firefoxAccept, zstdEncodings, true), false},
	"firefox_132": {profiles.Firefox_132, firefoxHeaders("132", firefoxAccept, zstdEncodings, true), false},
	"firefox_123": {profiles.Firefox_123, firefoxHeaders("123", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", brEncodings, false), false},
	"firefox_120": {profiles.Firefox_120, firefoxHeaders("120", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", brEncodings, false), false},

	"safari_16_0": {profiles.Safari_16_0, [][2]string{
		{"accept", safariAccept},
		{"user-agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Safari/605.1.15"},
		{"accept-language", "en-US,en;q=0.9"},
		{"accept-encoding", brEncodings},
	}, false},
	"safari_ios_18_5": {profiles.Safari_IOS_18_5, safariIOSHeaders("18_5"), false},
	"safari_ios_18_0": {profiles.Safari_IOS_18_0, safariIOSHeaders("18_0"), false},
	"safari_ios_17_0": {profiles.Safari_IOS_17_0, safariIOSHeaders("17_0"), false},

	"opera_91": {profiles.Opera_91, [][2]string{
		{"sec-ch-ua", `"Chromium";v="105", "Not)A;Brand";v="8", "Opera";v="91"`},
		{"sec-ch-ua-mobile", "?0"},
		{"sec-ch-ua-platform", `"Windows"`},
		{"upgrade-insecure-requests", "1"},
		{"user-agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/105.0.0.0 Safari/537.36 OPR/91.0.4516.20"},
		{"accept", chromeAccept},
		{"sec-fetch-site", "none"},
		{"sec-fetch-mode", "navigate"},
		{"sec-fetch-user", "?1"},
		{"sec-fetch-dest", "document"},
		{"accept-encoding", brEncodings},
		{"accept-language", "en-US,en;q=0.9"},
	}, false},
}
