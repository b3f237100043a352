package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jscrawl/jscrawl/engine/session"
	"github.com/jscrawl/jscrawl/types"
)

// BlockDetector is implemented by a spider that recognises blocks a status does not tell
// (jsapi.Spider: the spider's isBlocked(response) method), such as a 200 with a challenge
// page. SessionMiddleware asks it about every response whose status is not in
// SESSION_BLOCKED_STATUS_CODES, from download goroutines, concurrently.
type BlockDetector interface {
	// DetectsBlocks reports whether the spider defines the check; New asks once.
	DetectsBlocks() bool
	// IsBlocked reports whether resp is a block. A check that fails is not a block (the
	// spider logs why).
	IsBlocked(ctx context.Context, resp *types.Response) bool
}

// SessionRegistry is implemented by the scheduler of a crawl that several processes share
// (the Redis frontier): it tells each worker a prefix for the names of the sessions it
// creates, so that no two workers create the same one, and keeps the crawl's set of retired
// session names, so that a session one worker retired (a pinned one, which every worker
// may use) is not used by another. SessionMiddleware calls it from download goroutines.
type SessionRegistry interface {
	// SessionPrefix starts the names of this worker's sessions.
	SessionPrefix() string
	// SessionRetired reports whether a worker of the crawl retired the session name.
	SessionRetired(ctx context.Context, name string) (bool, error)
	// RetireSession adds name to the crawl's retired sessions. It returns at once (it may
	// be called on a VM's loop: crawler.sessions.retire); the write happens in the
	// background, before the scheduler's Close returns.
	RetireSession(name string)
}

// SessionStore is implemented by a Committer that keeps the session pool across the runs
// of a job (engine/job's Job): New restores the pool from it and gives it the pool's Save
// for each commit; retirements are recorded at once, so a session retired after the last
// commit stays retired after a kill.
type SessionStore interface {
	// SavedSessions returns the pool as the last commit saved it (nil: none) and the
	// sessions retired since.
	SavedSessions() (state []byte, retired []string)
	// KeepSessions gives the store the function that serialises the pool for a commit.
	KeepSessions(save func() ([]byte, error))
	// RecordRetired records that the session name retired.
	RecordRetired(name string)
}

// SessionForgetter is implemented by a downloader middleware that keeps something per
// session, such as a proxy pool's PROXY_ROTATION=per_session assignment (keyed by
// DownloadSession.Name): when the session pool is on, New has it forget each session that
// retires, on the goroutine that retired it (a download's, or a VM loop's for
// crawler.sessions.retire), so ForgetSession must not block.
type SessionForgetter interface {
	ForgetSession(name string)
}

// SessionMiddleware runs each download under a session of the session pool
// (SESSION_POOL_ENABLED; Crawlee: SessionPool with useSessionPool), which the middlewares
// and the download handler below find with SessionOf: CookiesMiddleware keeps the
// session's cookies in its own jar, a proxy pool gives it its proxy, HTTP_IMPERSONATE its
// profile. Its order, 560, is inside RetryMiddleware and outside the redirect middlewares,
// and a redirect continues on the session of its chain (meta.sessionHop).
//
// A download with no meta.session draws a session at random (session.Pool.Pick). A
// response whose status is in SESSION_BLOCKED_STATUS_CODES, or that the spider's isBlocked
// calls a block, is counted in session/blocked_count; its session retires and the request
// runs again at once on another session, up to SESSION_MAX_ROTATIONS times, after which it
// fails with a SessionBlockedError. A connection error or a timeout adds 1 to the
// session's error score, a success takes 0.5 off.
//
// meta.session pins a download to the session of that name, created on first use. A
// blocked response of a pinned session is not rotated: it goes on, with
// response.session.blocked true, and the spider decides (crawler.sessions.retire). A
// download pinned to a retired session fails with a SessionBlockedError.
//
// Stats: session/created_count, session/blocked_count, session/retired_count,
// session/retired_reason_count/<reason>, session/rotation_count and the gauge
// session/active. Safe for concurrent use.
type SessionMiddleware struct {
	pool      *session.Pool
	codes     map[int]bool
	rotations int
	detector  BlockDetector
	registry  SessionRegistry
	stats     *Stats
	logger    *slog.Logger
}

// NewSessionMiddleware returns a SessionMiddleware drawing from pool, configured from
// settings. detector (nil: none) is the spider's isBlocked; registry (nil: none) shares
// retirements among the workers of a crawl.
func NewSessionMiddleware(settings *types.Settings, pool *session.Pool, detector BlockDetector, registry SessionRegistry, stats *Stats, logger *slog.Logger) *SessionMiddleware {
	m := &SessionMiddleware{pool: pool, codes: map[int]bool{}, rotations: max(settings.Int(types.SessionMaxRotations), 0),
		registry: registry, stats: stats, logger: orDiscard(logger)}
	if detector != nil && detector.DetectsBlocks() {
		m.detector = detector
	}
	for _, c := range settings.IntList(types.SessionBlockedStatusCodes) {
		m.codes[c] = true
	}
	return m
}

// NewSessionPool returns the session pool settings configure: SESSION_POOL_SIZE,
// SESSION_MAX_USAGE, SESSION_MAX_ERRORS and the profiles of HTTP_IMPERSONATE, which the
// sessions take in turn (names and profile.json paths alike; none when it is empty). prefix
// starts the names of the sessions ("s" when empty).
func NewSessionPool(settings *types.Settings, prefix string) *session.Pool {
	var profiles []string
	if v := strings.TrimSpace(settings.String(types.HTTPImpersonate)); v != "" {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				profiles = append(profiles, p)
			}
		}
	}
	return session.New(session.Options{
		Size:      settings.Int(types.SessionPoolSize),
		MaxUsage:  settings.Int(types.SessionMaxUsage),
		MaxErrors: float64(settings.Int(types.SessionMaxErrors)),
		Profiles:  profiles,
		Prefix:    prefix,
	})
}

// Fetch implements DownloaderMiddleware.
func (m *SessionMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	pinned, _ := req.MetaValue(types.MetaSession).(string)
	for rotation := 0; ; rotation++ {
		var s *session.Session
		switch {
		case pinned != "":
			var err error
			if s, err = m.named(ctx, req, pinned); err != nil {
				countException(m.stats, err)
				return nil, err
			}
		case rotation == 0:
			if hop, _ := req.MetaValue(types.MetaSessionHop).(string); hop != "" {
				s = m.pool.Resume(hop)
			}
		}
		if s == nil {
			s = m.pool.Pick()
		}
		resp, err := next.Fetch(WithSession(ctx, s), req)
		var re *RescheduleError
		switch {
		case errors.As(err, &re):
			// A redirect: the chain goes on with this session.
			if pinned == "" && re.Request != nil {
				re.Request.Meta.Set(types.MetaSessionHop, s.Name())
			}
			return nil, err
		case err != nil:
			if ctx.Err() == nil && retryable(err) {
				m.pool.MarkBad(s)
			}
			return nil, err
		case resp == nil:
			return nil, nil
		}
		blocked := m.codes[resp.Status]
		if !blocked && m.detector != nil {
			resp.Session = state(s, false) // for isBlocked to read
			blocked = m.detector.IsBlocked(ctx, resp)
		}
		if !blocked {
			m.pool.MarkGood(s)
			resp.Session = state(s, false)
			return resp, nil
		}
		m.stats.Inc("session/blocked_count", 1)
		if pinned != "" {
			m.logger.Warn(fmt.Sprintf("Session %q was blocked by %s (%d): it is pinned (meta.session), so the response goes on with response.session.blocked", s.Name(), reqString(req), resp.Status))
			resp.Session = state(s, true)
			return resp, nil
		}
		m.pool.Retire(s, session.ReasonBlocked)
		if rotation >= m.rotations || ctx.Err() != nil || isStopping(ctx) {
			ClosePage(resp)
			err := &SessionBlockedError{URL: req.URL, Session: s.Name(), Rotations: m.rotations, Status: resp.Status}
			m.logger.Error(fmt.Sprintf("Gave up %s: %v", reqString(req), err))
			countException(m.stats, err)
			return nil, err
		}
		ClosePage(resp)
		m.stats.Inc("session/rotation_count", 1)
		m.logger.Debug(fmt.Sprintf("Session %q was blocked by %s (%d): retired, trying another one", s.Name(), reqString(req), resp.Status))
	}
}

// named returns the session a download is pinned to, or a SessionBlockedError when it is
// retired, here or (a shared crawl) by another worker.
func (m *SessionMiddleware) named(ctx context.Context, req *types.Request, name string) (*session.Session, error) {
	if m.registry != nil {
		retired, err := m.registry.SessionRetired(ctx, name)
		if err != nil {
			return nil, &DownloadError{Name: NameError, URL: req.URL, Err: fmt.Errorf("session %q: %w", name, err)}
		}
		if retired {
			m.pool.RetireName(name, session.ReasonElsewhere)
		}
	}
	s, ok := m.pool.Named(name)
	if !ok {
		return nil, &SessionBlockedError{URL: req.URL, Session: name, Retired: true}
	}
	return s, nil
}

// state is what response.session shows of s.
func state(s *session.Session, blocked bool) *types.SessionState {
	in := s.Info()
	return &types.SessionState{Name: in.Name, UsageCount: in.UsageCount, ErrorScore: in.ErrorScore, Retired: in.Retired, Blocked: blocked}
}

// sessionPool makes the crawl's session pool (SESSION_POOL_ENABLED; nil when off) and its
// hooks: the stats, the SessionRegistry of a shared crawl's scheduler, the SessionStore of a
// job's committer (the pool is restored from it).
func (d *downloadSide) sessionPool(committer Committer) *session.Pool {
	if !d.settings.Bool(types.SessionPoolEnabled) {
		return nil
	}
	registry := d.parts.Sessions
	prefix := ""
	if registry != nil {
		prefix = registry.SessionPrefix()
	}
	pool := NewSessionPool(d.settings, prefix)
	if store, ok := committer.(SessionStore); ok {
		saved, retired := store.SavedSessions()
		if err := pool.Restore(saved, retired); err != nil {
			d.logger.Error(fmt.Sprintf("Could not restore the sessions of the job (starting with none): %v", err))
		}
		store.KeepSessions(pool.Save)
		pool.OnRetire(func(s *session.Session, _ string) { store.RecordRetired(s.Name()) })
	}
	active := func() { d.stats.Set("session/active", int64(pool.Active())) }
	pool.OnCreate(func(*session.Session) {
		d.stats.Inc("session/created_count", 1)
		active()
	})
	pool.OnRetire(func(s *session.Session, reason string) {
		d.stats.Inc("session/retired_count", 1)
		d.stats.Inc("session/retired_reason_count/"+reason, 1)
		active()
		if registry != nil && reason != session.ReasonElsewhere {
			registry.RetireSession(s.Name())
		}
	})
	active()
	return pool
}

// Sessions returns the crawl's session pool (crawler.sessions), nil without
// SESSION_POOL_ENABLED. Its OnRetire is where a proxy pool forgets a retired session's
// proxy.
func (e *Engine) Sessions() *session.Pool { return e.dl.sessions }

// Interface guards
var (
	_ DownloaderMiddleware = (*SessionMiddleware)(nil)
	_ DownloadSession      = (*session.Session)(nil)
)
