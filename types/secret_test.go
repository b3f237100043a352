package types_test

import (
	"reflect"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestSecretSetting: the credential settings and every key ending in _PASSWORD, _TOKEN,
// _KEY or _SECRET are secrets, known or not; other settings are not.
func TestSecretSetting(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		"HTTP_PASS": true, "FRONTIER": true, "FEEDS": true,
		"MY_API_TOKEN": true, "S3_SECRET": true, "AWS_ACCESS_KEY": true, "DB_PASSWORD": true,
		"my_api_token": true, "DEFAULT_REQUEST_HEADERS": true, "PROXY_LIST": true,
		"HTTP_USER": false, "CONCURRENT_REQUESTS": false, "CRAWL_ID": false, "USER_AGENT": false,
		"TOKENS": false, "KEYBOARD": false, "BYPASS": false,
	} {
		if got := types.SecretSetting(key); got != want {
			t.Errorf("SecretSetting(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestSecretMaskURL: MaskURL masks the password of the user info and credential query
// values, and keeps scheme, user, host, port, path and the other parameters.
func TestSecretMaskURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"redis://:hunter2@127.0.0.1:6379/0", "redis://:****@127.0.0.1:6379/0"},
		{"redis://user:hunter2@h:6379/0", "redis://user:****@h:6379/0"},
		{"rediss://default:p%40ss@h:6380", "rediss://default:****@h:6380"},
		{"redis://tokenonly@h/1", "redis://****@h/1"},
		{"redis://h:6379/0", "redis://h:6379/0"},
		{"http://u:p@proxy:8080", "http://u:****@proxy:8080"},
		{"s3://AKID:s3cr3t@bucket/items.jsonl", "s3://AKID:****@bucket/items.jsonl"},
		{"postgresql://app:pw@db/crawl?sslmode=require&password=pw2", "postgresql://app:****@db/crawl?sslmode=require&password=****"},
		{"s3://bucket/k?X-Amz-Signature=abc&X-Amz-Date=1&aws_secret_access_key=z#f", "s3://bucket/k?X-Amz-Signature=****&X-Amz-Date=1&aws_secret_access_key=****#f"},
		{"https://h/p?token=t&page=2&api_key=k", "https://h/p?token=****&page=2&api_key=****"},
		{"file:///tmp/items.jsonl", "file:///tmp/items.jsonl"},
		{"items-%(worker)s.jsonl", "items-%(worker)s.jsonl"},
		{"a@b.jsonl", "a@b.jsonl"},
		{"http://h/a@b", "http://h/a@b"},
		{"", ""},
	} {
		if got := types.MaskURL(tc.in); got != tc.want {
			t.Errorf("MaskURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSecretMaskSetting: a plain secret reads "****" (an empty one stays empty), FRONTIER
// keeps its host, FEEDS keeps its options under masked URIs, other settings are untouched.
func TestSecretMaskSetting(t *testing.T) {
	t.Parallel()
	opts := map[string]any{"format": "jsonl"}
	for _, tc := range []struct {
		name string
		key  string
		in   any
		want any
	}{
		{"password", "HTTP_PASS", "hunter2", "****"},
		{"empty password", "HTTP_PASS", "", ""},
		{"unset token", "MY_API_TOKEN", nil, nil},
		{"unknown token", "MY_API_TOKEN", "tok", "****"},
		{"number key", "LICENSE_KEY", 1234, "****"},
		{"frontier", "FRONTIER", "redis://:pw@h:6379/0", "redis://:****@h:6379/0"},
		{"frontier without password", "FRONTIER", "redis://h:6379/0", "redis://h:6379/0"},
		{"feeds", "FEEDS", map[string]any{"s3://id:sec@b/x.jsonl": opts, "out.csv": opts},
			map[string]any{"s3://id:****@b/x.jsonl": opts, "out.csv": opts}},
		{"default headers", "DEFAULT_REQUEST_HEADERS",
			map[string]any{"Authorization": "Bearer t0k", "X-Api-Key": "k", "Accept": "text/html"},
			map[string]any{"Authorization": "Bearer ****", "X-Api-Key": "****", "Accept": "text/html"}},
		{"proxy list", "PROXY_LIST", []any{"http://u:pw@h:3128", "u:pw@h:8080", "socks5://h:1080", "proxies.txt"},
			[]any{"http://u:****@h:3128", "u:****@h:8080", "socks5://h:1080", "proxies.txt"}},
		{"not a secret", "HTTP_USER", "alice", "alice"},
		{"not a secret list", "RETRY_HTTP_CODES", []any{500}, []any{500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := types.MaskSetting(tc.key, tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MaskSetting(%s, %v) = %v, want %v", tc.key, tc.in, got, tc.want)
			}
		})
	}
}

// TestSecretMaskURLsIn: every URL in a text has its credentials masked; the rest of the
// text is kept.
func TestSecretMaskURLsIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"no url here", "no url here"},
		{`Redis frontier redis://:pw@h:6379/0 unreachable`, `Redis frontier redis://:****@h:6379/0 unreachable`},
		{`uri="s3://id:sec@b/k?token=t" items=1`, `uri="s3://id:****@b/k?token=****" items=1`},
		{"two: http://a:b@x/ and <https://h/p?sig=s>", "two: http://a:****@x/ and <https://h/p?sig=****>"},
		{"bare ://x:y@z", "bare ://x:y@z"},
		{"GET http://site.test/a@b", "GET http://site.test/a@b"},
	} {
		if got := types.MaskURLsIn(tc.in); got != tc.want {
			t.Errorf("MaskURLsIn(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSecretHeader: credential headers are recognised whatever their case, and masked
// keeping the scheme of Authorization.
func TestSecretHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, value string
		secret      bool
		masked      string
	}{
		{"Authorization", "Basic YWxpY2U6cHc=", true, "Basic ****"},
		{"proxy-authorization", "Bearer abc", true, "Bearer ****"},
		{"Authorization", "opaque", true, "****"},
		{"X-Api-Key", "k", true, "****"},
		{"X-Auth-Token", "t", true, "****"},
		{"Accept", "text/html", false, ""},
		{"Cookie", "a=b", false, ""},
		{"Keyboard", "x", false, ""},
	} {
		if got := types.SecretHeader(tc.name); got != tc.secret {
			t.Errorf("SecretHeader(%q) = %v, want %v", tc.name, got, tc.secret)
		}
		if tc.secret {
			if got := types.MaskHeader(tc.name, tc.value); got != tc.masked {
				t.Errorf("MaskHeader(%q, %q) = %q, want %q", tc.name, tc.value, got, tc.masked)
			}
		}
	}
}
