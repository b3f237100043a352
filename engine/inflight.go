package engine

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// Download states reported by Engine.Downloads.
const (
	// StateWaitingForSlot: the download waits for its slot (CONCURRENT_REQUESTS_PER_DOMAIN,
	// DOWNLOAD_DELAY) or for the global CONCURRENT_REQUESTS limit.
	StateWaitingForSlot = "waiting for slot"
	// StateDownloading: the request is on the wire or its body is being read.
	StateDownloading = "downloading"
	// StateRetryWait: the RetryMiddleware waits before trying again (RETRY_BACKOFF_BASE,
	// Retry-After).
	StateRetryWait = "retry wait"
)

var stateNames = [...]string{StateWaitingForSlot, StateDownloading, StateRetryWait}

const (
	stateWaiting int32 = iota
	stateDownloading
	stateRetryWait
)

// DownloadInfo describes one download in flight at the bottom of the downloader chain
// (below the middlewares: a retry registers again with Retries one higher), or one waiting
// in the RetryMiddleware before its next try.
type DownloadInfo struct {
	ID      uint64    `json:"id"`
	URL     string    `json:"url"`
	Method  string    `json:"method"`
	Slot    string    `json:"slot"`
	State   string    `json:"state"`
	Started time.Time `json:"started"`
	Retries int       `json:"retries,omitempty"`
	// Origin is the id given with WithOrigin by whoever called Engine.Download (jsapi: the
	// inline download); 0 for a scheduled download.
	Origin uint64 `json:"origin,omitempty"`
}

type originKey struct{}

// WithOrigin tags the downloads made with ctx with id, which Engine.Downloads reports as
// DownloadInfo.Origin, so a caller of Engine.Download can find its downloads (jsapi: the
// callback awaiting an inline download).
func WithOrigin(ctx context.Context, id uint64) context.Context {
	return context.WithValue(ctx, originKey{}, id)
}

// inflight is the registry of downloads in flight: one mutex'd map insert and delete per
// download, read only when someone asks (the control endpoint). Safe for concurrent use.
type inflight struct {
	mu   sync.Mutex
	last uint64
	m    map[uint64]*flight
}

type flight struct {
	info  DownloadInfo // immutable once registered
	state atomic.Int32
}

type (
	flightKey   struct{}
	registryKey struct{}
)

// add registers a download of req in state and returns it.
func (r *inflight) add(ctx context.Context, req *types.Request, state int32) *flight {
	origin, _ := ctx.Value(originKey{}).(uint64)
	f := &flight{info: DownloadInfo{URL: req.URL, Method: req.HTTPMethod(), Slot: SlotKey(req),
		Started: time.Now(), Retries: req.Retries, Origin: origin}}
	f.state.Store(state)
	r.mu.Lock()
	if r.m == nil {
		r.m = map[uint64]*flight{}
	}
	r.last++
	f.info.ID = r.last
	r.m[f.info.ID] = f
	r.mu.Unlock()
	return f
}

func (r *inflight) remove(f *flight) {
	r.mu.Lock()
	delete(r.m, f.info.ID)
	r.mu.Unlock()
}

// scope wraps the whole chain: middlewares find the registry in the context (retryWait).
func (r *inflight) scope(next Downloader) Downloader {
	return DownloaderFunc(func(ctx context.Context, req *types.Request) (*types.Response, error) {
		return next.Fetch(context.WithValue(ctx, registryKey{}, r), req)
	})
}

// track wraps next (the download slots): each download is registered while next runs,
// first waiting for its slot; markDownloading below the slots flips its state.
func (r *inflight) track(next Downloader) Downloader {
	return DownloaderFunc(func(ctx context.Context, req *types.Request) (*types.Response, error) {
		f := r.add(ctx, req, stateWaiting)
		defer r.remove(f)
		return next.Fetch(context.WithValue(ctx, flightKey{}, f), req)
	})
}

// markDownloading wraps the HTTP downloader: the download got its slot.
func markDownloading(next Downloader) Downloader {
	return DownloaderFunc(func(ctx context.Context, req *types.Request) (*types.Response, error) {
		if f, ok := ctx.Value(flightKey{}).(*flight); ok {
			f.state.Store(stateDownloading)
		}
		return next.Fetch(ctx, req)
	})
}

// retryWait waits d before req is tried again, or until ctx is done; meanwhile req is listed
// in state "retry wait" when ctx comes through the engine's downloader.
func retryWait(ctx context.Context, req *types.Request, d time.Duration) error {
	if r, ok := ctx.Value(registryKey{}).(*inflight); ok && d > 0 {
		f := r.add(ctx, req, stateRetryWait)
		defer r.remove(f)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-stoppingCh(ctx):
		return errStopping
	}
}

// errStopping ends a retry wait when the crawl starts closing.
var errStopping = errors.New("the spider is closing")

// snapshot returns the downloads in flight, oldest first.
func (r *inflight) snapshot() []DownloadInfo {
	r.mu.Lock()
	out := make([]DownloadInfo, 0, len(r.m))
	for _, f := range r.m {
		info := f.info
		info.State = stateNames[f.state.Load()]
		out = append(out, info)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b DownloadInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Downloads returns the downloads in flight now, scheduled and inline, oldest first (for
// `jscrawl ps`). Safe from any goroutine.
func (e *Engine) Downloads() []DownloadInfo { return e.dl.inflight.snapshot() }
