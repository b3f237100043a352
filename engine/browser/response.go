package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/types"
)

// The response of a rendered page: the DOM with the main document's status and headers, and
// the page's cookies back as Set-Cookie headers.

func httpProtocol(p string) string {
	switch strings.ToLower(p) {
	case "http/1.1":
		return "HTTP/1.1"
	case "http/1.0":
		return "HTTP/1.0"
	case "h2":
		return "HTTP/2.0"
	case "h3", "http/3":
		return "HTTP/3.0"
	}
	return ""
}

// responseHeaders converts the main document's headers; those that describe the bytes
// on the wire (Content-Length, Content-Encoding) are dropped, as the body is the DOM.
func responseHeaders(h network.Headers) http.Header {
	out := http.Header{}
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		switch ck {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Set-Cookie":
			continue
		}
		for _, line := range strings.Split(fmt.Sprint(v), "\n") {
			out.Add(ck, line)
		}
	}
	return out
}

const contentScript = `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") + document.documentElement.outerHTML`

// response reads the current DOM as a Response to req, with the main document's status
// and headers and the page's cookies as Set-Cookie headers.
func (p *browserPage) response(ctx context.Context, req *types.Request) (*types.Response, error) {
	html, err := chromedp.Run(ctx, chromedp.Evaluate[string](contentScript))
	if err != nil {
		return nil, err
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	status, protocol := p.status, p.protocol
	headers := p.headers.Clone()
	p.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	if headers == nil {
		headers = http.Header{}
	}
	headers.Set("Content-Type", "text/html; charset=utf-8")
	if err := p.cookiesBack(ctx, loc, headers); err != nil {
		return nil, err
	}
	return &types.Response{URL: loc, Status: status, Headers: headers, Body: []byte(html), Request: req, Protocol: protocol}, nil
}

// cookiesBack adds a Set-Cookie header for each cookie of the page's browser context that
// the page did not get from the request or whose value changed, for the cookie jar.
// Cookies of other hosts than the page's stay out (the jar takes a response's
// Set-Cookie for its own URL only).
func (p *browserPage) cookiesBack(ctx context.Context, loc string, headers http.Header) error {
	c := chromedp.FromContext(p.ctx)
	res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: c.BrowserContextID})
	if err != nil {
		return err
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil
	}
	host := u.Hostname()
	for _, ck := range res.Cookies {
		if v, ok := p.loaded[ck.Name]; ok && v == ck.Value {
			continue
		}
		hc := &http.Cookie{Name: ck.Name, Value: ck.Value, Path: ck.Path, Secure: ck.Secure, HttpOnly: ck.HTTPOnly}
		switch {
		case strings.HasPrefix(ck.Domain, "."):
			d := strings.TrimPrefix(ck.Domain, ".")
			if host != d && !strings.HasSuffix(host, "."+d) {
				continue
			}
			hc.Domain = d
		case ck.Domain != host:
			continue
		}
		if !ck.Session && ck.Expires > 0 {
			hc.Expires = time.Unix(int64(ck.Expires), 0)
		}
		headers.Add("Set-Cookie", hc.String())
	}
	return nil
}

// screenshot captures the viewport as a PNG.
func (p *browserPage) screenshot(ctx context.Context) ([]byte, error) {
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}
