package warc_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	iawarc "github.com/internetarchive/gowarc"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// exchange is one download to write.
type exchange struct {
	req  *types.Request
	resp *types.Response
}

func exchanges(n int) []exchange {
	var out []exchange
	for i := range n {
		u := fmt.Sprintf("http://example.com/page/%d?q=%d", i, i)
		out = append(out, exchange{
			req: &types.Request{URL: u, Headers: http.Header{"Accept": {"text/html"}}},
			resp: &types.Response{URL: u, Status: 200, Protocol: "HTTP/1.1",
				Headers: http.Header{"Content-Type": {"text/html"}},
				Body:    []byte(fmt.Sprintf("<html><body>page %d %s</body></html>", i, strings.Repeat("x", i*37)))},
		})
	}
	out = append(out, exchange{
		req: &types.Request{Method: "POST", URL: "http://example.com/form", Body: []byte("a=1&b=2"),
			Headers: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}},
		resp: &types.Response{URL: "http://example.com/form", Status: 302, Protocol: "HTTP/1.1",
			Headers: http.Header{"Location": {"/done"}}},
	})
	return out
}

func write(t *testing.T, path string, maxSize int64, xs []exchange) *warc.Writer {
	t.Helper()
	w, err := warc.Create(path, maxSize, warc.Field{Name: "isPartOf", Value: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if _, err := w.Write(x.req, nil, x.resp, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w
}

// continueWith continues the recording at path (warc.Continue) with x and closes it.
func continueWith(t *testing.T, path string, x exchange) *warc.Writer {
	t.Helper()
	w, err := warc.Continue(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(x.req, nil, x.resp, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w
}

// iaRecord is a record as github.com/internetarchive/gowarc reads it.
type iaRecord struct {
	typ, uri, id, concurrentTo, payloadDigest, blockDigest string
	block                                                  []byte
}

// readIA reads path with the Internet Archive's WARC library, not the one that wrote it.
func readIA(t *testing.T, path string) []iaRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := iawarc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []iaRecord
	for {
		rec, err := r.ReadRecord()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", path, len(out), err)
		}
		if rec.Version != "WARC/1.1" {
			t.Errorf("record %d: version %q, want WARC/1.1", len(out), rec.Version)
		}
		if _, err := rec.Content.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		block, err := io.ReadAll(rec.Content)
		if err != nil {
			t.Fatal(err)
		}
		rec.Content.Close()
		out = append(out, iaRecord{
			typ: rec.Header.Get("WARC-Type"), uri: rec.Header.Get("WARC-Target-URI"),
			id: rec.Header.Get("WARC-Record-ID"), concurrentTo: rec.Header.Get("WARC-Concurrent-To"),
			payloadDigest: rec.Header.Get("WARC-Payload-Digest"), blockDigest: rec.Header.Get("WARC-Block-Digest"),
			block: block,
		})
	}
}

func sha1b32(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// payload returns an HTTP message's body (after the empty line).
func payload(t *testing.T, block []byte) []byte {
	t.Helper()
	_, body, ok := bytes.Cut(block, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("no end of the HTTP header in %q", block)
	}
	return body
}

// TestWriterReadsInAnotherLibrary checks a written archive with the Internet Archive's
// reader: a warcinfo record, then a request and a response record per download, with
// their URIs, cross-references, and block and payload digests that match the bytes.
func TestWriterReadsInAnotherLibrary(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "crawl.warc.gz")
	xs := exchanges(5)
	write(t, path, 0, xs)
	recs := readIA(t, path)
	if len(recs) != 1+2*len(xs) {
		t.Fatalf("%d records, want %d", len(recs), 1+2*len(xs))
	}
	if recs[0].typ != "warcinfo" || !bytes.Contains(recs[0].block, []byte("software: jscrawl/")) ||
		!bytes.Contains(recs[0].block, []byte("isPartOf: test")) {
		t.Errorf("first record: %s %q, want the warcinfo", recs[0].typ, recs[0].block)
	}
	for i, x := range xs {
		q, p := recs[1+2*i], recs[2+2*i]
		if q.typ != "request" || p.typ != "response" {
			t.Fatalf("records %d, %d: %s, %s, want request, response", 1+2*i, 2+2*i, q.typ, p.typ)
		}
		if q.uri != x.req.URL || p.uri != x.req.URL {
			t.Errorf("download %d: URIs %q, %q, want %q", i, q.uri, p.uri, x.req.URL)
		}
		if q.concurrentTo != p.id || p.concurrentTo != q.id {
			t.Errorf("download %d: request %s names %s, response %s names %s", i, q.id, q.concurrentTo, p.id, p.concurrentTo)
		}
		for _, r := range []iaRecord{q, p} {
			if r.blockDigest != sha1b32(r.block) {
				t.Errorf("download %d %s: WARC-Block-Digest %s, the block's is %s", i, r.typ, r.blockDigest, sha1b32(r.block))
			}
		}
		if got := payload(t, p.block); !bytes.Equal(got, x.resp.Body) || p.payloadDigest != sha1b32(x.resp.Body) {
			t.Errorf("download %d: payload %q digest %s, want %q digest %s", i, got, p.payloadDigest, x.resp.Body, sha1b32(x.resp.Body))
		}
		if got := payload(t, q.block); !bytes.Equal(got, x.req.Body) {
			t.Errorf("download %d: request body %q, want %q", i, got, x.req.Body)
		}
		// The HTTP messages parse as such.
		if _, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(q.block))); err != nil {
			t.Errorf("download %d: request block: %v", i, err)
		}
		if resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(p.block)), nil); err != nil || resp.StatusCode != x.resp.Status {
			t.Errorf("download %d: response block: %v, status %v", i, err, resp)
		}
	}
}

// TestRotation: past WARC_MAX_SIZE the writer starts crawl-00001.warc.gz, ...; each file
// starts with a warcinfo record and reads cleanly on its own; the Archive of the first
// name serves every download, and a new recording removes the earlier rotation.
func TestRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.warc.gz")
	xs := exchanges(30)
	w := write(t, path, 4096, xs)
	files := w.Files()
	if len(files) < 3 {
		t.Fatalf("files %v, want 3 or more at 4 KiB each", files)
	}
	for i, f := range files {
		want := path
		if i > 0 {
			want = filepath.Join(dir, fmt.Sprintf("crawl-%05d.warc.gz", i))
		}
		if f != want {
			t.Errorf("file %d is %s, want %s", i, f, want)
		}
	}
	total := 0
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		recs := readIA(t, f)
		if recs[0].typ != "warcinfo" {
			t.Errorf("%s starts with %s", f, recs[0].typ)
		}
		if st.Size() > 4096+2048 { // one record may pass the estimate
			t.Errorf("%s: %d bytes", f, st.Size())
		}
		total += len(recs) - 1
	}
	if total != 2*len(xs) {
		t.Errorf("%d request and response records in all, want %d", total, 2*len(xs))
	}
	if got := warc.Rotated(path); !slices.Equal(got, files[1:]) {
		t.Errorf("Rotated = %v, want %v", got, files[1:])
	}
	a, err := warc.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Len() != len(xs) {
		t.Errorf("archive of %s has %d responses, want %d", path, a.Len(), len(xs))
	}
	for _, x := range xs {
		resp, ok, err := a.Lookup(x.req)
		if err != nil || !ok || !bytes.Equal(resp.Body, x.resp.Body) {
			t.Errorf("Lookup %s: %v %v", x.req.URL, ok, err)
		}
	}
	// Continuing (a resumed job) writes the next file and keeps the others.
	w = continueWith(t, path, xs[0])
	next := filepath.Join(dir, fmt.Sprintf("crawl-%05d.warc.gz", len(files)))
	if got := w.Files(); !slices.Equal(got, []string{next}) || !slices.Equal(warc.Rotated(path), append(files[1:], next)) {
		t.Errorf("Continue wrote %v; rotation %v, want %s after %v", got, warc.Rotated(path), next, files)
	}
	// Recording again to the same name replaces the rotation.
	write(t, path, 0, xs[:1])
	if got := warc.Rotated(path); len(got) != 0 {
		t.Errorf("after a new recording, the old rotation is left: %v", got)
	}
}

// TestArchiveLookup: a response matches by method, URL (canonical: query order) and body;
// repeated requests get the recorded responses in order, then the last again.
func TestArchiveLookup(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.warc.gz")
	u := "http://example.com/p?b=2&a=1"
	resp := func(body string) *types.Response {
		return &types.Response{URL: u, Status: 200, Headers: http.Header{"X-N": {body}}, Body: []byte(body)}
	}
	big := strings.Repeat("a large body that spans more than one read of the file ", 20000)
	write(t, path, 0, []exchange{
		{&types.Request{URL: "http://example.com/big"}, &types.Response{Status: 200, Headers: http.Header{"X-N": {"big"}}, Body: []byte(big)}},
		{&types.Request{URL: u}, resp("first")},
		{&types.Request{URL: u, Method: "POST", Body: []byte("x=1")}, resp("post x=1")},
		{&types.Request{URL: u}, resp("second")},
		{&types.Request{URL: u, Method: "POST", Body: []byte("x=2")}, resp("post x=2")},
	})
	a, err := warc.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, tc := range []struct {
		req  *types.Request
		want string // "" for a miss
	}{
		{&types.Request{URL: "http://example.com/p?a=1&b=2"}, "first"},
		{&types.Request{URL: "http://example.com/big"}, "big"},
		{&types.Request{URL: u, Method: "POST", Body: []byte("x=2")}, "post x=2"},
		{&types.Request{URL: u}, "second"},
		{&types.Request{URL: u}, "second"},
		{&types.Request{URL: u, Method: "POST", Body: []byte("x=1")}, "post x=1"},
		{&types.Request{URL: u, Method: "POST", Body: []byte("x=3")}, ""},
		{&types.Request{URL: u, Method: "PUT", Body: []byte("x=1")}, ""},
		{&types.Request{URL: "http://example.com/other"}, ""},
	} {
		got, ok, err := a.Lookup(tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "" {
			if ok {
				t.Errorf("%s %s %s: found %q, want a miss", tc.req.HTTPMethod(), tc.req.URL, tc.req.Body, got.Body)
			}
			continue
		}
		want := tc.want
		if want == "big" {
			want = big
		}
		if !ok || string(got.Body) != want || got.Headers.Get("X-N") != tc.want || got.Status != 200 || got.Request != tc.req {
			t.Errorf("%s %s %s: found %v, status %d, header %q, a body of %d bytes, want %q", tc.req.HTTPMethod(), tc.req.URL, tc.req.Body,
				ok, got.Status, got.Headers.Get("X-N"), len(got.Body), tc.want)
		}
	}
}

// TestContinueRecoversOpenFile: a file a killed crawl left open (NAME.open), cut inside
// its last record or not, is made NAME by Continue (the cut record dropped, the rest read
// by both libraries), and the new records go to the next file; Create removes it.
func TestContinueRecoversOpenFile(t *testing.T) {
	t.Parallel()
	xs := exchanges(3)
	for _, tc := range []struct {
		name string
		cut  int64 // bytes cut off the end
		want int   // responses left
	}{
		{"whole", 0, len(xs)},
		{"cut in the last record", 40, len(xs) - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "crawl.warc.gz")
			write(t, path, 0, xs)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, st.Size()-tc.cut); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path, path+".open"); err != nil {
				t.Fatal(err)
			}
			w := continueWith(t, path, xs[0])
			if got, want := w.Files(), []string{filepath.Join(dir, "crawl-00001.warc.gz")}; !slices.Equal(got, want) {
				t.Errorf("Continue wrote %v, want %v", got, want)
			}
			if _, err := os.Stat(path + ".open"); err == nil {
				t.Error("the open file is left")
			}
			a, err := warc.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.Len() != tc.want+1 {
				t.Errorf("the archives have %d responses, want %d recovered + 1", a.Len(), tc.want)
			}
			responses := 0
			for _, r := range readIA(t, path) {
				if r.typ == "response" {
					responses++
				}
			}
			if responses != tc.want {
				t.Errorf("the recovered file has %d responses in the other reader, want %d", responses, tc.want)
			}
			// A new recording removes a file left open as well as the rotation.
			if err := os.WriteFile(path+".open", []byte("stale"), 0o644); err != nil {
				t.Fatal(err)
			}
			write(t, path, 0, xs[:1])
			if _, err := os.Stat(path + ".open"); err == nil {
				t.Error("Create left the open file")
			}
		})
	}
}

// TestArchiveStreamsRecords: opening an archive of a 64 MiB response record allocates a
// small part of it (the index skips the block as it streams, gowarc cached it), and
// LookupStream hands the body over as a stream of the declared length. Not parallel:
// it counts the allocations of the whole process.
func TestArchiveStreamsRecords(t *testing.T) {
	const size = 64 << 20
	path := filepath.Join(t.TempDir(), "big.warc.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", size)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	fmt.Fprintf(zw, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/big\r\n"+
		"WARC-Record-ID: <urn:uuid:6c4b4f0e-0000-4000-8000-000000000001>\r\n"+
		"Content-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s", len(head)+size, head)
	zero := make([]byte, 1<<20)
	for range size >> 20 {
		_, _ = zw.Write(zero)
	}
	_, _ = zw.Write([]byte("\r\n\r\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	a, err := warc.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rec, ok, err := a.LookupStream(&types.Request{URL: "http://example.com/big"})
	if !ok || err != nil {
		t.Fatalf("LookupStream: %v, %v", ok, err)
	}
	n, err := io.CopyN(io.Discard, rec.HTTP.Body, 1<<20)
	_ = rec.HTTP.Body.Close()
	goruntime.ReadMemStats(&after)
	if n != 1<<20 || err != nil || rec.HTTP.ContentLength != size || rec.URL != "http://example.com/big" {
		t.Errorf("read %d bytes (%v) of a body of %d at %s", n, err, rec.HTTP.ContentLength, rec.URL)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("opening and reading 1 MiB of a %d-byte record allocated %d bytes", size, alloc)
	}
}

// TestArchiveLyingContentLength: a response record whose HTTP Content-Length is larger
// than its block fails to read instead of having a reader trust it.
func TestArchiveLyingContentLength(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lie.warc")
	msg := "HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\nsmall"
	doc := fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/lie\r\n"+
		"WARC-Record-ID: <urn:uuid:6c4b4f0e-0000-4000-8000-000000000002>\r\n"+
		"Content-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", len(msg), msg)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := warc.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, ok, err := a.LookupStream(&types.Request{URL: "http://example.com/lie"})
	if !ok || err == nil || !strings.Contains(err.Error(), "declared Content-Length 1099511627776 larger than the record's block") {
		t.Errorf("LookupStream: %v, %v; want the Content-Length refused", ok, err)
	}
}
