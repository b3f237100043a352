package jsapi

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/session"
	"github.com/jscrawl/jscrawl/types"
)

// DetectsBlocks reports whether the spider has an isBlocked method
// (engine.BlockDetector).
func (s *Spider) DetectsBlocks() bool { return s.HasCallback("isBlocked") }

// IsBlocked calls the spider's isBlocked(response) on its first VM and awaits it: a truthy
// result is a block (engine.BlockDetector; SESSION_POOL_ENABLED only). A thrown error or a
// rejection is logged with its JS stack and is not a block. Called concurrently from
// download goroutines.
func (s *Spider) IsBlocked(ctx context.Context, resp *types.Response) bool {
	vm, err := s.vm0()
	if err != nil {
		return false
	}
	st := s.state(vm)
	const where = "isBlocked"
	id := s.running.addCallback(where, resp.URL, vm)
	defer s.running.removeCallback(id)
	var blocked atomic.Bool
	err = st.awaitWithin(ctx, where, resp.URL, func(rt *goja.Runtime) (goja.Value, error) {
		fn, ok := goja.AssertFunction(st.spider.Get("isBlocked"))
		if !ok {
			return nil, nil
		}
		jr, err := st.responseToJS(&respHandle{resp: resp})
		if err != nil {
			return nil, err
		}
		return fn(st.spider, jr)
	}, func(v goja.Value) error {
		blocked.Store(v != nil && v.ToBoolean())
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			s.logger.Error(fmt.Sprintf("isBlocked(%s) failed, so the response counts as not blocked: %v", resp.URL, err))
		}
		return false
	}
	return blocked.Load()
}

// ResponseSession(h) is response.session: the session that served the response (name,
// usageCount, errorScore, retired, blocked), or null without SESSION_POOL_ENABLED.
func (r responseClass) ResponseSession(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	ss := h.resp.Session
	if ss == nil {
		return goja.Null(), nil
	}
	o := r.st.rt.NewObject()
	_ = o.Set("name", ss.Name)
	_ = o.Set("usageCount", ss.UsageCount)
	_ = o.Set("errorScore", ss.ErrorScore)
	_ = o.Set("retired", ss.Retired)
	_ = o.Set("blocked", ss.Blocked)
	return o, nil
}

// sessionPool is what this.crawler.sessions reaches of the crawler: the engine's pool.
type sessionPool interface {
	Sessions() *session.Pool
}

// crawlerSessions is this.crawler.sessions: the session pool's sessions, listed and
// retired (SESSION_POOL_ENABLED; Crawlee: crawler.sessionPool).
//
// `this.crawler.sessions`: the session pool (SESSION_POOL_ENABLED; Crawlee: SessionPool).
//
//jscrawl:class interface Sessions
type crawlerSessions struct{ st *vmState }

func (x crawlerSessions) pool() *session.Pool {
	if sp, ok := x.st.s.crawler.(sessionPool); ok {
		return sp.Sessions()
	}
	return nil
}

// List returns every session, retired ones included, oldest first ([] without the pool).
//
//jscrawl:ts list(): SessionInfo[];
func (x crawlerSessions) List(goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	var out []any
	if p := x.pool(); p != nil {
		for _, in := range p.List() {
			o := rt.NewObject()
			_ = o.Set("name", in.Name)
			_ = o.Set("usageCount", in.UsageCount)
			_ = o.Set("errorScore", in.ErrorScore)
			if d, err := rt.New(rt.Get("Date"), rt.ToValue(in.CreatedAt.UnixMilli())); err == nil {
				_ = o.Set("createdAt", d)
			}
			_ = o.Set("proxy", in.Proxy)
			_ = o.Set("profile", in.Profile)
			_ = o.Set("pinned", in.Pinned)
			_ = o.Set("retired", in.Retired)
			out = append(out, o)
		}
	}
	return rt.NewArray(out...), nil
}

// Retire retires the named session, its cookies and proxy with it: true if it was usable.
// A name never used is recorded as retired, so a request pinned to it fails.
//
//jscrawl:ts retire(name: string): boolean;
func (x crawlerSessions) Retire(c goja.FunctionCall) (goja.Value, error) {
	p := x.pool()
	if p == nil {
		return nil, typeError("crawler.sessions.retire(): the session pool is off (SESSION_POOL_ENABLED)")
	}
	name := c.Argument(0)
	if goja.IsUndefined(name) || goja.IsNull(name) || name.String() == "" {
		return nil, typeError("crawler.sessions.retire() needs a session name")
	}
	return x.st.rt.ToValue(p.RetireName(name.String(), session.ReasonManual)), nil
}

// Interface guards
var (
	_ engine.BlockDetector = (*Spider)(nil)
	_ sessionPool          = (*engine.Engine)(nil)
)
