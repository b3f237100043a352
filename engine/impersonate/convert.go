package impersonate

import (
	"io"
	"net/http"
	"net/http/httptrace"

	fhttp "github.com/bogdanfinn/fhttp"
	fhttptrace "github.com/bogdanfinn/fhttp/httptrace"
)

// Conversions between net/http and fhttp: requests (with the browser's header order),
// httptrace hooks and responses.

// toFHTTP converts req to fhttp's request, its headers in b's order and its httptrace
// hooks bridged to fhttp's.
func toFHTTP(req *http.Request, b *Browser) *fhttp.Request {
	h := make(fhttp.Header, len(req.Header)+1)
	for k, vs := range req.Header {
		h[k] = vs
	}
	h[fhttp.HeaderOrderKey] = b.order[:len(b.order):len(b.order)] // shared: an append copies
	body := req.Body
	if body == http.NoBody {
		body = fhttp.NoBody
	}
	var getBody func() (io.ReadCloser, error)
	if req.GetBody != nil {
		getBody = func() (io.ReadCloser, error) {
			rc, err := req.GetBody()
			if rc == http.NoBody {
				rc = fhttp.NoBody
			}
			return rc, err
		}
	}
	freq := &fhttp.Request{
		Method:           req.Method,
		URL:              req.URL,
		Proto:            "HTTP/1.1",
		ProtoMajor:       1,
		ProtoMinor:       1,
		Header:           h,
		Body:             body,
		GetBody:          getBody,
		ContentLength:    req.ContentLength,
		TransferEncoding: req.TransferEncoding,
		Close:            req.Close,
		Host:             req.Host,
		Trailer:          fhttp.Header(req.Trailer),
	}
	ctx := req.Context()
	if tr := httptrace.ContextClientTrace(ctx); tr != nil {
		ctx = fhttptrace.WithClientTrace(ctx, bridgeTrace(tr))
	}
	return freq.WithContext(ctx)
}

// bridgeTrace calls tr's hooks from fhttp's.
func bridgeTrace(tr *httptrace.ClientTrace) *fhttptrace.ClientTrace {
	out := &fhttptrace.ClientTrace{
		WroteHeaders:         tr.WroteHeaders,
		GotFirstResponseByte: tr.GotFirstResponseByte,
		ConnectStart:         tr.ConnectStart,
		ConnectDone:          tr.ConnectDone,
	}
	if tr.GotConn != nil {
		out.GotConn = func(i fhttptrace.GotConnInfo) {
			tr.GotConn(httptrace.GotConnInfo{Conn: i.Conn, Reused: i.Reused, WasIdle: i.WasIdle, IdleTime: i.IdleTime})
		}
	}
	if tr.WroteRequest != nil {
		out.WroteRequest = func(i fhttptrace.WroteRequestInfo) { tr.WroteRequest(httptrace.WroteRequestInfo{Err: i.Err}) }
	}
	return out
}

// toNet converts fhttp's response to net/http's, req its request.
func toNet(r *fhttp.Response, req *http.Request) *http.Response {
	body := r.Body
	if body == fhttp.NoBody {
		body = http.NoBody
	}
	return &http.Response{
		Status:           r.Status,
		StatusCode:       r.StatusCode,
		Proto:            r.Proto,
		ProtoMajor:       r.ProtoMajor,
		ProtoMinor:       r.ProtoMinor,
		Header:           http.Header(r.Header),
		Body:             body,
		ContentLength:    r.ContentLength,
		TransferEncoding: r.TransferEncoding,
		Close:            r.Close,
		Uncompressed:     r.Uncompressed,
		Trailer:          http.Header(r.Trailer),
		Request:          req,
	}
}
