package jsapi

import (
	"strings"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// hiddenAuth keeps the credentials of HttpAuthMiddleware (HTTP_USER, HTTP_PASS) from the
// spider's downloader middlewares, which run below it by default (order 543 > 300) and
// would read them in request.headers. They see the request without its Authorization
// header; the request sent on gets it back unless a hook changed the host or set its own.
type hiddenAuth struct {
	auth string // the Authorization value hidden, "" when none was
	host string // the host of the request it was for
}

// hideAuth returns req without the Authorization of HttpAuthMiddleware, if it has it, and
// what it hid.
func (s *Spider) hideAuth(req *types.Request) (*types.Request, hiddenAuth) {
	v := req.Headers["Authorization"]
	if len(v) != 1 || s.crawler == nil {
		return req, hiddenAuth{}
	}
	auth := engine.HTTPAuthValue(s.crawler.Settings())
	if auth == "" || v[0] != auth {
		return req, hiddenAuth{}
	}
	c := req.Copy()
	delete(c.Headers, "Authorization")
	return c, hiddenAuth{auth: auth, host: requestHost(req)}
}

// restore returns req as it is sent on: with the hidden Authorization back when req has
// none of its own and still goes to the same host.
func (h hiddenAuth) restore(req *types.Request) *types.Request {
	if h.auth == "" || len(req.Headers["Authorization"]) > 0 || requestHost(req) != h.host {
		return req
	}
	c := req.Copy()
	if c.Headers == nil {
		c.Headers = map[string][]string{}
	}
	c.Headers["Authorization"] = []string{h.auth}
	return c
}

// forget returns resp with its request without the hidden Authorization, for the hooks
// that read it (processResponse).
func (h hiddenAuth) forget(resp *types.Response) *types.Response {
	if h.auth == "" || resp == nil || resp.Request == nil {
		return resp
	}
	if v := resp.Request.Headers["Authorization"]; len(v) != 1 || v[0] != h.auth {
		return resp
	}
	r := *resp
	r.Request = resp.Request.Copy()
	delete(r.Request.Headers, "Authorization")
	return &r
}

// requestHost is the lower-case host of req's URL, or "" when it does not parse.
func requestHost(req *types.Request) string {
	u, err := req.ParsedURL()
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
