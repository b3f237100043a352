package session_test

import (
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/session"
)

// clock is a settable time for the pool and its jars.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

// TestPoolRetirement: what retires a session, and what a draw returns after (Crawlee:
// maxUsageCount, maxErrorScore, errorScoreDecrement, retire).
func TestPoolRetirement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    session.Options
		steps   func(p *session.Pool, s *session.Session)
		retired bool
		reason  string
		score   float64
	}{
		{"max usage reached at the pick", session.Options{MaxUsage: 3}, func(p *session.Pool, s *session.Session) {
			p.Pick()
			p.Pick()
		}, true, session.ReasonMaxUsage, 0},
		{"no usage limit", session.Options{MaxUsage: 0}, func(p *session.Pool, s *session.Session) {
			for range 100 {
				p.Pick()
			}
		}, false, "", 0},
		{"errors reach the maximum", session.Options{MaxErrors: 3}, func(p *session.Pool, s *session.Session) {
			p.MarkBad(s)
			p.MarkBad(s)
			p.MarkBad(s)
		}, true, session.ReasonErrors, 3},
		{"a success takes half an error back", session.Options{MaxErrors: 3}, func(p *session.Pool, s *session.Session) {
			p.MarkBad(s)
			p.MarkBad(s)
			p.MarkGood(s)
			p.MarkBad(s)
		}, false, "", 2.5},
		{"the score never goes below 0", session.Options{MaxErrors: 3}, func(p *session.Pool, s *session.Session) {
			p.MarkGood(s)
			p.MarkGood(s)
		}, false, "", 0},
		{"blocked", session.Options{}, func(p *session.Pool, s *session.Session) {
			p.Retire(s, session.ReasonBlocked)
			p.Retire(s, session.ReasonBlocked) // once only
		}, true, session.ReasonBlocked, 0},
		{"retired by name", session.Options{}, func(p *session.Pool, s *session.Session) {
			p.RetireName(s.Name(), session.ReasonManual)
		}, true, session.ReasonManual, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Size = 1
			p := session.New(tc.opts)
			var reasons []string
			p.OnRetire(func(_ *session.Session, r string) { reasons = append(reasons, r) })
			s := p.Pick()
			u := &url.URL{Scheme: "http", Host: "a.test", Path: "/"}
			s.Jar().SetCookies(u, []*http.Cookie{{Name: "k", Value: "v"}})
			tc.steps(p, s)
			if s.Retired() != tc.retired {
				t.Fatalf("retired = %v, want %v", s.Retired(), tc.retired)
			}
			if in := s.Info(); in.ErrorScore != tc.score {
				t.Errorf("error score %v, want %v", in.ErrorScore, tc.score)
			}
			if !tc.retired {
				if len(reasons) != 0 || p.Pick() != s || p.Active() != 1 {
					t.Errorf("a usable session was not drawn again (retire hooks %v)", reasons)
				}
				return
			}
			if !slices.Equal(reasons, []string{tc.reason}) {
				t.Errorf("retire hooks ran with %v, want [%s]", reasons, tc.reason)
			}
			if len(s.Jar().Cookies(u)) != 0 {
				t.Errorf("a retired session kept its cookies")
			}
			if p.Active() != 0 {
				t.Errorf("Active = %d after the only session retired", p.Active())
			}
			if n := p.Pick(); n == s || n.Name() == s.Name() {
				t.Errorf("a retired session was drawn again")
			}
		})
	}
}

// TestPoolDraw: below Size a draw creates a session (Crawlee's getSession), at Size it
// picks among them at random; sessions take the profiles in turn; pinned sessions are
// never drawn and ignore the limits.
func TestPoolDraw(t *testing.T) {
	t.Parallel()
	i := 0
	p := session.New(session.Options{Size: 3, MaxUsage: 2, MaxErrors: 1, Profiles: []string{"chrome", "firefox"},
		Rand: func(n int) int { i++; return i % n }})
	login, ok := p.Named("login")
	if !ok || !login.Pinned() || login.Profile() != "chrome" {
		t.Fatalf("Named: %v %v %q", ok, login.Pinned(), login.Profile())
	}
	var names []string
	for range 3 {
		names = append(names, p.Pick().Name())
	}
	if !slices.Equal(names, []string{"s1", "s2", "s3"}) {
		t.Errorf("first draws %v, want s1 s2 s3", names)
	}
	if got := []string{p.Get("s1").Profile(), p.Get("s2").Profile(), p.Get("s3").Profile()}; !slices.Equal(got, []string{"firefox", "chrome", "firefox"}) {
		t.Errorf("profiles %v", got)
	}
	for range 20 {
		if s := p.Pick(); s == login {
			t.Fatal("a pinned session was drawn")
		}
	}
	for range 5 {
		p.Named("login")
	}
	p.MarkBad(login)
	if login.Retired() || login.Info().UsageCount != 6 {
		t.Errorf("a pinned session retired by its usage or errors: %+v", login.Info())
	}
	if p.Get("s1").Info().UsageCount > 2 || !p.Get("s1").Retired() {
		t.Errorf("s1: %+v: want retired at 2 uses", p.Get("s1").Info())
	}
	if a := p.Active(); a != 4 {
		t.Errorf("Active = %d, want 4 (3 drawn, 1 pinned)", a)
	}
	p.RetireName("login", session.ReasonManual)
	if a := p.Active(); a != 3 {
		t.Errorf("Active = %d after the pinned session retired, want 3", a)
	}
	if _, ok := p.Named("login"); ok {
		t.Errorf("a retired pinned session is still usable")
	}
	p.RetireName("never-seen", session.ReasonElsewhere)
	if _, ok := p.Named("never-seen"); ok {
		t.Errorf("a name retired elsewhere was created")
	}
	for _, in := range p.List() {
		if in.Name == "never-seen" {
			t.Errorf("List shows a name that was never a session here")
		}
	}
}

// TestPoolSaveRestore: a restored pool has the same sessions, counters and cookies; its
// retired sessions (saved, or recorded after the save) stay retired; names go on from the
// last; cookies that expired meanwhile are gone.
func TestPoolSaveRestore(t *testing.T) {
	t.Parallel()
	c := newClock()
	opts := session.Options{Size: 2, MaxUsage: 0, Now: c.now}
	p := session.New(opts)
	s1, s2 := p.Pick(), p.Pick()
	login, _ := p.Named("login")
	u := &url.URL{Scheme: "https", Host: "shop.test", Path: "/cart/view"}
	s1.Jar().SetCookies(u, []*http.Cookie{{Name: "sid", Value: "old"}, {Name: "short", Value: "x", MaxAge: 60}})
	s1.Jar().SetCookies(u, []*http.Cookie{{Name: "sid", Value: "new"}, {Name: "wide", Value: "w", Path: "/", Domain: "shop.test"}})
	login.Jar().SetCookies(u, []*http.Cookie{{Name: "auth", Value: "tok", Expires: c.now().Add(time.Hour)}})
	p.MarkBad(s1)
	s1.UsedProxy("http://***@proxy.test:8080")
	p.Retire(s2, session.ReasonBlocked)
	b, err := p.Save()
	if err != nil {
		t.Fatal(err)
	}
	c.add(2 * time.Minute) // "short" expires
	q := session.New(opts)
	if err := q.Restore(b, []string{"login"}); err != nil {
		t.Fatal(err)
	}
	r1 := q.Get("s1")
	if r1 == nil || r1.Retired() || r1.Info().ErrorScore != 1 || r1.Info().UsageCount != 1 || r1.Info().Proxy != "http://***@proxy.test:8080" {
		t.Fatalf("s1 restored as %+v", r1)
	}
	var got []string
	for _, ck := range r1.Jar().Cookies(u) {
		got = append(got, ck.Name+"="+ck.Value)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"sid=new", "wide=w"}) {
		t.Errorf("s1's cookies after the resume: %v", got)
	}
	if !q.Get("s2").Retired() || !q.Get("login").Retired() {
		t.Errorf("retired sessions came back")
	}
	if _, ok := q.Named("login"); ok {
		t.Errorf("the pinned session retired after the save is usable")
	}
	for range 10 {
		if n := q.Pick().Name(); n == "s2" || n == "login" {
			t.Fatalf("drew retired %s", n)
		}
	}
	if n := q.List()[len(q.List())-1].Name; n != "s3" {
		t.Errorf("a new session after the resume is %s, want s3", n)
	}
}
