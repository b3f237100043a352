// Package enginetest provides test helpers for the engine and its users: a local HTTP
// server with the routes crawls need (NewServer, Start, StartWith), a fake Spider whose
// behaviour is given by function fields, a Buffer for logs and ClosedAddr, and
// GuardedSite, an HTTPS site that refuses clients that are not a browser.
package enginetest

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// DefaultLinkPages is the size of the /links graph when ?total= is not given.
const DefaultLinkPages = 10

// Server is a test HTTP server that records what it served. Embeds the *httptest.Server.
type Server struct {
	*httptest.Server
	extra *http.ServeMux // StartWith's routes, before the standard ones

	mu          sync.Mutex
	hits        map[string]int
	arrivals    map[string][]time.Time
	inFlight    int
	maxInFlight int
}

// NewServer starts a Server for the test (closed by t.Cleanup) and returns its
// *httptest.Server. Routes:
//
//	/                  HTML linking to /links/0, /item/1 and /item/2
//	/links/{n}         page n of a graph of ?total= pages (default DefaultLinkPages); it
//	                   links to pages n+1, n+2 and 2n (mod total), keeping ?total=
//	/status/{code}     an empty-ish response with that status
//	/redirect/{n}      302 to /redirect/{n-1}; /redirect/0 is a 200
//	/redirect-to?url=U&status=S  one redirect to U with status S (default 302)
//	/redirect-loop     302 to /redirect-loop2, which redirects back
//	/delay?ms=N        a 200 after N ms (or when the client gives up)
//	/trickle?chunks=N&ms=M  N body chunks M ms apart
//	/gzip, /deflate, /brotli  a JSON body in that Content-Encoding
//	/big?bytes=N[&gzip=1]     N bytes of body, optionally gzipped
//	/robots.txt        disallows /private
//	/echo              the request's method, URL, headers and body as JSON
//	/item/{n}          an HTML item page with <h1>Item n</h1> and a price
func NewServer(t testing.TB) *httptest.Server { return Start(t).Server }

// Start is NewServer returning the *Server, to inspect what it served.
func Start(t testing.TB) *Server { return StartWith(t, nil) }

// StartWith is Start with a test's own routes besides the standard ones: a request that a
// pattern of mux matches goes to mux (so "/{$}" replaces the home page), any other to the
// standard routes. mux may be nil. Hits and arrivals count both.
func StartWith(t testing.TB, mux *http.ServeMux) *Server {
	t.Helper()
	s := &Server{extra: mux, hits: map[string]int{}, arrivals: map[string][]time.Time{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Hits returns how many requests for path (without query) the server received.
func (s *Server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// TotalHits returns the number of requests the server received.
func (s *Server) TotalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += h
	}
	return n
}

// Arrivals returns when the requests for path arrived, in order.
func (s *Server) Arrivals(path string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.arrivals[path]...)
}

// MaxInFlight returns the largest number of requests the server handled at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.arrivals[r.URL.Path] = append(s.arrivals[r.URL.Path], time.Now())
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if s.extra != nil {
		if _, pattern := s.extra.Handler(r); pattern != "" {
			s.extra.ServeHTTP(w, r)
			return
		}
	}
	route(w, r)
}

var itemRE = regexp.MustCompile(`^/item/(\d+)$`)

func route(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	q := r.URL.Query()
	switch {
	case p == "/":
		html(w, "Home", `<a href="/links/0">links</a> <a href="/item/1">one</a> <a href="/item/2">two</a>`)
	case strings.HasPrefix(p, "/links/"):
		n, err := strconv.Atoi(strings.TrimPrefix(p, "/links/"))
		total := DefaultLinkPages
		if v, err := strconv.Atoi(q.Get("total")); err == nil && v > 0 {
			total = v
		}
		if err != nil || n < 0 || n >= total {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		for _, m := range []int{(n + 1) % total, (n + 2) % total, (2 * n) % total} {
			fmt.Fprintf(&b, `<a href="/links/%d?total=%d">page %d</a> `, m, total, m)
		}
		html(w, fmt.Sprintf("Links %d", n), b.String())
	case strings.HasPrefix(p, "/status/"):
		code, err := strconv.Atoi(strings.TrimPrefix(p, "/status/"))
		if err != nil || code < 100 || code > 999 {
			http.Error(w, "bad status", http.StatusBadRequest)
			return
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, "status %d", code)
	case strings.HasPrefix(p, "/redirect/"):
		n, err := strconv.Atoi(strings.TrimPrefix(p, "/redirect/"))
		if err != nil || n < 0 {
			http.NotFound(w, r)
			return
		}
		if n == 0 {
			html(w, "Redirected", "done")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
	case p == "/redirect-to":
		code, err := strconv.Atoi(q.Get("status"))
		if err != nil {
			code = http.StatusFound
		}
		http.Redirect(w, r, q.Get("url"), code)
	case p == "/redirect-loop":
		http.Redirect(w, r, "/redirect-loop2", http.StatusFound)
	case p == "/redirect-loop2":
		http.Redirect(w, r, "/redirect-loop", http.StatusFound)
	case p == "/delay":
		ms, _ := strconv.Atoi(q.Get("ms"))
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			html(w, "Delayed", fmt.Sprintf("after %d ms", ms))
		case <-r.Context().Done():
		}
	case p == "/trickle":
		chunks, _ := strconv.Atoi(q.Get("chunks"))
		ms, _ := strconv.Atoi(q.Get("ms"))
		w.Header().Set("Content-Type", "text/plain")
		fl, _ := w.(http.Flusher)
		for i := 0; i < chunks; i++ {
			fmt.Fprintf(w, "chunk %d\n", i)
			if fl != nil {
				fl.Flush()
			}
			t := time.NewTimer(time.Duration(ms) * time.Millisecond)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
	case p == "/gzip":
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		fmt.Fprint(zw, `{"gzipped":true}`)
		zw.Close()
		encoded(w, "gzip", b.Bytes())
	case p == "/deflate":
		encoded(w, "deflate", zlibBytes([]byte(`{"deflated":true}`)))
	case p == "/brotli":
		var b bytes.Buffer
		bw := brotli.NewWriter(&b)
		fmt.Fprint(bw, `{"brotli":true}`)
		bw.Close()
		encoded(w, "br", b.Bytes())
	case p == "/big":
		n, _ := strconv.Atoi(q.Get("bytes"))
		body := bytes.Repeat([]byte("x"), max(n, 0))
		if q.Get("gzip") != "" {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(body)
			zw.Close()
			encoded(w, "gzip", b.Bytes())
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(body)
	case p == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	case p == "/echo":
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"method":  r.Method,
			"url":     r.URL.String(),
			"headers": r.Header,
			"body":    string(body),
		})
	case itemRE.MatchString(p):
		n := itemRE.FindStringSubmatch(p)[1]
		html(w, "Item "+n, fmt.Sprintf(`<h1>Item %s</h1><span class="price">%s.99</span>`, n, n))
	default:
		http.NotFound(w, r)
	}
}

func html(w http.ResponseWriter, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>%s</title></head><body>%s</body></html>\n", title, body)
}

func encoded(w http.ResponseWriter, enc string, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Encoding", enc)
	w.Write(b)
}

func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// Buffer is a bytes.Buffer safe for concurrent writes: the log of a crawl.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// ClosedAddr returns a loopback host:port where nothing listens (a port just released).
func ClosedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
