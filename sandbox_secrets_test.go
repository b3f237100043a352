package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// secretsSpider yields one item of what spider code can read of the secret settings:
// every getter of this.crawler.settings on them, and the request its response came
// from. It logs the same at DEBUG. Its downloader middleware (at the default order, below
// HttpAuthMiddleware) puts the request headers its hooks see in stats.
const secretsSpider = `import { Request } from "jscrawl";
export const downloaderMiddlewares = [{
  processRequest(request, spider) {
    spider.crawler.stats.set("mw/request_headers", JSON.stringify(request.headers));
  },
  processResponse(request, response, spider) {
    spider.crawler.stats.set("mw/response_request_headers", JSON.stringify(response.request.headers));
    spider.crawler.stats.set("mw/response_request_headers2", JSON.stringify(request.headers));
    return response;
  },
}];
export default class Secrets {
  name = "secrets";
  baseUrl = "http://127.0.0.1:1";
  *start() { yield new Request(this.baseUrl + "/"); }
  *parse(response) {
    const s = this.crawler.settings;
    const item = {
      pass: s.get("HTTP_PASS"), passDefault: s.get("HTTP_PASS", "d"), passList: s.getList("HTTP_PASS"),
      token: s.get("MY_API_TOKEN"), tokenInt: s.getInt("MY_API_TOKEN"), tokenFloat: s.getFloat("MY_API_TOKEN"),
      frontier: s.get("FRONTIER"), user: s.get("HTTP_USER"), unsetKey: s.get("OTHER_KEY", "none"),
      headers: s.getDict("DEFAULT_REQUEST_HEADERS"),
      requestHeaders: response.request.headers,
    };
    this.logger.debug("spider sees " + JSON.stringify(item));
    yield item;
  }
}
`

// secretsSite serves one page; it requires the Basic credentials alice:pass when pass is
// not empty.
func secretsSite(t *testing.T, pass string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); pass != "" && (!ok || u != "alice" || p != pass) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><p>ok</p></body></html>"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// noSecret fails the test when any of secrets is in text (named what).
func noSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s holds the secret %q:\n%s", what, s, text)
		}
	}
}

// TestSecretsNotReadable: HTTP_PASS, an unknown *_TOKEN and an X-Api-Key of
// DEFAULT_REQUEST_HEADERS given with -s are used (the site requires the password) but
// spider code reads them masked, and they reach no item,
// no log line at DEBUG, no stats and no WARC record; the WARC request record's
// Authorization is redacted.
func TestSecretsNotReadable(t *testing.T) {
	t.Parallel()
	const pass, token, apiKey = "hunter2-secret", "tok-secret-4242", "hdrkey-secret-9"
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + pass))
	srv := secretsSite(t, pass)
	dir := t.TempDir()
	spider := writeFile(t, dir, "secrets.js", secretsSpider)
	stats, archive := filepath.Join(dir, "stats.json"), filepath.Join(dir, "crawl.warc")
	stdout, stderr, code := jscrawl(t, "run", spider, "-a", "baseUrl="+srv.URL, "-o", "-:jsonl", "-L", "DEBUG",
		"-s", "HTTP_USER=alice", "-s", "HTTP_PASS="+pass, "-s", "MY_API_TOKEN="+token,
		"-s", `DEFAULT_REQUEST_HEADERS={"X-Api-Key": "`+apiKey+`", "Accept": "text/html"}`,
		"--stats-json", stats, "--warc", archive)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	items := jsonLines(t, stdout)
	if len(items) != 1 {
		t.Fatalf("%d items, want 1 (the site refused the credentials?)\n%s", len(items), stderr)
	}
	it := items[0]
	for k, want := range map[string]any{"pass": "****", "passDefault": "****", "token": "****",
		"tokenInt": 0.0, "tokenFloat": 0.0, "frontier": "", "user": "alice", "unsetKey": "none"} {
		if it[k] != want {
			t.Errorf("item %s = %#v, want %#v", k, it[k], want)
		}
	}
	if l, _ := it["passList"].([]any); len(l) != 0 {
		t.Errorf("item passList = %#v, want empty", it["passList"])
	}
	if h, _ := it["headers"].(map[string]any); h["X-Api-Key"] != "****" || h["Accept"] != "text/html" {
		t.Errorf("item headers = %#v, want X-Api-Key masked and Accept kept", it["headers"])
	}
	secrets := []string{pass, token, basic, apiKey}
	noSecret(t, "an item", stdout, secrets...)
	noSecret(t, "the log", stderr, secrets...)
	if !strings.Contains(stderr, "spider sees") {
		t.Errorf("no DEBUG line of the spider in the log:\n%s", stderr)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "--stats-json", string(data), secrets...)
	if !strings.Contains(string(data), "mw/response_request_headers") {
		t.Errorf("the downloader middleware did not run: %s", data)
	}
	_, dump := statsDump(t, stderr)
	if dump["item_scraped_count"] != 1.0 {
		t.Errorf("item_scraped_count %v, want 1", dump["item_scraped_count"])
	}
	warcData, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the WARC file", string(warcData), secrets...)
	if !strings.Contains(string(warcData), "\r\nAuthorization: Basic ****\r\n") || !strings.Contains(string(warcData), "\r\nX-Api-Key: ****\r\n") {
		t.Errorf("the WARC request record has no redacted Authorization and X-Api-Key:\n%s", warcData)
	}
}

// TestSecretsFrontier: with a password-protected Redis frontier given in JSCRAWL_FRONTIER,
// spider code reads FRONTIER with the password masked (host, port and database kept), and
// the password is in no item, log line or stats; given with --frontier, a warning says the
// process list shows it; a wrong password fails the run with an error that does not echo it.
func TestSecretsFrontier(t *testing.T) {
	t.Parallel()
	const pass = "redis-pw-secret-77"
	r := enginetest.StartRedis(t, enginetest.RedisOptions{Password: pass})
	srv := secretsSite(t, "")
	dir := t.TempDir()
	spider := writeFile(t, dir, "secrets.js", secretsSpider)
	stats := filepath.Join(dir, "stats.json")
	stdout, stderr, code := runJscrawl(t, dir, "", append(os.Environ(), "JSCRAWL_FRONTIER="+r.URL(0)),
		"run", spider, "-a", "baseUrl="+srv.URL, "-o", "-:jsonl", "-L", "DEBUG", "--stats-json", stats)
	items := runItems(t, stdout, stderr, code, 1)
	if want := "redis://:****@" + r.Addr + "/0"; items[0]["frontier"] != want {
		t.Errorf("FRONTIER reads %#v, want %q", items[0]["frontier"], want)
	}
	noSecret(t, "an item", stdout, pass)
	noSecret(t, "the log", stderr, pass)
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "--stats-json", string(data), pass)
	if strings.Contains(stderr, "process list") {
		t.Errorf("a frontier from JSCRAWL_FRONTIER is warned about:\n%s", stderr)
	}

	// Given on the command line, the password is in the process list: a warning says so.
	_, stderr, code = runJscrawl(t, dir, "", nil, "run", spider, "-a", "baseUrl="+srv.URL, "--frontier", r.URL(0),
		"--crawl-id", "argv", "-o", "-:jsonl")
	if code != 0 {
		t.Fatalf("--frontier: exit code %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "WARNING: --frontier redis://:****@"+r.Addr+"/0: the process list shows its password") {
		t.Errorf("no warning about --frontier's password:\n%s", stderr)
	}
	noSecret(t, "the log of --frontier", stderr, pass)

	const wrong = "wrong-pw-secret-99"
	_, stderr, code = runJscrawl(t, dir, "", append(os.Environ(), "JSCRAWL_FRONTIER=redis://:"+wrong+"@"+r.Addr+"/0"),
		"run", spider, "-a", "baseUrl="+srv.URL, "-o", "-:jsonl", "-L", "DEBUG", "-s", "FRONTIER_RETRY_TIMEOUT=1")
	if code == 0 {
		t.Fatalf("a wrong password: exit code 0\n%s", stderr)
	}
	if !strings.Contains(stderr, r.Addr) {
		t.Errorf("the error does not name the frontier's host:\n%s", stderr)
	}
	noSecret(t, "the log of a wrong password", stderr, wrong, pass)
}

// TestSecretsSettingsCommand: jscrawl settings shows the secrets masked in its table,
// --json and --get, and the other values as they are.
func TestSecretsSettingsCommand(t *testing.T) {
	t.Parallel()
	args := []string{"settings", "-s", "HTTP_PASS=hunter2-secret", "-s", "MY_API_TOKEN=tok-secret-4242",
		"-s", "FRONTIER=redis://:redis-pw-secret@127.0.0.1:6379/0", "-s", "HTTP_USER=alice"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"table", nil, []string{`"****"`, "redis://:****@127.0.0.1:6379/0", `"alice"`}},
		{"json", []string{"--json"}, []string{`"HTTP_PASS": "****"`, `"MY_API_TOKEN": "****"`, `"HTTP_USER": "alice"`}},
		{"get", []string{"--get", "HTTP_PASS"}, []string{"****"}},
		{"get frontier", []string{"--get", "FRONTIER"}, []string{"redis://:****@127.0.0.1:6379/0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawl(t, append(args, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			noSecret(t, "jscrawl settings", stdout+stderr, "hunter2-secret", "tok-secret-4242", "redis-pw-secret")
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("no %q in:\n%s", w, stdout)
				}
			}
		})
	}
}

// feedsSpider yields one item with the feed URIs spider code reads in FEEDS.
const feedsSpider = `import { Request } from "jscrawl";
export default class Feeds {
  name = "feeds";
  baseUrl = "http://127.0.0.1:1";
  *start() { yield new Request(this.baseUrl + "/"); }
  *parse(response) { yield { feeds: Object.keys(this.crawler.settings.getDict("FEEDS")).sort() }; }
}
`

// TestSecretsFeedURIs: credentials in feed URIs (-o and FEEDS) are masked in what spider
// code reads of FEEDS (which -o does not add to), in the log ("stored feed ... uri=") and the job's status file, and
// in the error of an -o that does not parse.
func TestSecretsFeedURIs(t *testing.T) {
	t.Parallel()
	srv := secretsSite(t, "")
	dir := t.TempDir()
	spider := writeFile(t, dir, "feeds.js", feedsSpider)
	a := "file://" + filepath.ToSlash(filepath.Join(dir, "a.jsonl")) + "?token=feedtok-secret-1"
	b := "file://" + filepath.ToSlash(filepath.Join(dir, "b.jsonl")) + "?X-Amz-Signature=feedsig-secret-2"
	_, stderr, code := jscrawl(t, "run", spider, "-a", "baseUrl="+srv.URL, "-L", "DEBUG", "--jobdir", filepath.Join(dir, "job"),
		"-o", a+":jsonl", "-s", `FEEDS={"`+b+`": {"format": "jsonl"}}`)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	secrets := []string{"feedtok-secret-1", "feedsig-secret-2"}
	data, err := os.ReadFile(filepath.Join(dir, "a.jsonl"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	items := jsonLines(t, string(data))
	if len(items) != 1 {
		t.Fatalf("%d items in a.jsonl, want 1", len(items))
	}
	noSecret(t, "an item", string(data), secrets...)
	if !strings.Contains(string(data), "b.jsonl?X-Amz-Signature=****") {
		t.Errorf("the item does not show the FEEDS URI masked: %s", data)
	}
	noSecret(t, "the log", stderr, secrets...)
	if !strings.Contains(stderr, "token=****") {
		t.Errorf("the log does not name the feed masked:\n%s", stderr)
	}
	status, err := os.ReadFile(filepath.Join(dir, "job", "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "job.json", string(status), secrets...)

	_, stderr, code = jscrawl(t, "run", spider, "-a", "baseUrl="+srv.URL, "-o", a)
	if code == 0 {
		t.Fatalf("-o without a format: exit code 0\n%s", stderr)
	}
	noSecret(t, "the error of a bad -o", stderr, secrets...)
}

// TestSecretsLogHandler: the log masks the secret settings' values, HTTP_USER and
// HTTP_PASS as a Basic Authorization value and any URL's credentials, in messages and
// attributes alike (groups, errors, the stats dump's object); other text is kept.
func TestSecretsLogHandler(t *testing.T) {
	t.Parallel()
	settings := types.NewSettings()
	for k, v := range map[string]any{
		types.HTTPUser: "alice", types.HTTPPass: "hunter2-secret", "MY_API_TOKEN": "tok-secret-4242",
		types.Frontier:              "redis://:redis-pw-secret@127.0.0.1:6379/0",
		types.Feeds:                 map[string]any{"s3://id:s3-secret-key@bucket/items.jsonl": map[string]any{"format": "jsonl"}},
		types.DefaultRequestHeaders: map[string]any{"X-Api-Key": "hdr-secret-key", "Accept": "text/html"},
	} {
		if err := settings.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	h := newSecretLog(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.setSecrets(settings)
	logger := slog.New(h).With("crawl", "tok-secret-4242")
	basic := base64.StdEncoding.EncodeToString([]byte("alice:hunter2-secret"))
	logger.Debug("sent Authorization: Basic "+basic+" with hunter2-secret",
		"err", errors.New("dial redis-pw-secret failed"), "uri", "postgresql://u:pg-secret@db/x?password=pg-secret2",
		slog.Group("g", "key", "s3-secret-key"), "user", "alice",
		slog.Any("stats", map[string]any{"my/stat": []any{"tok-secret-4242"}, "n": 1}), "header", "X-Api-Key: hdr-secret-key")
	out := buf.String()
	noSecret(t, "the log", out, "hunter2-secret", basic, "tok-secret-4242", "redis-pw-secret", "s3-secret-key", "pg-secret", "pg-secret2", "hdr-secret-key")
	for _, want := range []string{"Basic ****", "postgresql://u:****@db/x?password=****", "user=alice", "crawl=****"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the log: %s", want, out)
		}
	}
}
