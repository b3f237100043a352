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
// record names is indexed as a GET of its URL. Lookup reads a response record from its
// file. Safe for concurrent use.
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
	r, err := newReader(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return fmt.Errorf("replay: %s: %w", path, err)
	}
	defer r.Close()
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
	for rec, err := range r.Records() {
		if err != nil {
			return fmt.Errorf("replay: %s: record at offset %d: %w", path, rec.Offset, err)
		}
		end(rec.Offset)
		wr := rec.WarcRecord
		h := wr.WarcHeader()
		switch wr.Type() {
		case gowarc.Request:
			p, err := readRequest(wr)
			if err != nil {
				_ = rec.Close()
				return fmt.Errorf("replay: %s: request record at offset %d: %w", path, rec.Offset, err)
			}
			p.respIDs = h.GetAll(gowarc.WarcConcurrentTo)
			for i, id := range p.respIDs {
				p.respIDs[i] = strings.Trim(id, "<>")
			}
			x.requests = append(x.requests, p)
		case gowarc.Response:
			id := wr.RecordId()
			x.responses[id] = location{file: fi, offset: rec.Offset}
			x.order = append(x.order, id)
			last = id
			x.respURL[id] = h.Get(gowarc.WarcTargetURI)
		}
		_ = rec.Close()
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

// readRequest reads a request record's method, URL and body into its key. It splits the
// HTTP message itself: a recorded request body may have no Content-Length.
func readRequest(wr gowarc.WarcRecord) (*pending, error) {
	raw, err := wr.Block().RawBytes()
	if err != nil {
		return nil, err
	}
	msg, err := io.ReadAll(raw)
	if err != nil {
		return nil, err
	}
	method, _, _ := strings.Cut(string(msg[:min(len(msg), 16)]), " ")
	_, body, ok := bytes.Cut(msg, []byte("\r\n\r\n"))
	if !ok || method == "" {
		return nil, errors.New("not an HTTP request")
	}
	target := wr.WarcHeader().Get(gowarc.WarcTargetURI)
	req := &types.Request{Method: method, URL: target, Body: body}
	if b := wr.WarcHeader().Get(BrowserHeader); b != "" {
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

// Lookup returns the recorded response to req (ok false when the archive has none). The
// responses recorded for the same method, URL and body are served in the order they were
// recorded; past the last, the last again. The response's Request is req and its URL the
// request's.
func (a *Archive) Lookup(req *types.Request) (resp *types.Response, ok bool, err error) {
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
	resp, err = a.read(at, req.HTTPMethod())
	if err != nil {
		return nil, true, fmt.Errorf("replay %s: %s at offset %d: %w", req.URL, a.names[at.file], at.offset, err)
	}
	resp.Request = req
	return resp, true, nil
}

// read reads the response record at at, the answer to a request of method.
func (a *Archive) read(at location, method string) (*types.Response, error) {
	r, err := newReader(io.NewSectionReader(a.files[at.file], at.offset, at.size))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rec, err := r.Next()
	if err != nil {
		return nil, err
	}
	defer rec.Close()
	raw, err := rec.WarcRecord.Block().RawBytes()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(raw)
	hresp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return nil, err
	}
	defer hresp.Body.Close()
	var body []byte
	if hresp.ContentLength >= 0 && hresp.ContentLength <= at.size*1024 {
		body = make([]byte, 0, hresp.ContentLength)
	}
	buf := bytes.NewBuffer(body)
	if _, err := buf.ReadFrom(hresp.Body); err != nil {
		return nil, err
	}
	u := rec.WarcRecord.WarcHeader().Get(RenderedURIHeader)
	if u == "" {
		u = rec.WarcRecord.WarcHeader().Get(gowarc.WarcTargetURI)
	}
	return &types.Response{
		URL:      u,
		Status:   hresp.StatusCode,
		Headers:  hresp.Header,
		Body:     buf.Bytes(),
		Protocol: hresp.Proto,
	}, nil
}

// Close closes the files.
func (a *Archive) Close() error {
	var errs []error
	for _, f := range a.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
