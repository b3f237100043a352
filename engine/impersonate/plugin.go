package impersonate

import (
	"context"
	"net/http"

	"github.com/jscrawl/jscrawl/engine"
)

// Register makes this package the engine's HTTP_IMPERSONATE plug-in
// (engine.RegisterImpersonation): the http(s) handler of the engines made afterwards
// presents the setting's profiles through a Transport. A binary that impersonates calls
// it once at set-up; calling it again changes nothing. Safe for concurrent use.
func Register() { engine.RegisterImpersonation(plugin{}) }

// plugin is the engine.Impersonation of this package.
type plugin struct{}

// Parse implements engine.Impersonation with Parse.
func (plugin) Parse(spec string) ([]engine.ImpersonateProfile, error) {
	bs, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	out := make([]engine.ImpersonateProfile, len(bs))
	for i, b := range bs {
		out[i] = profile{b}
	}
	return out, nil
}

// NewTransport implements engine.Impersonation with a Transport.
func (plugin) NewTransport(o engine.ImpersonateOptions) http.RoundTripper {
	opts := Options{ConnOptions: o.ConnOptions}
	if p, ok := o.Profile.(profile); ok {
		opts.Browser = p.b
	}
	return NewTransport(opts)
}

// IsTLSError implements engine.Impersonation with IsTLSError.
func (plugin) IsTLSError(err error) bool { return IsTLSError(err) }

// profile is a Browser as an engine.ImpersonateProfile.
type profile struct{ b *Browser }

// Name implements engine.ImpersonateProfile.
func (p profile) Name() string { return p.b.Name }

// Headers implements engine.ImpersonateProfile.
func (p profile) Headers() [][2]string { return p.b.Headers }

// With implements engine.ImpersonateProfile with WithBrowser.
func (p profile) With(ctx context.Context) context.Context { return WithBrowser(ctx, p.b) }

// Interface guards
var (
	_ engine.Impersonation      = plugin{}
	_ engine.ImpersonateProfile = profile{}
)
