package enginetest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

func TestServerRoutes(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path, has, encoding string
		status              int
	}{
		{"/", `href="/links/0"`, "", 200},
		{"/links/3?total=5", `href="/links/4?total=5"`, "", 200},
		{"/links/7?total=5", "", "", 404},
		{"/status/503", "status 503", "", 503},
		{"/redirect/2", "", "", 302},
		{"/redirect/0", "Redirected", "", 200},
		{"/redirect-loop", "", "", 302},
		{"/delay?ms=1", "after 1 ms", "", 200},
		{"/gzip", "", "gzip", 200},
		{"/brotli", "", "br", 200},
		{"/big?bytes=10", "xxxxxxxxxx", "", 200},
		{"/robots.txt", "Disallow: /private", "", 200},
		{"/echo", `"method":"GET"`, "", 200},
		{"/item/7", "<h1>Item 7</h1>", "", 200},
	} {
		req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
		req.Header.Set("Accept-Encoding", "gzip, br")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.has) || resp.Header.Get("Content-Encoding") != tc.encoding {
			t.Errorf("%s: %d %q encoding %q", tc.path, resp.StatusCode, body, resp.Header.Get("Content-Encoding"))
		}
	}
	if srv.Hits("/status/503") != 1 || srv.MaxInFlight() < 1 || len(srv.Arrivals("/echo")) != 1 {
		t.Error("server did not record hits")
	}
}

// TestStartWith: a test's own routes come first ("/{$}" replaces the home page), the
// standard routes serve the rest, and hits count both.
func TestStartWith(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "own home") })
	mux.HandleFunc("/own/{n}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "own "+r.PathValue("n")) })
	srv := enginetest.StartWith(t, mux)
	for path, want := range map[string]string{"/": "own home", "/own/3": "own 3", "/item/7": "<h1>Item 7</h1>", "/status/404": "status 404"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), want) {
			t.Errorf("%s: %q, want it to contain %q", path, body, want)
		}
	}
	if srv.Hits("/own/3") != 1 || srv.Hits("/item/7") != 1 {
		t.Errorf("hits: /own/3 %d, /item/7 %d, want 1 each", srv.Hits("/own/3"), srv.Hits("/item/7"))
	}
}

func TestLinks(t *testing.T) {
	t.Parallel()
	resp := &types.Response{URL: "http://h:1/a/b?x=1", Body: []byte(`<a href="/c">c</a><a href="d#f">d</a><a href="http://o/">o</a>`)}
	got := strings.Join(enginetest.Links(resp), " ")
	if want := "http://h:1/c http://h:1/a/d#f http://o/"; got != want {
		t.Errorf("Links = %s, want %s", got, want)
	}
}
