package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jscrawl/jscrawl/types"
)

// Error names, Scrapy's exception class names, as ErrorName returns them and as they appear
// in Failure.Name and in downloader/exception_type_count/<Name>.
const (
	NameTimeout               = "TimeoutError"
	NameConnectionRefused     = "ConnectionRefusedError"
	NameDNSLookup             = "DNSLookupError"
	NameConnectionLost        = "ConnectionLostError"   // the connection closed early (EOF)
	NameConnectionReset       = "ConnectionResetError"  // the peer reset the connection (ECONNRESET)
	NameResponseNeverReceived = "ResponseNeverReceived" // the connection closed before a response
	NameMaxSize               = "MaxSizeError"          // over DOWNLOAD_MAXSIZE, raw or decoded
	NameBadResponse           = "BadResponseError"      // malformed status line or headers, body shorter than Content-Length, undecodable Content-Encoding
	NameSSL                   = "SSLError"              // TLS handshake or certificate verification failed
	NameMaxRedirects          = "MaxRedirectsError"     // too many redirects, or a redirect loop
	NameInvalidURL            = "InvalidURLError"
	NameNotSupported          = "NotSupported"
	NameHTTPError             = "HttpError"
	NameIgnoreRequest         = "IgnoreRequest"
	NameCancelled             = "CancelledError"
	NameError                 = "Error"
	NameNotInArchive          = "NotInArchive" // a request a replay (--replay) has no response for
	// NameBrowserNotFound: a browser request when no Chromium can be found
	// (BROWSER_EXECUTABLE, or chromium, chromium-browser and google-chrome on PATH).
	NameBrowserNotFound = "BrowserNotFoundError"
	NameTunnel          = "TunnelError" // a proxy answered CONNECT with another status than 200 (TunnelError)
)

// DownloadError is a failed download: Name is its Scrapy-style class (NameTimeout, ...),
// URL the request's URL and Err the cause.
type DownloadError struct {
	Name string
	URL  string
	Err  error
}

// Error implements error.
func (e *DownloadError) Error() string { return fmt.Sprintf("fetch %s: %v", e.URL, e.Err) }

// Unwrap returns the cause.
func (e *DownloadError) Unwrap() error { return e.Err }

// ErrorName returns e.Name.
func (e *DownloadError) ErrorName() string { return e.Name }

// HTTPError is returned by HTTPErrorMiddleware for a response whose status is not handled
// (Scrapy: HttpError).
type HTTPError struct {
	Response *types.Response
}

// Error implements error.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("ignoring response <%d %s>: HTTP status code is not handled or not allowed",
		e.Response.Status, e.Response.URL)
}

// ErrorName returns NameHTTPError.
func (e *HTTPError) ErrorName() string { return NameHTTPError }

// ErrorName returns a Scrapy-style class name for err, as used in Failure.Name and in the
// exception stats. An error that has an ErrorName() string method anywhere in its chain
// (DownloadError, HTTPError, a JS ScriptError reporting "TypeError") names itself; common
// network errors map to TimeoutError, ConnectionRefusedError, DNSLookupError,
// ConnectionResetError, SSLError and ConnectionLostError; ErrIgnoreRequest is IgnoreRequest; anything else is "Error".
func ErrorName(err error) string {
	if err == nil {
		return ""
	}
	var named interface{ ErrorName() string }
	if errors.As(err, &named) {
		if n := named.ErrorName(); n != "" {
			return n
		}
	}
	return classify(err, NameError)
}

// ErrorMessage returns the message of err for a Failure: the error's own message when it
// has one apart from its text (a JS exception's text carries its stack; see
// runtime.ScriptError), else err.Error().
func ErrorMessage(err error) string {
	var m interface{ ErrorMessage() string }
	if errors.As(err, &m) {
		return m.ErrorMessage()
	}
	return err.Error()
}

// classify maps a Go network error to a name; lost names a dropped connection.
func classify(err error, lost string) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, ErrIgnoreRequest):
		return NameIgnoreRequest
	case errors.Is(err, context.DeadlineExceeded):
		return NameTimeout
	case errors.Is(err, context.Canceled):
		return NameCancelled
	case errors.Is(err, syscall.ECONNREFUSED):
		return NameConnectionRefused
	case errors.As(err, &dns):
		return NameDNSLookup
	case errors.As(err, &ne) && ne.Timeout():
		return NameTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED):
		return NameConnectionReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return lost
	case isTLSError(err):
		return NameSSL
	}
	return NameError
}

// isTLSError reports whether err comes from a TLS handshake or certificate check.
func isTLSError(err error) bool {
	var (
		cv  *tls.CertificateVerificationError
		rh  tls.RecordHeaderError
		al  tls.AlertError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		ech *tls.ECHRejectionError
	)
	return errors.As(err, &cv) || errors.As(err, &rh) || errors.As(err, &al) || errors.As(err, &ua) ||
		errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &ech) || impersonatedTLSError(err)
}

// impersonatedTLSError reports whether err is a TLS error of the registered
// Impersonation's connections.
func impersonatedTLSError(err error) bool {
	im := theImpersonation()
	return im != nil && im.IsTLSError(err)
}

// countException counts a failed download in downloader/exception_count and
// downloader/exception_type_count/<Name> (Scrapy: DownloaderStats). HTTPDownloader counts
// its own failures; a middleware that fails a download itself (MaxRedirectsError from the
// redirect middlewares) counts it with this, so every failure is counted exactly once.
func countException(stats *Stats, err error) {
	stats.Inc("downloader/exception_count", 1)
	stats.Inc("downloader/exception_type_count/"+ErrorName(err), 1)
}

// retryable reports whether a download error is worth another try (Scrapy's
// RetryMiddleware.EXCEPTIONS_TO_RETRY).
func retryable(err error) bool {
	switch ErrorName(err) {
	case NameTimeout, NameConnectionRefused, NameDNSLookup, NameConnectionLost, NameConnectionReset, NameResponseNeverReceived, NameTunnel:
		return true
	}
	return false
}

// RescheduleError asks the engine to schedule Request instead of finishing the download
// that returned it (Scrapy: a downloader middleware returning a Request). For an inline
// Download the new request is downloaded in its place.
type RescheduleError struct{ Request *types.Request }

// Error names the new request.
func (e *RescheduleError) Error() string { return "rescheduled as " + e.Request.URL }

// Reschedule returns a *RescheduleError for r.
func Reschedule(r *types.Request) error { return &RescheduleError{Request: r} }

// NameGaveUp is the error name of a request given up (GaveUpError).
const NameGaveUp = "GaveUpError"

// GaveUpError is the failure of a job's request whose callback was running when Runs runs
// of the job died (a crash, a kill, a hard stop): more than RETRY_TIMES, so the engine
// gave it up instead of running the callback again (see CallbackLog).
type GaveUpError struct {
	Runs int
}

func (e *GaveUpError) Error() string {
	return fmt.Sprintf("%s: its callback was running when %d runs of the job died (a crash, a kill or a hard stop), more than RETRY_TIMES allows",
		NameGaveUp, e.Runs)
}

// ErrorName returns NameGaveUp.
func (e *GaveUpError) ErrorName() string { return NameGaveUp }

// ErrorMessage returns the message without the name.
func (e *GaveUpError) ErrorMessage() string {
	return strings.TrimPrefix(e.Error(), NameGaveUp+": ")
}

// NameSessionBlocked is the error name of a request the sites kept blocking
// (SessionBlockedError).
const NameSessionBlocked = "SessionBlockedError"

// SessionBlockedError fails a request that was blocked on SESSION_MAX_ROTATIONS + 1
// sessions in a row (a status of SESSION_BLOCKED_STATUS_CODES or the spider's isBlocked),
// or that is pinned (meta.session) to a retired session. Session names the last one,
// Status its response's status (0 for a retired pinned session).
type SessionBlockedError struct {
	URL       string
	Session   string
	Rotations int
	Status    int
	Retired   bool // pinned to a session that retired before the download
}

// Error implements error.
func (e *SessionBlockedError) Error() string {
	if e.Retired {
		return fmt.Sprintf("%s: %s is pinned to session %q, which is retired", NameSessionBlocked, e.URL, e.Session)
	}
	return fmt.Sprintf("%s: %s was blocked on %d sessions in a row (the last %q answered %d), SESSION_MAX_ROTATIONS is %d",
		NameSessionBlocked, e.URL, e.Rotations+1, e.Session, e.Status, e.Rotations)
}

// ErrorName returns NameSessionBlocked.
func (e *SessionBlockedError) ErrorName() string { return NameSessionBlocked }

// ErrorMessage returns the message without the name.
func (e *SessionBlockedError) ErrorMessage() string {
	return strings.TrimPrefix(e.Error(), NameSessionBlocked+": ")
}
