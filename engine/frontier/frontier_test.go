package frontier_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

func open(t testing.TB, dir string, opts frontier.Options) *frontier.Frontier {
	t.Helper()
	f, err := frontier.Open(dir, opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return f
}

func memScheduler(t testing.TB, fifo bool) *engine.MemoryScheduler {
	s := types.NewSettings()
	if fifo {
		if err := s.Set(types.SchedulerMemoryQueue, "fifo", 100); err != nil {
			t.Fatal(err)
		}
	}
	return engine.NewMemoryScheduler(s, nil, nil, nil)
}

// TestOrderParity drives a frontier and a MemoryScheduler with the same random sequence
// of enqueues (priorities, duplicates, dontFilter), dequeues, commits and reopens, and
// requires the same answers and order.
func TestOrderParity(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fifo   bool
		limit  int // BufferLimit: small ones write to the store between commits
		commit int // one op in commit commits (0: never)
		reopen int // one op in reopen closes and reopens (after a commit)
	}{
		{"lifo", false, 0, 0, 0},
		{"fifo", true, 0, 0, 0},
		{"lifo/spill", false, 5, 0, 0},
		{"fifo/spill", true, 5, 0, 0},
		{"lifo/commits", false, 7, 50, 0},
		{"fifo/commits", true, 7, 50, 0},
		{"lifo/reopen", false, 3, 40, 400},
		{"fifo/reopen", true, 3, 40, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			dir := t.TempDir()
			opts := frontier.Options{FIFO: tc.fifo, BufferLimit: tc.limit}
			f := open(t, dir, opts)
			defer func() { f.Close() }()
			m := memScheduler(t, tc.fifo)
			urls, deq := 0, 0
			for op := range 6000 {
				switch r := rng.IntN(100); {
				case r < 55: // enqueue, burstier as the run goes on
					req := &types.Request{
						URL:        fmt.Sprintf("http://h/%d", rng.IntN(3000)),
						Priority:   rng.IntN(5) - 2,
						DontFilter: rng.IntN(10) == 0,
						Meta:       types.Item{{Key: "n", Value: int64(urls)}},
					}
					urls++
					got, want := f.Enqueue(req), m.Enqueue(req)
					if got != want {
						t.Fatalf("op %d: Enqueue(%s) = %v, memory scheduler %v", op, req.URL, got, want)
					}
				default:
					got, want := f.Next(), m.Next()
					if (got == nil) != (want == nil) {
						t.Fatalf("op %d: Next = %v, memory scheduler %v", op, got, want)
					}
					if got != nil {
						deq++
						if got.URL != want.URL || got.Priority != want.Priority || !reflect.DeepEqual(got.Meta, want.Meta) {
							t.Fatalf("op %d (dequeue %d): Next = %s %v %v, memory scheduler %s %v %v", op, deq,
								got.URL, got.Priority, got.Meta, want.URL, want.Priority, want.Meta)
						}
						f.Done(got)
					}
				}
				if f.Len() != m.Len() {
					t.Fatalf("op %d: Len = %d, memory scheduler %d", op, f.Len(), m.Len())
				}
				if tc.commit > 0 && rng.IntN(tc.commit) == 0 {
					if err := f.Commit(nil); err != nil {
						t.Fatal(err)
					}
					if tc.reopen > 0 && rng.IntN(tc.reopen/tc.commit) == 0 {
						if err := f.Close(); err != nil {
							t.Fatal(err)
						}
						f = open(t, dir, opts)
					}
				}
			}
			for m.Len() > 0 {
				got, want := f.Next(), m.Next()
				if got == nil || got.URL != want.URL {
					t.Fatalf("drain: Next = %v, memory scheduler %s", got, want.URL)
				}
			}
			if f.Next() != nil || f.Err() != nil {
				t.Fatalf("after the drain: Len %d, err %v", f.Len(), f.Err())
			}
			if deq == 0 {
				t.Fatal("nothing dequeued")
			}
		})
	}
}

func req(url string, prio int) *types.Request {
	return &types.Request{URL: url, Priority: prio}
}

func drain(t testing.TB, f *frontier.Frontier) []string {
	t.Helper()
	var got []string
	for r := f.Next(); r != nil; r = f.Next() {
		got = append(got, r.URL)
	}
	if err := f.Err(); err != nil {
		t.Fatalf("drain: %v", err)
	}
	return got
}

// TestCommitReopen checks what a reopened store holds: the pending requests of the last
// commit in order, its leases back to pending, no done request, the seen-set and meta of
// that commit, and nothing of what followed it.
func TestCommitReopen(t *testing.T) {
	for _, limit := range []int{0, 2} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			dir := t.TempDir()
			opts := frontier.Options{FIFO: true, Sync: true, BufferLimit: limit}
			f := open(t, dir, opts)
			for i := range 10 {
				f.Enqueue(req(fmt.Sprintf("http://h/%d", i), i%2))
			}
			a, b := f.Next(), f.Next()
			f.Next() // /1, /3, /5 (priority 1 first)
			f.Done(a)
			if err := f.Commit(map[string][]byte{"k": []byte("v1"), "x": []byte("x")}); err != nil {
				t.Fatal(err)
			}
			f.Done(b) // done after the commit: not durable
			for i := 10; i < 15; i++ {
				f.Enqueue(req(fmt.Sprintf("http://h/%d", i), 5))
			}
			f.Next()
			f.Next()
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}

			f = open(t, dir, opts)
			defer f.Close()
			if f.Recovered() != 2 || f.Len() != 9 || f.Leased() != 0 || f.SeenCount() != 10 {
				t.Fatalf("reopened: recovered %d, len %d, leased %d, seen %d; want 2, 9, 0, 10",
					f.Recovered(), f.Len(), f.Leased(), f.SeenCount())
			}
			if v := string(f.Meta("k")); v != "v1" {
				t.Fatalf("Meta(k) = %q", v)
			}
			if f.Meta("nope") != nil {
				t.Fatal("Meta of a missing key is not nil")
			}
			if f.Enqueue(req("http://h/1", 0)) {
				t.Fatal("a committed fingerprint was not seen after reopen")
			}
			if !f.Enqueue(req("http://h/12", 0)) {
				t.Fatal("an uncommitted fingerprint was seen after reopen")
			}
			got := drain(t, f)
			want := []string{"http://h/7", "http://h/9", "http://h/3", "http://h/5", // prio 1: then the recovered leases
				"http://h/0", "http://h/2", "http://h/4", "http://h/6", "http://h/8", "http://h/12"}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("reopened order:\n got %v\nwant %v", got, want)
			}
			if err := f.Commit(map[string][]byte{"k": nil}); err != nil {
				t.Fatal(err)
			}
			if f.Meta("k") != nil || string(f.Meta("x")) != "x" {
				t.Fatal("a nil meta value did not delete its key, or deleted another")
			}
		})
	}
}

// TestRequestRoundTrip checks that a request comes back from the store field for field.
func TestRequestRoundTrip(t *testing.T) {
	in := &types.Request{
		URL: "http://h/a?b=1", Method: "POST", Headers: http.Header{"X-A": {"1", "2"}},
		Body: []byte("body"), Callback: "cb", Errback: "eb", Priority: -3, DontFilter: true,
		Depth: 4, Retries: 2,
		CbKwargs: types.Item{{Key: "a", Value: 1.5}, {Key: "b", Value: []any{"x", int64(2), nil, true}}},
		Meta: types.Item{{Key: "redirectUrls", Value: []string{"http://x/"}},
			{Key: "nested", Value: types.Item{{Key: "z", Value: false}}}, {Key: "i", Value: 7}},
		Cookies: []types.Cookie{{Name: "n", Value: "v", Domain: "h", Path: "/"}},
	}
	f := open(t, t.TempDir(), frontier.Options{BufferLimit: 1}) // stored at once
	defer f.Close()
	f.Enqueue(in)
	f.Enqueue(req("http://h/other", -3)) // in-memory top; in is read from the store
	f.Next()
	out := f.Next()
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", out, in)
	}
}

// TestCorrupt damages the files of a store in several ways: Open (or the first read) gives
// a *CorruptError, never a panic.
func TestCorrupt(t *testing.T) {
	build := func(t *testing.T) string {
		dir := t.TempDir()
		f := open(t, dir, frontier.Options{Sync: true, BufferLimit: 100, MemTableSize: 256 << 10})
		for i := range 6000 {
			if i == 3000 { // half in tables, half in the log
				if err := f.Commit(nil); err != nil {
					t.Fatal(err)
				}
				f.Close()
				f = open(t, dir, frontier.Options{Sync: true, BufferLimit: 100, MemTableSize: 64 << 20})
			}
			f.Enqueue(&types.Request{URL: fmt.Sprintf("http://h/%d", i), Meta: types.Item{{Key: "pad", Value: "0123456789abcdef0123456789abcdef"}}})
		}
		if err := f.Commit(map[string][]byte{"k": []byte("v")}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return dir
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"manifest truncated", func(t *testing.T, dir string) { truncateFiles(t, dir, "MANIFEST-", 0.5) }},
		{"manifest garbled", func(t *testing.T, dir string) { garbleFiles(t, dir, "MANIFEST-") }},
		{"current garbled", func(t *testing.T, dir string) { garbleFiles(t, dir, "CURRENT") }},
		{"tables garbled", func(t *testing.T, dir string) { garbleFiles(t, dir, ".sst") }},
		{"tables truncated", func(t *testing.T, dir string) { truncateFiles(t, dir, ".sst", 0.5) }},
		{"log garbled", func(t *testing.T, dir string) { garbleFiles(t, dir, ".log") }},
		{"log truncated", func(t *testing.T, dir string) { truncateFiles(t, dir, ".log", 0.3) }},
		{"no current", func(t *testing.T, dir string) { removeFiles(t, dir, "CURRENT") }},
		{"no format", func(t *testing.T, dir string) { removeFormat(t, dir) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := build(t)
			tc.damage(t, dir)
			err := openAndRead(dir)
			var ce *frontier.CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *CorruptError", err)
			}
			t.Log(err)
		})
	}
}

// openAndRead opens dir and reads everything, returning the first error.
func openAndRead(dir string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	f, err := frontier.Open(dir, frontier.Options{})
	if err != nil {
		return err
	}
	defer f.Close()
	for f.Next() != nil {
	}
	return f.Err()
}

// TestWipedStore: a folder whose store files were removed (a fresh start) opens as a new,
// empty store even though the commit marker of the old one is still there.
func TestWipedStore(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir, frontier.Options{Sync: true})
	f.Enqueue(req("http://h/1", 0))
	for range 3 {
		if err := f.Commit(nil); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "FRONTIER-COMMITTED" {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	f = open(t, dir, frontier.Options{Sync: true})
	defer f.Close()
	if f.Len() != 0 || f.SeenCount() != 0 {
		t.Fatalf("wiped store holds %d requests, %d fingerprints", f.Len(), f.SeenCount())
	}
}
