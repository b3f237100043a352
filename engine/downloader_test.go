package engine_test

import (
	"bytes"
	"compress/flate"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
	"github.com/klauspost/compress/zstd"
)

// TestGzipBombMemoryBounded downloads 1 GiB of gzipped zeros with DOWNLOAD_MAXSIZE 10 MiB:
// the download fails with MaxSizeError having allocated little more than the limit. It
// does not run in parallel, so the process's allocation counter is the download's.
func TestGzipBombMemoryBounded(t *testing.T) {
	bomb := gzipBomb()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	}))
	defer srv.Close()
	stats := engine.NewStats()
	d := engine.NewHTTPDownloader(settings(t, map[string]any{types.DownloadMaxSize: 10 << 20}), nil, stats)
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	_, err := d.Fetch(context.Background(), &types.Request{URL: srv.URL})
	goruntime.ReadMemStats(&after)
	if engine.ErrorName(err) != engine.NameMaxSize {
		t.Fatalf("err = %v, want a MaxSizeError", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d MiB for a 10 MiB limit", got>>20)
	} else {
		t.Logf("allocated %d MiB for a 10 MiB limit", got>>20)
	}
	if v, _ := stats.Get("download/maxsize").(int64); v != 1 {
		t.Errorf("download/maxsize = %d, want 1", v)
	}
}

func TestDownloadBodiesAndSchemes(t *testing.T) {
	t.Parallel()
	srv := enginetest.NewServer(t)
	zsrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		zw, _ := zstd.NewWriter(&b)
		io.WriteString(zw, `{"zstd":true}`)
		zw.Close()
		w.Header().Set("Content-Encoding", "zstd")
		w.Write(b.Bytes())
	}))
	t.Cleanup(zsrv.Close)
	rawDeflate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, flate.DefaultCompression)
		io.WriteString(fw, "raw deflate, no zlib header")
		fw.Close()
		w.Header().Set("Content-Encoding", "deflate")
		w.Write(b.Bytes())
	}))
	t.Cleanup(rawDeflate.Close)
	// Empty bodies labelled with an encoding: HEAD, 204 and an empty chunked body.
	emptyEnc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", r.URL.Query().Get("enc"))
		if r.URL.Query().Get("status") == "204" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.(http.Flusher).Flush()
	}))
	t.Cleanup(emptyEnc.Close)
	// A server promising more than DOWNLOAD_MAXSIZE, then sending nothing: only checking
	// Content-Length before reading fails fast instead of timing out.
	promise := rawServer(t, func(c net.Conn, done <-chan struct{}) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\n\r\n")
		<-done
	})
	trickle := rawServer(t, func(c net.Conn, done <-chan struct{}) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if _, err := io.WriteString(c, "."); err != nil {
				return
			}
		}
	})
	silent := rawServer(t, func(c net.Conn, done <-chan struct{}) { <-done })
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte("<h1>local</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(page)
	files := map[string]any{types.DownloadSchemes: []any{"http", "https", "file"}}
	data := map[string]any{types.DownloadSchemes: []any{"data"}}
	for _, tc := range []struct {
		name    string
		req     types.Request
		kv      map[string]any
		errName string
		status  int
		body    string
		ctype   string
	}{
		{"zstd", types.Request{URL: zsrv.URL}, nil, "", 200, `{"zstd":true}`, ""},
		{"raw deflate", types.Request{URL: rawDeflate.URL}, nil, "", 200, "raw deflate, no zlib header", ""},
		{"HEAD with Content-Encoding", types.Request{URL: zsrv.URL, Method: "HEAD"}, nil, "", 200, "", ""},
		{"204 with Content-Encoding", types.Request{URL: emptyEnc.URL + "?enc=gzip&status=204"}, nil, "", 204, "", ""},
		{"empty gzip body", types.Request{URL: emptyEnc.URL + "?enc=gzip"}, nil, "", 200, "", ""},
		{"empty br body", types.Request{URL: emptyEnc.URL + "?enc=br"}, nil, "", 200, "", ""},
		{"empty deflate body", types.Request{URL: emptyEnc.URL + "?enc=deflate"}, nil, "", 200, "", ""},
		{"empty zstd body", types.Request{URL: emptyEnc.URL + "?enc=zstd"}, nil, "", 200, "", ""},
		{"Content-Length over maxsize fails before reading", types.Request{URL: promise}, map[string]any{types.DownloadMaxSize: 1000, types.DownloadTimeout: 30}, "MaxSizeError", 0, "", ""},
		{"meta.downloadMaxsize", types.Request{URL: srv.URL + "/big?bytes=5000", Meta: types.Item{{Key: "downloadMaxsize", Value: 1000.0}}}, nil, "MaxSizeError", 0, "", ""},
		// DOWNLOAD_MAXSIZE is the operator's ceiling (types.SpiderTightens): the spider's meta may lower it only.
		{"meta.downloadMaxsize 0 does not lift the limit", types.Request{URL: srv.URL + "/big?bytes=5000", Meta: types.Item{{Key: "downloadMaxsize", Value: 0}}}, map[string]any{types.DownloadMaxSize: 1000}, "MaxSizeError", 0, "", ""},
		{"meta.downloadMaxsize does not raise the limit", types.Request{URL: srv.URL + "/big?bytes=5000", Meta: types.Item{{Key: "downloadMaxsize", Value: 10000.0}}}, map[string]any{types.DownloadMaxSize: 1000}, "MaxSizeError", 0, "", ""},
		{"meta.downloadMaxsize sets a limit where there is none", types.Request{URL: srv.URL + "/big?bytes=5000", Meta: types.Item{{Key: "downloadMaxsize", Value: 1000.0}}}, map[string]any{types.DownloadMaxSize: 0}, "MaxSizeError", 0, "", ""},
		{"meta.downloadTimeout", types.Request{URL: srv.URL + "/delay?ms=60000", Meta: types.Item{{Key: "downloadTimeout", Value: 0.05}}}, map[string]any{types.RetryEnabled: false}, "TimeoutError", 0, "", ""},
		{"DOWNLOAD_TIMEOUT over a byte per 100 ms forever", types.Request{URL: trickle}, map[string]any{types.DownloadTimeout: 0.5, types.RetryEnabled: false}, "TimeoutError", 0, "", ""},
		{"DOWNLOAD_TIMEOUT over a server that never answers", types.Request{URL: silent}, map[string]any{types.DownloadTimeout: 0.5, types.RetryEnabled: false}, "TimeoutError", 0, "", ""},
		{"file", types.Request{URL: fileURL}, files, "", 200, "<h1>local</h1>", "text/html; charset=utf-8"},
		{"file missing", types.Request{URL: fileURL + ".gone"}, files, "", 404, "", ""},
		{"file over maxsize", types.Request{URL: fileURL}, map[string]any{types.DownloadSchemes: []any{"file"}, types.DownloadMaxSize: 5}, "MaxSizeError", 0, "", ""},
		{"file not enabled", types.Request{URL: fileURL}, nil, "NotSupported", 0, "", ""},
		{"data percent-encoded", types.Request{URL: "data:text/html;charset=utf-8,%3Ch1%3Ehi%3C%2Fh1%3E"}, data, "", 200, "<h1>hi</h1>", "text/html; charset=utf-8"},
		{"data base64", types.Request{URL: "data:application/json;base64,eyJhIjoxfQ=="}, data, "", 200, `{"a":1}`, "application/json"},
		{"data default type", types.Request{URL: "data:,A%20brief%20note"}, data, "", 200, "A brief note", "text/plain; charset=US-ASCII"},
		{"data charset only", types.Request{URL: "data:;charset=utf-8,caf%C3%A9"}, data, "", 200, "café", "text/plain; charset=utf-8"},
		{"data without comma", types.Request{URL: "data:text/plain;base64"}, data, "InvalidURLError", 0, "", ""},
		{"data bad base64", types.Request{URL: "data:;base64,!!!"}, data, "InvalidURLError", 0, "", ""},
		{"data not enabled", types.Request{URL: "data:,x"}, nil, "NotSupported", 0, "", ""},
		{"listed scheme without handler", types.Request{URL: "ftp://example.com/"}, map[string]any{types.DownloadSchemes: []any{"ftp"}}, "NotSupported", 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := newEngine(t, &enginetest.Spider{}, tc.kv)
			r := tc.req
			resp, err := e.Download(context.Background(), &r)
			if tc.errName != "" {
				if n := engine.ErrorName(err); n != tc.errName {
					t.Fatalf("ErrorName = %q, want %s (%v)", n, tc.errName, err)
				}
				if stat(e, "downloader/exception_type_count/"+tc.errName) != 1 {
					t.Errorf("no exception stat: %v", e.Stats().Snapshot())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.status || !strings.HasPrefix(string(resp.Body), tc.body) || (tc.body == "" && len(resp.Body) > 0) {
				t.Errorf("got %d %q, want %d %q", resp.Status, resp.Body, tc.status, tc.body)
			}
			if tc.ctype != "" && resp.Headers.Get("Content-Type") != tc.ctype {
				t.Errorf("Content-Type = %q, want %q", resp.Headers.Get("Content-Type"), tc.ctype)
			}
			if len(resp.Body) > 0 && resp.Headers.Get("Content-Encoding") != "" {
				t.Error("Content-Encoding kept after decoding")
			}
			if stat(e, "downloader/response_status_count/"+itoa(tc.status)) != 1 {
				t.Errorf("no status stat: %v", e.Stats().Snapshot())
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDownloadHandlersSetting: DOWNLOAD_HANDLERS maps schemes to handlers by name over the
// defaults; null takes a scheme's handler away and an unknown name is named in the error.
func TestDownloadHandlersSetting(t *testing.T) {
	t.Parallel()
	srv := enginetest.NewServer(t)
	page := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(page, []byte("<h1>local</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(page)
	all := []any{"http", "https", "file", "data"}
	for _, tc := range []struct {
		name     string
		url      string
		handlers map[string]any
		wantErr  string // "" for a 200
	}{
		{"defaults: file", fileURL, nil, ""},
		{"defaults: http", srv.URL + "/", nil, ""},
		{"null disables file", fileURL, map[string]any{"file": nil}, `no download handler for URL scheme "file" (DOWNLOAD_HANDLERS disables it)`},
		{"empty name disables data", "data:,x", map[string]any{"data": ""}, `no download handler for URL scheme "data" (DOWNLOAD_HANDLERS disables it)`},
		{"disabling file leaves http", srv.URL + "/", map[string]any{"file": nil}, ""},
		{"unknown handler", srv.URL + "/", map[string]any{"http": "CurlHandler"}, `DOWNLOAD_HANDLERS names an unknown handler "CurlHandler" (known: DataURIDownloadHandler, FileDownloadHandler, HTTPDownloadHandler)`},
		{"scheme names are case-insensitive", fileURL, map[string]any{"FILE": "FileDownloadHandler"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.DownloadSchemes: all, types.DownloadHandlers: tc.handlers})
			resp, err := e.Download(context.Background(), &types.Request{URL: tc.url})
			if tc.wantErr == "" {
				if err != nil || resp.Status != 200 {
					t.Fatalf("Download = %v, %v; want a 200", resp, err)
				}
				return
			}
			if engine.ErrorName(err) != engine.NameNotSupported || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Download error = %v (%s), want NotSupported with %q", err, engine.ErrorName(err), tc.wantErr)
			}
		})
	}
}

// TestDownloadWarnSize checks the warning, logged once per response, past DOWNLOAD_WARNSIZE
// for a body without Content-Length, and for an announced size.
func TestDownloadWarnSize(t *testing.T) {
	t.Parallel()
	srv := enginetest.NewServer(t)
	for _, path := range []string{"/trickle?chunks=50&ms=0", "/big?bytes=5000"} {
		e, logs := newEngine(t, &enginetest.Spider{}, map[string]any{types.DownloadWarnSize: 100})
		if _, err := e.Download(context.Background(), &types.Request{URL: srv.URL + path}); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(logs.String(), "download warn size (100) in request <GET "+srv.URL+path+">"); n != 1 {
			t.Errorf("%s: %d warnings, want 1:\n%s", path, n, logs)
		}
	}
}

// TestDownloadHTTP2AndTLS checks that HTTP/2 is used where the server offers it, and that
// a self-signed certificate fails unless DOWNLOAD_VERIFY_TLS is false.
func TestDownloadHTTP2AndTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.DownloadVerifyTLS: false})
	resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Protocol != "HTTP/2.0" || string(resp.Body) != "HTTP/2.0" {
		t.Errorf("Protocol = %q, server saw %q, want HTTP/2.0", resp.Protocol, resp.Body)
	}
	e, _ = newEngine(t, &enginetest.Spider{}, map[string]any{types.RetryEnabled: false})
	_, err = e.Download(context.Background(), &types.Request{URL: srv.URL})
	if engine.ErrorName(err) != engine.NameSSL || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("err = %v (%s), want an SSLError about the certificate", err, engine.ErrorName(err))
	}
}
