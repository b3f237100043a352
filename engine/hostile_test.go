package engine_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// rawServer serves every connection with handle on a raw TCP listener, for answers
// net/http would refuse to send. done is closed when the test ends, to stop handlers that
// would otherwise run forever. It returns the base URL.
func rawServer(t testing.TB, handle func(c net.Conn, done <-chan struct{})) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				// Read the request head so that closing does not reset for unread input.
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				handle(c, done)
			})
		}
	})
	t.Cleanup(func() {
		close(done)
		l.Close()
		wg.Wait()
	})
	return "http://" + l.Addr().String()
}

// reply writes s and returns.
func reply(s string) func(net.Conn, <-chan struct{}) {
	return func(c net.Conn, _ <-chan struct{}) { io.WriteString(c, s) }
}

// after returns a channel closed after d (a deadline for a hostile handler, not a
// synchronisation).
func after(d time.Duration) <-chan time.Time { return time.After(d) }

// gzipBomb is 1 GiB of zeros gzipped into about 1 MiB: 1024 gzip members of 1 MiB of
// zeros each (a gzip reader reads concatenated members as one stream).
var gzipBomb = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return bytes.Repeat(b.Bytes(), 1024)
})

// TestHostileServers runs one crawl against misbehaving servers next to good ones: every
// failure reaches the errback under its name and is counted in
// downloader/exception_type_count/<Name>, and the good pages are parsed. (Redirect loops
// belong to the redirect middleware's tests.)
func TestHostileServers(t *testing.T) {
	t.Parallel()
	good := enginetest.Start(t)
	bigLine := "<html><body><p class=x>" + strings.Repeat("word ", 2<<20) + "</p><a class=end href=/item/1>end</a></body></html>"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bomb":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipBomb())
		case "/bad-gzip":
			w.Header().Set("Content-Encoding", "gzip")
			io.WriteString(w, "this is not gzip data at all")
		case "/bad-zstd":
			w.Header().Set("Content-Encoding", "zstd")
			io.WriteString(w, "this is not zstd data at all")
		case "/big-line":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, bigLine)
		case "/invalid-utf8":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<p>ok \xff\xfe bad</p>")
		}
	}))
	t.Cleanup(hs.Close)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") }))
	t.Cleanup(tlsSrv.Close)

	meta := func(kv ...any) types.Item {
		var it types.Item
		for i := 0; i+1 < len(kv); i += 2 {
			it = append(it, types.Field{Key: kv[i].(string), Value: kv[i+1]})
		}
		return it
	}
	cases := []struct {
		name string
		url  string
		meta types.Item
		want string // error name, or "" for a parsed response
	}{
		{"good page", good.URL + "/item/1", nil, ""},
		{"reset mid-body", rawServer(t, func(c net.Conn, _ <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"+strings.Repeat("x", 1000))
			c.(*net.TCPConn).SetLinger(0)
		}), nil, engine.NameConnectionReset},
		{"never answers", rawServer(t, func(c net.Conn, done <-chan struct{}) { <-done }),
			meta("downloadTimeout", 0.3), engine.NameTimeout},
		{"trickles a byte per 100 ms", rawServer(t, func(c net.Conn, done <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
			for {
				select {
				case <-done:
					return
				case <-after(100 * time.Millisecond):
				}
				if _, err := io.WriteString(c, "x"); err != nil {
					return
				}
			}
		}), meta("downloadTimeout", 0.5), engine.NameTimeout},
		{"endless body", rawServer(t, func(c net.Conn, done <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
			chunk := bytes.Repeat([]byte("y"), 32<<10)
			for {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}), meta("downloadMaxsize", 1<<20), engine.NameMaxSize},
		{"gzip bomb", hs.URL + "/bomb", meta("downloadMaxsize", 10<<20), engine.NameMaxSize},
		{"invalid gzip", hs.URL + "/bad-gzip", nil, engine.NameBadResponse},
		{"invalid zstd", hs.URL + "/bad-zstd", nil, engine.NameBadResponse},
		{"malformed status line", rawServer(t, reply("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n")), nil, engine.NameBadResponse},
		{"not HTTP at all", rawServer(t, reply("SSH-2.0-OpenSSH_9.6\r\n\r\n")), nil, engine.NameBadResponse},
		{"malformed header", rawServer(t, reply("HTTP/1.1 200 OK\r\nthis is no header\r\nContent-Length: 2\r\n\r\nok")), nil, engine.NameBadResponse},
		{"body shorter than Content-Length", rawServer(t, reply("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly 20 bytes here..")), nil, engine.NameBadResponse},
		{"10 MB single-line page", hs.URL + "/big-line", nil, ""},
		{"invalid UTF-8", hs.URL + "/invalid-utf8", nil, ""},
		{"self-signed certificate", tlsSrv.URL + "/", nil, engine.NameSSL},
	}
	var mu sync.Mutex
	got := map[string]string{}
	bodies := map[string]int{}
	sp := &enginetest.Spider{
		StartFunc: func(ctx context.Context, emit engine.Emit) error {
			for _, tc := range cases {
				emit(types.Output{Request: &types.Request{URL: tc.url, Errback: "failed", Meta: tc.meta, DontFilter: true}})
			}
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			mu.Lock()
			defer mu.Unlock()
			got[resp.Request.URL] = "parsed"
			bodies[resp.Request.URL] = len(resp.Body)
			return nil
		},
		ErrbackFunc: func(ctx context.Context, f *types.Failure, emit engine.Emit) error {
			mu.Lock()
			defer mu.Unlock()
			got[f.Request.URL] = f.Name
			return nil
		},
	}
	e, _ := crawl(t, sp, map[string]any{types.RetryEnabled: false, types.ConcurrentRequests: 32, types.ConcurrentRequestsPerDomain: 32})
	counts := map[string]int64{}
	for _, tc := range cases {
		want := tc.want
		if want == "" {
			want = "parsed"
		} else {
			counts[tc.want]++
		}
		if got[tc.url] != want {
			t.Errorf("%s: got %q, want %q", tc.name, got[tc.url], want)
		}
	}
	for name, n := range counts {
		if c := stat(e, "downloader/exception_type_count/"+name); c != n {
			t.Errorf("downloader/exception_type_count/%s = %d, want %d", name, c, n)
		}
	}
	if n := bodies[hs.URL+"/big-line"]; n != len(bigLine) {
		t.Errorf("10 MB page: body of %d bytes, want %d", n, len(bigLine))
	}
	if stat(e, "download/maxsize") != 2 {
		t.Errorf("download/maxsize = %d, want 2", stat(e, "download/maxsize"))
	}
	if t.Failed() {
		t.Log(e.Stats().Snapshot())
	}
}
