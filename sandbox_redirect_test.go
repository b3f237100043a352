package main

import (
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSpiderNameCannotLeaveFeedFolder: a spider named "../../victim/evil", run with the
// operator's -o 'feeds/%(name)s.jsonl' against the demo site, is refused at load with
// exit 2 and the name rule, and writes nothing: the only file under the test's folder is
// the spider (without the rule, the feed was root/operator/victim/evil.jsonl). The same holds for a name given with -a name=....
func TestSpiderNameCannotLeaveFeedFolder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		src  string // the spider's name line
		args []string
	}{
		{"name in the class", `name = "../../victim/evil";`, nil},
		{"name from -a", `name = "fine";`, []string{"-a", "name=../../victim/evil"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			cwd := filepath.Join(root, "operator", "crawls")
			if err := os.MkdirAll(filepath.Join(cwd, "feeds"), 0o755); err != nil {
				t.Fatal(err)
			}
			spider := writeFile(t, cwd, "evil.ts", strings.Replace(tinySpider, `name = "tiny";`, tc.src, 1))
			args := append([]string{"run", spider, "--demo", "-o", "feeds/%(name)s.jsonl"}, tc.args...)
			_, stderr, code := jscrawlIn(t, cwd, "", args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, `spider name "../../victim/evil"`) || !strings.Contains(stderr, "one path element") {
				t.Errorf("stderr does not state the name rule:\n%s", stderr)
			}
			var files []string
			_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && p != spider {
					files = append(files, p)
				}
				return nil
			})
			if len(files) > 0 {
				t.Errorf("files written: %q", files)
			}
		})
	}
}

// credServer is a loopback test server that records the credentials each path received.
type credServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]http.Header // path → the credential headers it received
}

func newCredServer(t *testing.T, ip string, handler func(w http.ResponseWriter, r *http.Request)) *credServer {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("listen on %s: %v", ip, err)
	}
	s := &credServer{seen: map[string]http.Header{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := http.Header{}
		for _, k := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
			if v := r.Header.Get(k); v != "" {
				h.Set(k, v)
			}
		}
		s.mu.Lock()
		s.seen[r.URL.Path] = h
		s.mu.Unlock()
		handler(w, r)
	}))
	s.Listener.Close()
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *credServer) Seen(path string) (http.Header, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.seen[path]
	return h, ok
}

// TestRedirectCredentialsStayHome: a spider that sets Authorization, Cookie and
// Proxy-Authorization by hand on a request to 127.0.0.1 that redirects to 127.0.0.2: the
// second host gets the redirected request and none of the three, while a redirect on the
// first host keeps them all.
func TestRedirectCredentialsStayHome(t *testing.T) {
	t.Parallel()
	landing := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/land" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><title>landed</title></html>"))
			return
		}
		http.NotFound(w, r)
	}
	other := newCredServer(t, "127.0.0.2", landing)
	home := newCredServer(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/land", http.StatusFound)
		case "/stay":
			http.Redirect(w, r, "/land", http.StatusFound)
		default:
			landing(w, r)
		}
	})
	spider := writeFile(t, t.TempDir(), "creds.ts", `import { Request } from "jscrawl";
export default class Creds {
  name = "creds";
  home = "";
  *start() {
    const headers = { Authorization: "Bearer s3cr3t", Cookie: "session=s3cr3t", "Proxy-Authorization": "Basic czNjcjN0" };
    yield new Request(this.home + "/away", { headers });
    yield new Request(this.home + "/stay", { headers });
  }
  *parse(response) { yield { url: response.url, title: response.css("title::text").get() }; }
}
`)
	stdout, stderr, code := jscrawl(t, "run", spider, "-a", "home="+home.URL, "-o", "-:jsonl")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	if items := jsonLines(t, stdout); len(items) != 2 {
		t.Fatalf("got %d items, want 2\n%s", len(items), stderr)
	}
	for _, tc := range []struct {
		srv  *credServer
		path string
		want int // credential headers received
	}{
		{home, "/away", 3},
		{other, "/land", 0},
		{home, "/stay", 3},
		{home, "/land", 3},
	} {
		h, ok := tc.srv.Seen(tc.path)
		if !ok {
			t.Errorf("%s%s: not requested", tc.srv.URL, tc.path)
			continue
		}
		if len(h) != tc.want {
			t.Errorf("%s%s received %v, want %d credential headers", tc.srv.URL, tc.path, h, tc.want)
		}
	}
}
