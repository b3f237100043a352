package session

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// Jar is a session's cookie jar: net/http/cookiejar (with the public suffix list) plus a
// log of the cookies it was given, so that it can be saved (a job's commit) and rebuilt
// (a resume), which cookiejar alone cannot: it does not list its cookies. The log keeps
// the last cookie set per (domain, path, name), with a Max-Age made an absolute expiry, so
// a replayed jar expires its cookies when the original would have. Safe for concurrent
// use.
type Jar struct {
	jar *cookiejar.Jar
	now func() time.Time

	mu  sync.Mutex
	log map[cookieKey]Cookie
	seq int // the order of the log's entries, for a stable save
}

// Cookie is one entry of a Jar's log: the URL the cookie was set for and the cookie, as
// a job saves it.
type Cookie struct {
	URL      string    `json:"url"`
	Name     string    `json:"name"`
	Value    string    `json:"value"`
	Domain   string    `json:"domain,omitempty"`
	Path     string    `json:"path,omitempty"`
	Expires  time.Time `json:"expires,omitzero"`
	Secure   bool      `json:"secure,omitempty"`
	HTTPOnly bool      `json:"httpOnly,omitempty"`
	SameSite int       `json:"sameSite,omitempty"`
	seq      int
}

// cookieKey is what a cookie replaces an earlier one by (RFC 6265 5.3 step 11).
type cookieKey struct{ domain, path, name string }

// NewJar returns an empty Jar; now is the clock that dates Max-Age (nil: time.Now).
func NewJar(now func() time.Time) *Jar {
	if now == nil {
		now = time.Now
	}
	j, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	return &Jar{jar: j, now: now, log: map[cookieKey]Cookie{}}
}

// SetCookies implements http.CookieJar, and logs the cookies.
func (j *Jar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	j.jar.SetCookies(u, cookies)
	if u == nil || len(cookies) == 0 {
		return
	}
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cookies {
		e := Cookie{URL: u.Scheme + "://" + u.Host + u.EscapedPath(), Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			Expires: c.Expires, Secure: c.Secure, HTTPOnly: c.HttpOnly, SameSite: int(c.SameSite)}
		switch {
		case c.MaxAge < 0:
			e.Expires = now.Add(-time.Second)
		case c.MaxAge > 0:
			e.Expires = now.Add(time.Duration(c.MaxAge) * time.Second)
		}
		j.seq++
		e.seq = j.seq
		j.log[keyOf(u, c)] = e
	}
}

// Cookies implements http.CookieJar.
func (j *Jar) Cookies(u *url.URL) []*http.Cookie { return j.jar.Cookies(u) }

// keyOf returns the key the jar stores c under when set for u: its Domain attribute, or
// the host for a host-only cookie, and its Path, or u's default path.
func keyOf(u *url.URL, c *http.Cookie) cookieKey {
	d := strings.ToLower(strings.TrimPrefix(c.Domain, "."))
	if d == "" {
		d = "=" + strings.ToLower(u.Hostname()) // host-only
	}
	p := c.Path
	if p == "" || p[0] != '/' {
		p = "/"
		if dir := path.Dir(u.Path); strings.HasPrefix(u.Path, "/") && dir != "/" && dir != "." {
			p = dir
		}
	}
	return cookieKey{d, p, c.Name}
}

// Saved returns the log: the last cookie set per (domain, path, name), expired ones left
// out, in the order they were set.
func (j *Jar) Saved() []Cookie {
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Cookie, 0, len(j.log))
	for k, c := range j.log {
		if !c.Expires.IsZero() && !c.Expires.After(now) {
			delete(j.log, k) // gone from the jar too
			continue
		}
		out = append(out, c)
	}
	sortBySeq(out)
	return out
}

// Restore sets the saved cookies again, as they were set, skipping those expired since.
func (j *Jar) Restore(saved []Cookie) {
	now := j.now()
	for _, c := range saved {
		if !c.Expires.IsZero() && !c.Expires.After(now) {
			continue
		}
		u, err := url.Parse(c.URL)
		if err != nil {
			continue
		}
		j.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: c.Expires,
			Secure: c.Secure, HttpOnly: c.HTTPOnly, SameSite: http.SameSite(c.SameSite)}})
	}
}

func sortBySeq(cs []Cookie) {
	// Insertion sort: a session holds a handful of cookies.
	for i := 1; i < len(cs); i++ {
		for k := i; k > 0 && cs[k].seq < cs[k-1].seq; k-- {
			cs[k], cs[k-1] = cs[k-1], cs[k]
		}
	}
}

// Interface guards
var _ http.CookieJar = (*Jar)(nil)
