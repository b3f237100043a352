package engine

import (
	"bytes"
	"context"
	"io"
	"sync"
)

// chunkSize is the size of the pieces a body of unknown length is read in.
const chunkSize = 64 << 10

// pooledChunks is how many chunks of one body go back to chunkPool: enough for the pages
// of a crawl, not so many that one huge body parks its size in the pool.
const pooledChunks = 16

// chunkPool holds chunkSize buffers between bodies of unknown length.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// readBodyExact reads r to the end and returns exactly the bytes read, so a body costs
// its size plus a constant, not up to twice it as a doubling buffer would. size ≥ 0 is the
// expected length (an identity Content-Length): the body is allocated once at that size.
// Otherwise (size < 0) it is read in chunkSize pieces, from a pool, and joined once at the
// exact size; a body cut by an error (the size limit's meter) is never joined. res, when
// not nil, is grown as bytes arrive: reading waits for room in DOWNLOAD_MEMORY_BUDGET.
func readBodyExact(ctx context.Context, r io.Reader, size int64, res *reservation) ([]byte, error) {
	if size >= 0 {
		if res != nil {
			res.exact = true
		}
		if err := res.cover(ctx, size); err != nil {
			return nil, err
		}
		body := make([]byte, size)
		n, eof, err := readFull(r, body)
		if err != nil {
			return nil, err
		}
		if eof { // net/http returns io.EOF with a body's last bytes
			return body[:n], nil
		}
		// At the expected size without io.EOF yet: read on to see it, which lets net/http
		// reuse the connection (a file may even have grown).
		var probe [1]byte
		m, err := r.Read(probe[:])
		if m == 0 {
			if err == io.EOF {
				err = nil
			}
			return body, err
		}
		rest, err := readChunks(ctx, io.MultiReader(bytes.NewReader(probe[:m]), r), size, res)
		if err != nil {
			return nil, err
		}
		return append(body, rest...), nil
	}
	return readChunks(ctx, r, 0, res)
}

// readFull reads into p until it is full, r fails or r ends (eof; io.EOF is not an error
// here).
func readFull(r io.Reader, p []byte) (n int, eof bool, err error) {
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err == io.EOF {
			return n, true, nil
		}
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// readChunks reads r to the end in pooled chunks and joins them; held is what the caller
// already holds of this body (for the reservation).
func readChunks(ctx context.Context, r io.Reader, held int64, res *reservation) ([]byte, error) {
	var first [4]*[]byte
	chunks := first[:0]
	defer func() {
		for i, c := range chunks {
			if i < pooledChunks {
				chunkPool.Put(c)
			}
		}
	}()
	total := int64(0)
	last := 0 // bytes used in the last chunk
	for {
		if err := res.cover(ctx, held+total+chunkSize); err != nil {
			return nil, err
		}
		c := chunkPool.Get().(*[]byte)
		chunks = append(chunks, c)
		n, eof, err := readFull(r, *c)
		total += int64(n)
		last = n
		if err != nil {
			return nil, err
		}
		if eof {
			break
		}
	}
	body := make([]byte, total)
	off := 0
	for i, c := range chunks {
		if i == len(chunks)-1 {
			off += copy(body[off:], (*c)[:last])
		} else {
			off += copy(body[off:], *c)
		}
	}
	return body, nil
}

// memBudget bounds the bytes of the response bodies being received at once
// (DOWNLOAD_MEMORY_BUDGET): a download reserves room as its body arrives and waits for
// room when there is none, so a burst of big bodies queues instead of exhausting memory.
// Reservations are released once the body is complete (or failed).
//
// Waiting while holding room could deadlock (two bodies each holding half the budget,
// each waiting for the other), so:
//   - a body of known length reserves it all before its first byte, or waits holding
//     nothing;
//   - a body of unknown length reserves share at first, and only one such body at a time
//     (the one holding the growth token) grows past share. share is budget/2 divided
//     among CONCURRENT_REQUESTS, and the shares held together stay within half the
//     budget, so the token holder always gets half the budget once the bodies of known
//     length (which never wait once started) are done;
//   - one download's reservation is capped at the budget: a body larger than the budget
//     goes on alone past it rather than wait forever;
//   - should every download holding room still be waiting, the token holder is let
//     through over the budget (each such body counted once in
//     downloader/memory_budget_overdraft_count). Only a body of unknown length over half
//     the budget can need this, and it overdraws by at most the other half.
//
// Waits honour ctx and are counted in downloader/memory_budget_wait_count. Safe for
// concurrent use.
type memBudget struct {
	size  int64 // bytes; 0: no budget
	share int64 // the first reservation of a body of unknown length
	stats *Stats

	mu      sync.Mutex
	used    int64
	peak    int64
	shared  int64         // room held as first reservations of bodies of unknown length
	holders int           // reservations holding room
	blocked int           // holders waiting (for the token or for room)
	starts  []*budgetWait // first reservations waiting, in arrival order
	tokenQ  []*budgetWait // holders waiting for the growth token
	grow    *budgetWait   // the token holder's wait for room
	token   *reservation  // holder of the growth token
}

// budgetWait is one waiting reservation request.
type budgetWait struct {
	res   *reservation
	n     int64
	ready chan struct{}
	done  bool // granted (under memBudget.mu)
}

// reservation is one download's room in a memBudget. A nil *reservation (no budget) is
// valid and never waits.
type reservation struct {
	b         *memBudget
	n         int64
	exact     bool  // the body's length is known: reserve it all at once
	full      bool  // capped at the budget: no more reservations
	share     int64 // its part of memBudget.shared
	overdrawn bool  // went past the budget (counted once)
}

func newMemBudget(size int64, concurrency int, stats *Stats) *memBudget {
	if size <= 0 {
		return nil
	}
	share := size / int64(2*max(concurrency, 1))
	share = min(max(share, chunkSize), max(size/2, 1))
	return &memBudget{size: size, share: share, stats: stats}
}

// reserve returns a reservation holding nothing yet; nil when b is nil (no budget).
func (b *memBudget) reserve() *reservation {
	if b == nil {
		return nil
	}
	return &reservation{b: b}
}

// cover makes r hold room for total bytes of its body (capped at the budget), waiting
// for it as needed.
func (r *reservation) cover(ctx context.Context, total int64) error {
	if r == nil || r.full || total <= r.n {
		return nil
	}
	b := r.b
	b.mu.Lock()
	var w *budgetWait
	switch {
	case r.n == 0:
		// First reservation: a known length all at once, an unknown one share.
		n := b.share
		if r.exact {
			n = total
		}
		n = min(n, b.size)
		if len(b.starts) == 0 && b.grow == nil && b.admits(r, n) {
			b.grant(r, n)
			b.mu.Unlock()
			return nil
		}
		w = &budgetWait{res: r, n: n, ready: make(chan struct{})}
		b.starts = append(b.starts, w)
	case b.token != r:
		// Growing past the first reservation takes the growth token.
		w = &budgetWait{res: r, ready: make(chan struct{})}
		b.tokenQ = append(b.tokenQ, w)
		b.blocked++
		b.dispatch()
	default:
		n := min(total, b.size) - r.n
		if b.used+n <= b.size {
			b.grant(r, n)
			b.mu.Unlock()
			return nil
		}
		w = &budgetWait{res: r, n: n, ready: make(chan struct{})}
		b.grow = w
		b.blocked++
		b.dispatch()
	}
	if w.done { // granted by dispatch at once
		b.mu.Unlock()
		return r.cover(ctx, total)
	}
	b.stats.Inc("downloader/memory_budget_wait_count", 1)
	b.mu.Unlock()
	select {
	case <-w.ready:
	case <-ctx.Done():
		b.mu.Lock()
		if !w.done {
			b.cancel(w)
			b.mu.Unlock()
			return ctx.Err()
		}
		b.mu.Unlock()
	}
	return r.cover(ctx, total) // the token may come before the room
}

// admits reports whether r's first reservation of n bytes fits now (under b.mu): within
// the budget and, for a body of unknown length, within half of it with the other shares
// (one share always fits if there is room).
func (b *memBudget) admits(r *reservation, n int64) bool {
	if b.used+n > b.size {
		return false
	}
	return r.exact || b.shared == 0 || b.shared+n <= b.size/2
}

// grant gives r n more bytes of room (under b.mu).
func (b *memBudget) grant(r *reservation, n int64) {
	if r.n == 0 && n > 0 {
		b.holders++
		if !r.exact {
			r.share = n
			b.shared += n
		}
	}
	r.n += n
	b.used += n
	b.peak = max(b.peak, b.used)
	if r.n >= b.size {
		r.full = true
	}
}

// dispatch grants what waiting requests it can (under b.mu): the token holder's room
// first, then the token, then first reservations in arrival order, which wait while the
// token holder does.
func (b *memBudget) dispatch() {
	if b.token == nil && len(b.tokenQ) > 0 {
		w := b.tokenQ[0]
		b.tokenQ = b.tokenQ[1:]
		b.token = w.res
		b.blocked--
		b.wake(w)
	}
	if g := b.grow; g != nil {
		switch {
		case b.used+g.n <= b.size:
		case b.blocked == b.holders:
			// Every holder waits: nobody would ever release room.
			if !g.res.overdrawn {
				g.res.overdrawn = true
				b.stats.Inc("downloader/memory_budget_overdraft_count", 1)
			}
		default:
			return
		}
		b.grow = nil
		b.blocked--
		b.grant(g.res, g.n)
		b.wake(g)
	}
	for len(b.starts) > 0 {
		w := b.starts[0]
		if !b.admits(w.res, w.n) {
			return
		}
		b.starts = b.starts[1:]
		b.grant(w.res, w.n)
		b.wake(w)
	}
}

func (b *memBudget) wake(w *budgetWait) {
	w.done = true
	close(w.ready)
}

// cancel removes a waiting request whose context ended (under b.mu).
func (b *memBudget) cancel(w *budgetWait) {
	switch {
	case b.grow == w:
		b.grow = nil
		b.blocked--
	default:
		if i := indexOf(b.tokenQ, w); i >= 0 {
			b.tokenQ = append(b.tokenQ[:i], b.tokenQ[i+1:]...)
			b.blocked--
		} else if i := indexOf(b.starts, w); i >= 0 {
			b.starts = append(b.starts[:i], b.starts[i+1:]...)
		}
	}
	b.dispatch()
}

func indexOf(ws []*budgetWait, w *budgetWait) int {
	for i, x := range ws {
		if x == w {
			return i
		}
	}
	return -1
}

// release gives back r's room and growth token.
func (r *reservation) release() {
	if r == nil {
		return
	}
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.n > 0 {
		b.holders--
		b.used -= r.n
		b.shared -= r.share
		r.n, r.share = 0, 0
	}
	if b.token == r {
		b.token = nil
	}
	b.dispatch()
}

// peakUsed returns the most room held at once (for tests).
func (b *memBudget) peakUsed() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}
