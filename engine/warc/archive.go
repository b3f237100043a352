package warc

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/jscrawl/jscrawl/types"
	gowarc "github.com/nlnwa/gowarc/v3"
)

// Archive serves the responses of one or more WARC files by request (jscrawl run
// --replay). Open reads every file once and keeps an index: for each request record, the
// key of its method, URL and body (types.Request.FingerprintSum, so the URL compares in
// its canonical form) and where its response record is (the one it names in
// WARC-Concurrent-To, else the next response of the same URL); a response no request
// record names is indexed as a GET of its URL. Open reads the blocks of request records
// only (bounded by maxRequestBlock) and skips those of the others as they stream, so
// the index costs no payload's size in memory. LookupStream reads a response record from
// its file, its body as a stream. Safe for concurrent use.
type Archive struct {
	files []*os.File
	names []string

	mu    sync.Mutex
	index map[[sha1.Size]byte]*exchanges
	count int
}

// exchanges are the responses recorded for one key, in the order they were recorded, and
// how many Lookup has served.
type exchanges struct {
	at     []location
	served int
}

// location is where a response record is: its file (index into Archive.files), offset and
// size in it.
type location struct {
	file         int
	offset, size int64
}

// Open reads the WARC files at paths (gzipped per record or not) and indexes their
// exchanges. A file that was rotated (crawl.warc.gz, then crawl-00001.warc.gz, ...) is
// read whole from its first name.
func Open(paths ...string) (*Archive, error) {
	a := &Archive{index: map[[sha1.Size]byte]*exchanges{}}
	var all []string
	for _, p := range paths {
		all = append(all, p)
		all = append(all, Rotated(p)...)
	}
	x := &scan{responses: map[string]location{}, respURL: map[string]string{}}
	for _, p := range all {
		if slices.Contains(a.names, p) {
			continue
		}
		if err := a.add(p, x); err != nil {
			_ = a.Close()
			return nil, err
		}
	}
	a.pair(x)
	return a, nil
}

// scan is what Open collects from the files before it pairs requests with responses (a
// rotation may put them in two files).
type scan struct {
	requests  []*pending
	responses map[string]location // by record ID
	order     []string            // response IDs in the order read
	respURL   map[string]string   // response ID → target URI
}

// pending is a request record read.
type pending struct {
	key     [sha1.Size]byte
	url     string
	respIDs []string
}

// add reads the records of the file at path into x.
func (a *Archive) add(path string, x *scan) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	fi := len(a.files)
	a.files = append(a.files, f)
	a.names = append(a.names, path)
	rr := newRecordReader(io.NewSectionReader(f, 0, 1<<62), 0)
	// A response record ends where the next record begins, or at the end of the file.
	last := ""
	end := func(offset int64) {
		if last != "" {
			l := x.responses[last]
			l.size = offset - l.offset
			x.responses[last] = l
			last = ""
		}
	}
	for {
		rec, err := rr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("replay: %s: %w", path, err)
		}
		end(rec.Offset)
		switch strings.ToLower(rec.Header.Get(gowarc.WarcType)) {
		case "request":
			p, err := readRequest(rec)
			if err != nil {
				return fmt.Errorf("replay: %s: request record at offset %d: %w", path, rec.Offset, err)
			}
			for _, c := range rec.Header.Values(gowarc.WarcConcurrentTo) {
				p.respIDs = append(p.respIDs, id(c))
			}
			x.requests = append(x.requests, p)
		case "response":
			rid := id(rec.Header.Get(gowarc.WarcRecordID))
			x.responses[rid] = location{file: fi, offset: rec.Offset}
			x.order = append(x.order, rid)
			last = rid
			x.respURL[rid] = rec.Header.Get(gowarc.WarcTargetURI)
		}
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	end(st.Size())
	return nil
}

// pair indexes each request of x under its key with its response: the one it names in
// WARC-Concurrent-To, else the first unused response of its URL. A response no request
// has is indexed as a GET of its URL.
func (a *Archive) pair(x *scan) {
	used := map[string]bool{}
	for _, p := range x.requests {
		id := ""
		for _, c := range p.respIDs {
			if _, ok := x.responses[c]; ok && !used[c] {
				id = c
				break
			}
		}
		if id == "" {
			for _, c := range x.order {
				if !used[c] && x.respURL[c] == p.url {
					id = c
					break
				}
			}
		}
		if id == "" {
			continue
		}
		used[id] = true
		a.put(p.key, x.responses[id])
	}
	for _, id := range x.order {
		if !used[id] {
			req := &types.Request{URL: x.respURL[id]}
			a.put(req.FingerprintSum(), x.responses[id])
		}
	}
}

// newReader returns a reader of the WARC records in r that leaves each block as it is
// (readRequest and read parse the HTTP messages themselves) and reports what breaks the
// standard in Record.Validation, which a replay does not look at. gowarc reads a block
// only when it validates it: it caches the block to check its digest, and discards a
// block it did not cache before the caller can read it.
func newReader(r io.Reader) (*gowarc.WarcFileReader, error) {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	return gowarc.NewWarcFileReaderFromStream(r, 0, gowarc.WithSkipParseBlock())
}

func (a *Archive) put(key [sha1.Size]byte, at location) {
	x := a.index[key]
	if x == nil {
		x = &exchanges{}
		a.index[key] = x
	}
	x.at = append(x.at, at)
	a.count++
}

// maxRequestBlock bounds the block of a request record, which Open reads into memory
// (the request body is part of the key).
const maxRequestBlock = 64 << 20

// readRequest reads a request record's method, URL and body into its key. It splits the
// HTTP message itself: a recorded request body may have no Content-Length.
func readRequest(rec *rawRecord) (*pending, error) {
	if rec.Length > maxRequestBlock {
		return nil, fmt.Errorf("block of %d bytes, more than the %d a request record may have", rec.Length, maxRequestBlock)
	}
	msg, err := io.ReadAll(rec.Block)
	if err != nil {
		return nil, err
	}
	method, _, _ := strings.Cut(string(msg[:min(len(msg), 16)]), " ")
	_, body, ok := bytes.Cut(msg, []byte("\r\n\r\n"))
	if !ok || method == "" {
		return nil, errors.New("not an HTTP request")
	}
	target := rec.Header.Get(gowarc.WarcTargetURI)
	req := &types.Request{Method: method, URL: target, Body: body}
	if b := rec.Header.Get(BrowserHeader); b != "" {
		var opts map[string]any
		if err := json.Unmarshal([]byte(b), &opts); err != nil {
			return nil, fmt.Errorf("%s: %w", BrowserHeader, err)
		}
		req.Meta = types.Item{{Key: types.MetaBrowser, Value: opts}}
	}
	return &pending{key: req.FingerprintSum(), url: target}, nil
}

// Len returns the number of responses indexed.
func (a *Archive) Len() int { return a.count }

// Files returns the files read, in order.
func (a *Archive) Files() []string { return slices.Clone(a.names) }

// Recorded is a response record found by LookupStream, its body not read yet: Body
// streams the recorded payload (dechunked when the record has Transfer-Encoding
// chunked, still in its Content-Encoding), straight from the file.
type Recorded struct {
	// URL is the page's URL as recorded: the rendered URL of a browser response, else
	// the target URI.
	URL string
	// HTTP is the recorded response; its Request is a request of the looked-up method
	// (for net/http's reading of a HEAD response), its ContentLength the recorded
	// Content-Length (-1: unknown) and its Body the stream of the payload, which the
	// caller closes.
	HTTP *http.Response
}

// LookupStream finds the recorded response to req (ok false when the archive has none)
// and reads its record up to the body. The responses recorded for the same method, URL
// and body are served in the order they were recorded; past the last, the last again.
func (a *Archive) LookupStream(req *types.Request) (rec *Recorded, ok bool, err error) {
	key := req.FingerprintSum()
	a.mu.Lock()
	x := a.index[key]
	if x == nil {
		a.mu.Unlock()
		return nil, false, nil
	}
	at := x.at[min(x.served, len(x.at)-1)]
	x.served++
	a.mu.Unlock()
	rec, err = a.open(at, req.HTTPMethod())
	if err != nil {
		return nil, true, fmt.Errorf("replay %s: %s at offset %d: %w", req.URL, a.names[at.file], at.offset, err)
	}
	return rec, true, nil
}

// Lookup is LookupStream with the body read whole into the response (no size limit:
// the engine's replay reads with LookupStream). The response's Request is req and its
// URL Recorded.URL.
func (a *Archive) Lookup(req *types.Request) (resp *types.Response, ok bool, err error) {
	rec, ok, err := a.LookupStream(req)
	if !ok || err != nil {
		return nil, ok, err
	}
	defer rec.HTTP.Body.Close()
	var body []byte
	if n := rec.HTTP.ContentLength; n >= 0 && n <= 64<<20 {
		body = make([]byte, 0, n)
	}
	buf := bytes.NewBuffer(body)
	if _, err := buf.ReadFrom(rec.HTTP.Body); err != nil {
		return nil, true, fmt.Errorf("replay %s: %w", req.URL, err)
	}
	return &types.Response{
		URL:      rec.URL,
		Status:   rec.HTTP.StatusCode,
		Headers:  rec.HTTP.Header,
		Body:     buf.Bytes(),
		Request:  req,
		Protocol: rec.HTTP.Proto,
	}, true, nil
}

// open reads the response record at at, the answer to a request of method, up to its
// HTTP body.
func (a *Archive) open(at location, method string) (*Recorded, error) {
	rr := newRecordReader(io.NewSectionReader(a.files[at.file], at.offset, at.size), at.offset)
	rec, err := rr.next()
	if err != nil {
		return nil, err
	}
	hresp, err := http.ReadResponse(bufio.NewReader(rec.Block), &http.Request{Method: method})
	if err != nil {
		return nil, err
	}
	if hresp.ContentLength > rec.Length {
		// A reader would trust it and allocate that much (with no DOWNLOAD_MAXSIZE).
		_ = hresp.Body.Close()
		return nil, fmt.Errorf("declared Content-Length %d larger than the record's block (%d bytes)", hresp.ContentLength, rec.Length)
	}
	u := rec.Header.Get(RenderedURIHeader)
	if u == "" {
		u = rec.Header.Get(gowarc.WarcTargetURI)
	}
	return &Recorded{URL: u, HTTP: hresp}, nil
}

// Close closes the files.
func (a *Archive) Close() error {
	var errs []error
	for _, f := range a.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
