package frontier_test

import (
	"encoding/binary"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// v1Prio is format 1's priority bytes (higher priorities first).
func v1Prio(b []byte, p int) []byte {
	return binary.BigEndian.AppendUint64(b, ^(uint64(int64(p)) ^ 1<<63))
}

// writeV1Store writes by hand a store of format 1 (no slots): for each priority its
// requests bottom to top, one of them leased at the commit, uncommitted garbage
// (a request above a committed range, a fingerprint of a later generation), what an
// interrupted migration to format 2 left (p, r, k keys), and meta.
func writeV1Store(t *testing.T, dir string, queues map[int][]*types.Request, leased *types.Request) {
	t.Helper()
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	const committed, leaseSeq = 3, 7
	set := func(k, v []byte) {
		if err := b.Set(k, v, nil); err != nil {
			t.Fatal(err)
		}
	}
	set([]byte("f"), []byte{1})
	set([]byte("g"), binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, committed), leaseSeq))
	seen := func(rq *types.Request, gen uint64) {
		fp := frontier.Fingerprint(rq)
		set(append([]byte("s"), fp[:]...), binary.AppendUvarint(nil, gen))
	}
	for p, reqs := range queues {
		lo := uint64(1<<62 + 10) // not where a new store starts: ranges are read from i
		for i, rq := range reqs {
			set(binary.BigEndian.AppendUint64(v1Prio([]byte("q"), p), lo+uint64(i)), frontier.EncodeRequest(nil, rq))
			seen(rq, 2)
		}
		hi := lo + uint64(len(reqs))
		v := binary.BigEndian.AppendUint64(nil, lo)
		v = binary.BigEndian.AppendUint64(v, hi)
		v = binary.BigEndian.AppendUint64(v, uint64(len(reqs)))
		set(v1Prio([]byte("i"), p), v)
		garbage := &types.Request{URL: fmt.Sprintf("http://garbage/%d", p), Priority: p}
		set(binary.BigEndian.AppendUint64(v1Prio([]byte("q"), p), hi+5), frontier.EncodeRequest(nil, garbage))
		seen(garbage, committed+1)
	}
	set(binary.BigEndian.AppendUint64([]byte("l"), 6), frontier.EncodeRequest(nil, leased))
	half := binary.BigEndian.AppendUint32([]byte("p"), 1)
	half = binary.BigEndian.AppendUint64(v1Prio(half, 0), 1<<62)
	set(half, frontier.EncodeRequest(nil, &types.Request{URL: "http://half/1"}))
	set(v1Prio(binary.BigEndian.AppendUint32([]byte("r"), 1), 0),
		binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1<<62), 1<<62+1), 1))
	set(binary.BigEndian.AppendUint32([]byte("k"), 1), []byte("half"))
	seen(leased, 1)
	set([]byte("mstate"), []byte("v"))
	if err := b.Commit(pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateV1 opens a store of format 1 (a jobdir from before slots): its pending
// requests go to their slots in their order, its lease returns to pending after them, the
// seen-set and meta stay, its garbage goes, and the store is of format 2 afterwards.
func TestMigrateV1(t *testing.T) {
	queues := map[int][]*types.Request{}
	n := 0
	for _, p := range []int{2, 0, -1} {
		for i := range 7 {
			host := []string{"a", "b", "c"}[(i+p+3)%3]
			queues[p] = append(queues[p], &types.Request{URL: fmt.Sprintf("http://%s/%d/%d", host, p, i), Priority: p,
				Meta: types.Item{{Key: "i", Value: int64(i)}}})
			n++
		}
	}
	leased := &types.Request{URL: "http://b/leased", Priority: 0}
	for _, tc := range []struct {
		name    string
		fifo    bool
		slotKey func(*types.Request) string
		chunk   int // bytes of requests per batch (0: the default)
	}{
		{"lifo/slots", false, engine.SlotKey, 0},
		{"fifo/slots", true, engine.SlotKey, 0},
		{"lifo/one slot", false, nil, 0},
		{"fifo/one slot", true, nil, 0},
		{"lifo/slots/batches", false, engine.SlotKey, 100},
		{"fifo/slots/batches", true, engine.SlotKey, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeV1Store(t, dir, queues, leased)
			opts := frontier.Options{FIFO: tc.fifo, Sync: true, SlotKey: tc.slotKey}
			f := open(t, dir, frontier.WithMigrateChunk(opts, tc.chunk))
			if f.Migrated() != n || f.Recovered() != 1 || f.Len() != n+1 || f.SeenCount() != int64(n+1) {
				t.Fatalf("opened: migrated %d, recovered %d, len %d, seen %d; want %d, 1, %d, %d",
					f.Migrated(), f.Recovered(), f.Len(), f.SeenCount(), n, n+1, n+1)
			}
			if string(f.Meta("state")) != "v" {
				t.Fatalf("meta lost: %q", f.Meta("state"))
			}
			if f.Enqueue(&types.Request{URL: queues[2][0].URL, Priority: 2}) {
				t.Fatal("a migrated fingerprint was not seen")
			}
			if !f.Enqueue(&types.Request{URL: "http://garbage/0"}) {
				t.Fatal("an uncommitted fingerprint was seen")
			}
			if err := f.Commit(nil); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			f = open(t, dir, opts) // format 2 now: opens as it is
			defer f.Close()
			if f.Migrated() != 0 || f.Len() != n+2 {
				t.Fatalf("reopened: migrated %d, len %d; want 0, %d", f.Migrated(), f.Len(), n+2)
			}
			key := func(rq *types.Request) string {
				if tc.slotKey == nil {
					return ""
				}
				return tc.slotKey(rq)
			}
			m := &slotModel{fifo: tc.fifo, q: map[string]map[int][]string{}}
			for p, reqs := range queues {
				for _, rq := range reqs {
					m.push(key(rq), p, rq.URL)
				}
			}
			m.push(key(leased), 0, leased.URL)
			g0 := &types.Request{URL: "http://garbage/0"}
			m.push(key(g0), 0, g0.URL)
			var order []string
			for rq := f.Next(); rq != nil; rq = f.Next() {
				if err := m.take(key(rq), rq.Priority, rq.URL); err != nil {
					t.Fatalf("after %v: %v", order, err)
				}
				order = append(order, rq.URL)
			}
			if m.len() != 0 || f.Err() != nil {
				t.Fatalf("%d requests missing, err %v", m.len(), f.Err())
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			checkV2Keys(t, dir)
		})
	}
}

// checkV2Keys checks that the store in dir holds only keys of format 2.
func checkV2Keys(t *testing.T, dir string) {
	t.Helper()
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	it, err := db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	want := map[byte]int{'p': 21, 'r': 13, 'k': 5, 'g': 1, 'f': 1, 's': 17, 'l': 9}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if k[0] == 'm' {
			continue // meta: any length
		}
		if l, ok := want[k[0]]; !ok || len(k) != l {
			t.Errorf("key %x: %d bytes, want %d (%v)", k, len(k), l, ok)
		}
		if k[0] == 'f' && string(it.Value()) != "\x02" {
			t.Errorf("format %x", it.Value())
		}
	}
}

// TestMigrateBig writes a store of format 1 with 2 million requests (FRONTIER_BIG_N) in
// 1,000 hosts, opens it (which moves them to their slots) and reports how long that took
// and the peak Go heap:
//
//	go test -run TestMigrateBig -frontier.big -v ./engine/frontier/
func TestMigrateBig(t *testing.T) {
	n := bigSize(t, "FRONTIER_BIG_N", 2_000_000)
	dir := t.TempDir()
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	commit := func() {
		if err := b.Commit(pebble.NoSync); err != nil {
			t.Fatal(err)
		}
		b = db.NewBatch()
	}
	_ = b.Set([]byte("f"), []byte{1}, nil)
	_ = b.Set([]byte("g"), make([]byte, 16), nil)
	for i := range n {
		rq := slotReq(i, 1000)
		rq.Priority = 0
		_ = b.Set(binary.BigEndian.AppendUint64(v1Prio([]byte("q"), 0), 1<<62+uint64(i)), frontier.EncodeRequest(nil, rq), nil)
		if b.Len() > 4<<20 {
			commit()
		}
	}
	v := binary.BigEndian.AppendUint64(nil, 1<<62)
	v = binary.BigEndian.AppendUint64(v, 1<<62+uint64(n))
	v = binary.BigEndian.AppendUint64(v, uint64(n))
	_ = b.Set(v1Prio([]byte("i"), 0), v, nil)
	commit()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	goruntime.GC()
	mp := startMemPeak()
	start := time.Now()
	f := open(t, dir, frontier.Options{Sync: true, SlotKey: engine.SlotKey})
	took := time.Since(start)
	heap, hwm := mp.end()
	defer f.Close()
	if f.Migrated() != n || f.Len() != n {
		t.Fatalf("migrated %d, len %d; want %d", f.Migrated(), f.Len(), n)
	}
	if s, _, _ := f.SlotCounts(); s != 1000 {
		t.Fatalf("%d slots, want 1000", s)
	}
	t.Logf("%d requests moved to 1,000 slots in %v (%.0f/s); peak Go heap %d MiB, peak RSS %d MiB",
		n, took.Round(time.Millisecond), float64(n)/took.Seconds(), heap>>20, hwm>>20)
}
