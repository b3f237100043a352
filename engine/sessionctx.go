package engine

import (
	"context"
	"net/http"
)

// DownloadSession is what the middlewares and the download handler below
// SessionMiddleware see of the session a download runs under (SESSION_POOL_ENABLED).
type DownloadSession interface {
	// Name is the session's name: meta.session's value for a pinned one.
	Name() string
	// Jar is the session's cookie jar. CookiesMiddleware keeps the download's cookies
	// in it instead of the spider's jar, unless meta.cookiejar names one; nil: the
	// spider's.
	Jar() http.CookieJar
	// Profile is the HTTP_IMPERSONATE profile the session presents, one of the
	// setting's list ("": the setting's first, or none).
	Profile() string
	// UsedProxy records the proxy that served the session's download, its credentials
	// masked, for `crawler.sessions` and logs.
	UsedProxy(masked string)
}

// sessionKey carries a download's DownloadSession in its context.
type sessionKey struct{}

// WithSession returns ctx carrying s for the middlewares and handler below.
func WithSession(ctx context.Context, s DownloadSession) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// SessionOf returns the session a download runs under, or nil without one.
func SessionOf(ctx context.Context) DownloadSession {
	s, _ := ctx.Value(sessionKey{}).(DownloadSession)
	return s
}
