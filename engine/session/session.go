// Package session is the session pool of SESSION_POOL_ENABLED (Crawlee: SessionPool and
// Session): sessions, each with its own cookie jar, fingerprint profile and proxy, drawn at
// random for downloads and retired when a site blocks them, when they have served
// SESSION_MAX_USAGE downloads or collected SESSION_MAX_ERRORS errors. The engine's
// SessionMiddleware draws from it; the package knows nothing of downloads.
package session

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Reasons a session retires, as session/retired_reason_count/<reason> counts them.
const (
	ReasonBlocked   = "blocked"   // a blocked status or isBlocked(response)
	ReasonMaxUsage  = "max_usage" // it served SESSION_MAX_USAGE downloads
	ReasonErrors    = "errors"    // its error score reached SESSION_MAX_ERRORS
	ReasonManual    = "manual"    // crawler.sessions.retire(name)
	ReasonElsewhere = "elsewhere" // another worker of the crawl retired it
)

// ErrorScoreDecrement is what a successful download takes off a session's error score
// (Crawlee: errorScoreDecrement).
const ErrorScoreDecrement = 0.5

// Options configure a Pool.
type Options struct {
	// Size is how many sessions the pool draws from at random (SESSION_POOL_SIZE): below
	// it, a draw creates a new session. Pinned sessions are not counted.
	Size int
	// MaxUsage retires a session once it has served that many downloads
	// (SESSION_MAX_USAGE; 0: no limit).
	MaxUsage int
	// MaxErrors retires a session once its error score reaches it (SESSION_MAX_ERRORS).
	MaxErrors float64
	// Profiles are the HTTP_IMPERSONATE profiles the sessions take in turn, in the order
	// created (none: every session's Profile is "").
	Profiles []string
	// Prefix starts the names of the sessions the pool creates ("s" when empty): a worker
	// of a shared crawl gives its own, so that no two workers create the same name.
	Prefix string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Rand picks an index below n (nil: math/rand/v2).
	Rand func(n int) int
}

// Pool holds the sessions of a crawl. Safe for concurrent use: download goroutines draw
// from it, the engine's JS side lists and retires sessions.
type Pool struct {
	opts Options

	mu       sync.Mutex
	byName   map[string]*Session // every session the pool knows, retired ones included
	live     []*Session          // the auto sessions a draw may return
	pinned   int                 // the pinned sessions not retired
	seq      int                 // the number of the last auto session created
	created  int                 // sessions created, for the profiles' turn
	onRetire []func(s *Session, reason string)
	onCreate []func(s *Session)
}

// Session is one session of a Pool. It implements engine.DownloadSession.
type Session struct {
	pool      *Pool
	name      string
	pinned    bool
	profile   string
	createdAt time.Time
	jar       *Jar
	ghost     bool // known only as a retired name (RetireName, Restore): never listed

	// Guarded by pool.mu.
	usage      int
	errorScore float64
	retired    bool
	proxy      string
}

// Info is a session as crawler.sessions.list() and a job's commit show it.
type Info struct {
	Name       string    `json:"name"`
	Pinned     bool      `json:"pinned,omitempty"`
	UsageCount int       `json:"usageCount"`
	ErrorScore float64   `json:"errorScore"`
	CreatedAt  time.Time `json:"createdAt"`
	Proxy      string    `json:"proxy,omitempty"` // masked
	Profile    string    `json:"profile,omitempty"`
	Retired    bool      `json:"retired,omitempty"`
}

// New returns an empty Pool.
func New(opts Options) *Pool {
	if opts.Size < 1 {
		opts.Size = 1
	}
	if opts.MaxErrors <= 0 {
		opts.MaxErrors = 3
	}
	if opts.Prefix == "" {
		opts.Prefix = "s"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.IntN
	}
	return &Pool{opts: opts, byName: map[string]*Session{}}
}

// OnRetire adds fn to what runs when a session retires, with the reason (ReasonBlocked,
// ...): the hook of a proxy pool that forgets the session's proxy, of a shared crawl that
// tells the other workers, of a job that records it at once. fn runs on the goroutine that
// retired it, outside the pool's lock, once per session.
func (p *Pool) OnRetire(fn func(s *Session, reason string)) {
	p.mu.Lock()
	p.onRetire = append(p.onRetire, fn)
	p.mu.Unlock()
}

// OnCreate adds fn to what runs when the pool creates a session (counted in
// session/created_count), outside the pool's lock.
func (p *Pool) OnCreate(fn func(s *Session)) {
	p.mu.Lock()
	p.onCreate = append(p.onCreate, fn)
	p.mu.Unlock()
}

// newSession makes a session; under mu.
func (p *Pool) newSession(name string, pinned bool) *Session {
	s := &Session{pool: p, name: name, pinned: pinned, createdAt: p.opts.Now(), jar: NewJar(p.opts.Now)}
	if n := len(p.opts.Profiles); n > 0 {
		s.profile = p.opts.Profiles[p.created%n]
	}
	p.created++
	p.byName[name] = s
	return s
}

// Pick returns a session for a download that names none, and counts the download in its
// usage (Crawlee: getSession): a new session while fewer than Size are usable, else one of
// them at random. A session that reaches MaxUsage retires as it is picked (its download
// still runs on it).
func (p *Pool) Pick() *Session {
	p.mu.Lock()
	var s *Session
	var made bool
	if len(p.live) < p.opts.Size {
		name := ""
		for name == "" || p.byName[name] != nil {
			p.seq++
			name = p.opts.Prefix + strconv.Itoa(p.seq)
		}
		s = p.newSession(name, false)
		p.live = append(p.live, s)
		made = true
	} else {
		s = p.live[p.opts.Rand(len(p.live))]
	}
	s.usage++
	retire := p.opts.MaxUsage > 0 && s.usage >= p.opts.MaxUsage && p.retireLocked(s)
	hooks, creates := p.onRetire, p.onCreate
	p.mu.Unlock()
	if made {
		for _, fn := range creates {
			fn(s)
		}
	}
	if retire {
		for _, fn := range hooks {
			fn(s, ReasonMaxUsage)
		}
	}
	return s
}

// Resume returns the auto session name for another download of the same chain (a
// redirect), counted in its usage, or nil when it is retired or unknown.
func (p *Pool) Resume(name string) *Session {
	p.mu.Lock()
	s := p.byName[name]
	if s == nil || s.retired || s.pinned {
		p.mu.Unlock()
		return nil
	}
	s.usage++
	p.mu.Unlock()
	return s
}

// Named returns the session named name for a download pinned to it (meta.session),
// created on first use and counted in its usage; ok is false when it is retired. A pinned
// session is never drawn for other downloads, and retires only when told (Retire): a block,
// its usage and its errors are counted, but a log-in flow decides.
func (p *Pool) Named(name string) (s *Session, ok bool) {
	p.mu.Lock()
	s = p.byName[name]
	made := s == nil
	if made {
		s = p.newSession(name, true)
		p.pinned++
	}
	if s.retired {
		p.mu.Unlock()
		return s, false
	}
	s.usage++
	creates := p.onCreate
	p.mu.Unlock()
	if made {
		for _, fn := range creates {
			fn(s)
		}
	}
	return s, true
}

// MarkGood records a successful download: the error score goes down by
// ErrorScoreDecrement (Crawlee: markGood).
func (p *Pool) MarkGood(s *Session) {
	p.mu.Lock()
	s.errorScore = max(0, s.errorScore-ErrorScoreDecrement)
	p.mu.Unlock()
}

// MarkBad records a failed download (a connection error, a timeout): the error score goes
// up by 1, and an auto session whose score reaches MaxErrors retires (Crawlee: markBad).
func (p *Pool) MarkBad(s *Session) {
	p.mu.Lock()
	s.errorScore++
	retire := !s.pinned && s.errorScore >= p.opts.MaxErrors && p.retireLocked(s)
	hooks := p.onRetire
	p.mu.Unlock()
	if retire {
		for _, fn := range hooks {
			fn(s, ReasonErrors)
		}
	}
}

// Retire retires s for reason: it is never used again, its cookies are dropped. It
// reports whether s was usable until now.
func (p *Pool) Retire(s *Session, reason string) bool {
	p.mu.Lock()
	ok := p.retireLocked(s)
	hooks := p.onRetire
	p.mu.Unlock()
	if ok {
		for _, fn := range hooks {
			fn(s, reason)
		}
	}
	return ok
}

// RetireName retires the session named name (a name not seen yet is recorded as retired,
// so that it is never created: another worker's retirement, a resumed job's). It reports
// whether a usable session retired.
func (p *Pool) RetireName(name, reason string) bool {
	p.mu.Lock()
	s := p.byName[name]
	if s == nil {
		p.byName[name] = &Session{pool: p, name: name, retired: true, ghost: true, createdAt: p.opts.Now(), jar: NewJar(p.opts.Now)}
		p.mu.Unlock()
		return false
	}
	p.mu.Unlock()
	return p.Retire(s, reason)
}

// retireLocked marks s retired and takes it out of the draw; false if it was already.
func (p *Pool) retireLocked(s *Session) bool {
	if s.retired {
		return false
	}
	s.retired = true
	s.jar = NewJar(p.opts.Now) // its cookies go with it
	if s.pinned {
		p.pinned--
	}
	if i := slices.Index(p.live, s); i >= 0 {
		p.live[i] = p.live[len(p.live)-1]
		p.live = p.live[:len(p.live)-1]
	}
	return true
}

// Active returns how many sessions are usable now (session/active): the auto sessions a
// draw may return and the pinned ones not retired.
func (p *Pool) Active() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.live) + p.pinned
}

// Get returns the session named name, or nil.
func (p *Pool) Get(name string) *Session {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byName[name]
}

// List returns every session the pool created, retired ones included, by creation time
// then name.
func (p *Pool) List() []Info {
	p.mu.Lock()
	out := make([]Info, 0, len(p.byName))
	for _, s := range p.byName {
		if s.ghost {
			continue
		}
		out = append(out, s.infoLocked())
	}
	p.mu.Unlock()
	slices.SortFunc(out, func(a, b Info) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return compareNames(a.Name, b.Name)
	})
	return out
}

// compareNames orders s2 before s10.
func compareNames(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *Session) infoLocked() Info {
	return Info{Name: s.name, Pinned: s.pinned, UsageCount: s.usage, ErrorScore: s.errorScore, CreatedAt: s.createdAt,
		Proxy: s.proxy, Profile: s.profile, Retired: s.retired}
}

// Name is the session's name (engine.DownloadSession).
func (s *Session) Name() string { return s.name }

// Pinned reports whether the session was created for meta.session.
func (s *Session) Pinned() bool { return s.pinned }

// Jar is the session's cookie jar (engine.DownloadSession); a retired session's is empty.
func (s *Session) Jar() http.CookieJar {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return s.jar
}

// Profile is the HTTP_IMPERSONATE profile the session presents (engine.DownloadSession).
func (s *Session) Profile() string { return s.profile }

// UsedProxy records the proxy, its credentials masked, that served the session's last
// download (engine.DownloadSession).
func (s *Session) UsedProxy(masked string) {
	s.pool.mu.Lock()
	s.proxy = masked
	s.pool.mu.Unlock()
}

// Info returns the session's state now.
func (s *Session) Info() Info {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return s.infoLocked()
}

// Retired reports whether the session retired.
func (s *Session) Retired() bool {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return s.retired
}

// saved is a Pool as a job saves it.
type saved struct {
	Seq      int            `json:"seq"`
	Created  int            `json:"created"`
	Sessions []savedSession `json:"sessions"`
}

type savedSession struct {
	Info
	Ghost   bool     `json:"ghost,omitempty"`
	Cookies []Cookie `json:"cookies,omitempty"`
}

// Save returns the pool's state as JSON: every session with its counters and cookies (a
// retired one by its name alone), for a job's commit.
func (p *Pool) Save() ([]byte, error) {
	p.mu.Lock()
	st := saved{Seq: p.seq, Created: p.created}
	jars := make([]*Jar, 0, len(p.byName))
	for _, s := range p.byName {
		st.Sessions = append(st.Sessions, savedSession{Info: s.infoLocked(), Ghost: s.ghost})
		jars = append(jars, s.jar)
	}
	p.mu.Unlock()
	for i, j := range jars {
		if j != nil && !st.Sessions[i].Retired {
			st.Sessions[i].Cookies = j.Saved()
		}
	}
	slices.SortFunc(st.Sessions, func(a, b savedSession) int { return compareNames(a.Name, b.Name) })
	return json.Marshal(st)
}

// Restore makes the pool what Save returned (nil: nothing), then retires the names in
// retired (recorded since that save): a resumed job goes on with the same sessions and
// cookies, and its retired sessions stay retired. Call it before the crawl starts.
func (p *Pool) Restore(b []byte, retired []string) error {
	if len(b) > 0 {
		var st saved
		if err := json.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("the saved sessions are damaged: %w", err)
		}
		p.mu.Lock()
		p.seq, p.created = max(p.seq, st.Seq), max(p.created, st.Created)
		for _, ss := range st.Sessions {
			s := &Session{pool: p, name: ss.Name, pinned: ss.Pinned, profile: ss.Profile, createdAt: ss.CreatedAt,
				usage: ss.UsageCount, errorScore: ss.ErrorScore, retired: ss.Retired, proxy: ss.Proxy, ghost: ss.Ghost, jar: NewJar(p.opts.Now)}
			s.jar.Restore(ss.Cookies)
			if old := p.byName[ss.Name]; old != nil {
				if i := slices.Index(p.live, old); i >= 0 {
					p.live = slices.Delete(p.live, i, i+1)
				}
				if old.pinned && !old.retired {
					p.pinned--
				}
			}
			p.byName[ss.Name] = s
			switch {
			case s.retired:
			case s.pinned:
				p.pinned++
			default:
				p.live = append(p.live, s)
			}
		}
		p.mu.Unlock()
	}
	for _, name := range retired {
		p.mu.Lock()
		s := p.byName[name]
		if s != nil {
			p.retireLocked(s)
		} else {
			p.byName[name] = &Session{pool: p, name: name, retired: true, ghost: true, createdAt: p.opts.Now(), jar: NewJar(p.opts.Now)}
		}
		p.mu.Unlock()
	}
	return nil
}
