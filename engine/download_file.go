package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// fileHandler reads local files (Scrapy: FileDownloadHandler): status 200 with the file
// as the body, 404 when it does not exist.
type fileHandler struct{ *HandlerEnv }

// Download implements DownloadHandler.
func (d fileHandler) Download(ctx context.Context, req *types.Request, lim DownloadLimits) (*types.Response, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, invalidURL(req, err)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: fmt.Errorf("file URL with a host (%s)", u.Host)}
	}
	path := filepath.FromSlash(u.Path)
	if u.Path == "" {
		path = filepath.FromSlash(u.Opaque)
	}
	d.CountRequest(req.HTTPMethod(), len(req.URL))
	resp := &types.Response{URL: req.URL, Headers: http.Header{}, Request: req}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		resp.Status = http.StatusNotFound
		d.CountResponse(resp.Status, 0)
		return resp, nil
	}
	if err != nil {
		return nil, &DownloadError{Name: NameError, URL: req.URL, Err: err}
	}
	defer f.Close()
	size := int64(-1) // unknown: read in chunks
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if lim.MaxSize > 0 && fi.Size() > lim.MaxSize {
			return nil, &DownloadError{Name: NameMaxSize, URL: req.URL,
				Err: fmt.Errorf("cancelling download: file size (%d) larger than %s (%d)", fi.Size(), types.DownloadMaxSize, lim.MaxSize)}
		}
		size = fi.Size()
	}
	m := &meter{r: f, max: lim.MaxSize}
	res := d.budget.reserve()
	defer res.release()
	body, err := readBodyExact(ctx, m, size, res)
	if err != nil {
		if errors.Is(err, errTooBig) {
			return nil, &DownloadError{Name: NameMaxSize, URL: req.URL,
				Err: fmt.Errorf("cancelling download: file larger than %s (%d)", types.DownloadMaxSize, lim.MaxSize)}
		}
		if ctx.Err() != nil { // waiting for DOWNLOAD_MEMORY_BUDGET
			return nil, downloadFailure(ctx, lim, req.URL, err, NameConnectionLost, NameError)
		}
		return nil, &DownloadError{Name: NameError, URL: req.URL, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, downloadFailure(ctx, lim, req.URL, err, NameConnectionLost, NameError)
	}
	resp.Status = http.StatusOK
	resp.Body = body
	if ct := mime.TypeByExtension(filepath.Ext(path)); ct != "" {
		resp.Headers.Set("Content-Type", ct)
	}
	resp.Headers.Set("Content-Length", strconv.Itoa(len(body)))
	d.CountResponse(resp.Status, len(body))
	return resp, nil
}

// Interface guards
var _ DownloadHandler = fileHandler{}
