package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// dataHandler decodes data: URLs (RFC 2397; Scrapy: DataURIDownloadHandler): status 200,
// the media type as Content-Type (default text/plain;charset=US-ASCII).
type dataHandler struct{ *HandlerEnv }

// Download implements DownloadHandler.
func (d dataHandler) Download(_ context.Context, req *types.Request, lim DownloadLimits) (*types.Response, error) {
	d.CountRequest(req.HTTPMethod(), len(req.URL))
	body, ct, err := parseDataURL(req.URL)
	if err != nil {
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: err}
	}
	if lim.MaxSize > 0 && int64(len(body)) > lim.MaxSize {
		return nil, &DownloadError{Name: NameMaxSize, URL: req.URL,
			Err: fmt.Errorf("cancelling download: data (%d bytes) larger than %s (%d)", len(body), types.DownloadMaxSize, lim.MaxSize)}
	}
	h := http.Header{"Content-Type": {ct}, "Content-Length": {strconv.Itoa(len(body))}}
	d.CountResponse(http.StatusOK, len(body))
	return &types.Response{URL: req.URL, Status: http.StatusOK, Headers: h, Body: body, Request: req}, nil
}

// parseDataURL returns the data and media type of a data: URL.
func parseDataURL(raw string) ([]byte, string, error) {
	_, rest, _ := strings.Cut(raw, ":")
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, "", errors.New("data URL without a comma")
	}
	b64 := false
	if i := strings.LastIndexByte(meta, ';'); i >= 0 && strings.EqualFold(strings.TrimSpace(meta[i+1:]), "base64") {
		b64 = true
		meta = meta[:i]
	}
	meta = strings.TrimSpace(meta)
	if m, err := url.PathUnescape(meta); err == nil {
		meta = m
	}
	switch {
	case meta == "":
		meta = "text/plain;charset=US-ASCII"
	case strings.HasPrefix(meta, ";"):
		meta = "text/plain" + meta
	}
	if mt, params, err := mime.ParseMediaType(meta); err == nil {
		meta = mime.FormatMediaType(mt, params)
	}
	body, err := url.PathUnescape(data)
	if err != nil {
		return nil, "", fmt.Errorf("data URL: %w", err)
	}
	if !b64 {
		return []byte(body), meta, nil
	}
	body = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, body)
	dec, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		if dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(body, "=")); err != nil {
			return nil, "", fmt.Errorf("data URL: bad base64: %w", err)
		}
	}
	return dec, meta, nil
}

// Interface guards
var _ DownloadHandler = dataHandler{}
