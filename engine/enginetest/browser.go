package enginetest

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// RequireBrowser returns the Chromium that browser requests will start (BROWSER_EXECUTABLE
// unset: chromium, chromium-browser or google-chrome on PATH). When there is none the test
// is skipped with the reason, unless the environment has CI=true: then it fails (CI
// installs Debian's chromium: see .ci/run).
func RequireBrowser(t testing.TB) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	unavailable(t, errors.New("no Chromium on PATH: looked for chromium, chromium-browser, google-chrome"),
		"install Debian's chromium package to run this test")
	return ""
}

// ChildProcesses returns the pids of the processes whose parent is pid and whose command
// name contains name (Linux: read from /proc; nil elsewhere).
func ChildProcesses(pid int, name string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var comm string
		ppid := -1
		for line := range strings.SplitSeq(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "Name:"); ok {
				comm = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				ppid, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if ppid == pid && strings.Contains(comm, name) && !isZombie(string(status)) {
			out = append(out, child)
		}
	}
	return out
}

func isZombie(status string) bool {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, "State:"); ok {
			return strings.HasPrefix(strings.TrimSpace(v), "Z")
		}
	}
	return false
}

// BrowserMux serves the pages the browser tests render: /app (products rendered
// client-side from /api/products), /late (an element #late 300 ms after the load event)
// and /missing (a 404 page).
func BrowserMux() *http.ServeMux {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("X-Doc", "main")
			_, _ = w.Write([]byte("<!doctype html><html><head><title>t</title></head><body>" + body + "</body></html>"))
		}
	}
	// Products rendered client-side from a JSON API.
	mux.HandleFunc("/app", page(`<ul id="list"></ul><script>
fetch("/api/products").then(r => r.json()).then(ps => {
  document.getElementById("list").innerHTML = ps.map(p => "<li class=product>" + p + "</li>").join("");
});</script>`))
	mux.HandleFunc("/api/products", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`["apple","pear","plum"]`))
	})
	// An element that appears 300 ms after the load event.
	mux.HandleFunc("/late", page(`<script>
window.addEventListener("load", () => setTimeout(() => {
  const d = document.createElement("div"); d.id = "late"; d.textContent = "arrived"; document.body.appendChild(d);
}, 300));</script>`))
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		page(`<p>not here</p>`)(w, r)
	})
	return mux
}

// BrowserRequest is a browser request for u with the options kv (nil: browser: true).
func BrowserRequest(u string, kv types.Item) *types.Request {
	var v any = true
	if kv != nil {
		v = kv
	}
	return &types.Request{URL: u, Meta: types.Item{{Key: types.MetaBrowser, Value: v}}}
}
