package enginetest

import (
	"context"
	"net/url"
	"regexp"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// Spider is a fake engine.Spider for tests: each method calls its function field, or does
// nothing when it is nil. Without StartFunc, Start emits a request for each of StartURLs.
// Fields must be set before the crawl starts; the functions are called concurrently.
type Spider struct {
	SpiderName  string
	Domains     []string
	StartURLs   []string
	StartFunc   func(ctx context.Context, emit engine.Emit) error
	ParseFunc   func(ctx context.Context, resp *types.Response, emit engine.Emit) error
	ErrbackFunc func(ctx context.Context, f *types.Failure, emit engine.Emit) error
	OpenFunc    func(ctx context.Context) error
	CloseFunc   func() error
}

// Name returns SpiderName, or "test".
func (s *Spider) Name() string {
	if s.SpiderName == "" {
		return "test"
	}
	return s.SpiderName
}

// AllowedDomains returns Domains.
func (s *Spider) AllowedDomains() []string { return s.Domains }

// Open calls OpenFunc.
func (s *Spider) Open(ctx context.Context) error {
	if s.OpenFunc == nil {
		return nil
	}
	return s.OpenFunc(ctx)
}

// Close calls CloseFunc.
func (s *Spider) Close() error {
	if s.CloseFunc == nil {
		return nil
	}
	return s.CloseFunc()
}

// Start calls StartFunc, or emits StartURLs.
func (s *Spider) Start(ctx context.Context, emit engine.Emit) error {
	if s.StartFunc != nil {
		return s.StartFunc(ctx, emit)
	}
	for _, u := range s.StartURLs {
		emit(types.Output{Request: &types.Request{URL: u}})
	}
	return nil
}

// Parse calls ParseFunc.
func (s *Spider) Parse(ctx context.Context, resp *types.Response, emit engine.Emit) error {
	if s.ParseFunc == nil {
		return nil
	}
	return s.ParseFunc(ctx, resp, emit)
}

// Errback calls ErrbackFunc.
func (s *Spider) Errback(ctx context.Context, f *types.Failure, emit engine.Emit) error {
	if s.ErrbackFunc == nil {
		return nil
	}
	return s.ErrbackFunc(ctx, f, emit)
}

var hrefRE = regexp.MustCompile(`href="([^"]*)"`)

// Links returns the href targets in resp's body, resolved against resp.URL.
func Links(resp *types.Response) []string {
	var out []string
	for _, m := range hrefRE.FindAllSubmatch(resp.Body, -1) {
		out = append(out, Resolve(resp.URL, string(m[1])))
	}
	return out
}

// Resolve resolves ref against base; a reference that does not parse is returned as is.
func Resolve(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

// FollowAll is a ParseFunc that follows every link in the response.
func FollowAll(_ context.Context, resp *types.Response, emit engine.Emit) error {
	for _, u := range Links(resp) {
		emit(types.Output{Request: &types.Request{URL: u}})
	}
	return nil
}

// Interface guards
var (
	_ engine.Spider = (*Spider)(nil)
	_ engine.Opener = (*Spider)(nil)
)
