package types

import "net/http"

// Response is a downloaded page (Scrapy: scrapy.http.Response). A 404 or 500 is a Response,
// not an error. Body holds the decompressed bytes; decoding to text is the reader's job.
type Response struct {
	URL     string // final URL, after redirects
	Status  int
	Headers http.Header
	Body    []byte
	Request *Request // the request that produced it (after middlewares)
	// Protocol is the HTTP version the response came with, as net/http reports it
	// ("HTTP/1.1", "HTTP/2.0"); "" for file: and data: (Scrapy: response.protocol).
	Protocol string
	// Flags mark how the response was obtained, as Scrapy's response.flags: "cached" for
	// one served by HttpCacheMiddleware.
	Flags []string
	// Screenshot is a PNG of the rendered page, for a browser request with the option
	// screenshot.
	Screenshot []byte
	// Page is the browser page kept open for the callback (the browser option
	// includePage); nil otherwise. Whoever receives the response closes it.
	Page Page
	// Session is the session of the session pool that served the response, as it was then
	// (SESSION_POOL_ENABLED; nil without).
	Session *SessionState
}

// SessionState is what a callback sees of the session that served its response
// (response.session).
type SessionState struct {
	Name       string  `json:"name"`
	UsageCount int     `json:"usageCount"`
	ErrorScore float64 `json:"errorScore"`
	Retired    bool    `json:"retired"`
	// Blocked: the response was a block (a status of SESSION_BLOCKED_STATUS_CODES or the
	// spider's isBlocked) that reached the callback: the session is pinned (meta.session).
	Blocked bool `json:"blocked"`
}

// Failure describes a request that produced no usable response, as an errback receives it
// (Scrapy: twisted Failure). Response is nil when there was none.
type Failure struct {
	Request  *Request
	Response *Response
	Name     string // error class: HttpError, TimeoutError, ConnectionRefusedError, DNSLookupError, ...
	Message  string // names the URL
}

// Error implements error.
func (f *Failure) Error() string { return f.Name + ": " + f.Message }
