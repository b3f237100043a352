package frontier_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// crashState is what the helper process commits as meta along with each commit: the
// generation, and per slot and priority the requests a reopen finds pending, bottom to
// top (the pending ones, then the leased ones in lease order).
type crashState struct {
	Gen    int                         `json:"gen"`
	Queues map[string]map[int][]string `json:"queues"`
	Seen   int64                       `json:"seen"`
}

// crashOpts are the options of the store of TestCrashSafety's round.
func crashOpts(round int) frontier.Options {
	return frontier.Options{Sync: true, BufferLimit: 40, FIFO: round%2 == 0, SlotKey: engine.SlotKey}
}

// TestHelperProcess is the child of TestCrashSafety: it enqueues, leases, acknowledges
// and commits in a loop on the store in FRONTIER_CRASH_DIR until it is killed, printing
// "pre N" before commit N and "post N" after it.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("FRONTIER_CRASH_DIR")
	if dir == "" {
		t.Skip("helper process of TestCrashSafety")
	}
	round, _ := strconv.Atoi(os.Getenv("FRONTIER_CRASH_ROUND"))
	opts := crashOpts(round)
	f, err := frontier.Open(dir, opts)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var st crashState
	if m := f.Meta("state"); m != nil {
		if err := json.Unmarshal(m, &st); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
	}
	// The model of what the store holds, checked at every Next.
	model := &slotModel{fifo: opts.FIFO, q: map[string]map[int][]string{}}
	for slot, ps := range st.Queues {
		for p, l := range ps {
			for _, u := range l {
				model.push(slot, p, u)
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(round), 7))
	var leased []*types.Request
	for gen := st.Gen + 1; ; gen++ {
		for range rng.IntN(200) {
			switch r := rng.IntN(10); {
			case r < 5:
				// New URLs of 6 slots, and some already seen (dropped) from earlier rounds.
				u := fmt.Sprintf("http://h%d/%d/%d", rng.IntN(6), round, rng.IntN(100000))
				if rng.IntN(4) == 0 && round > 0 {
					u = fmt.Sprintf("http://h%d/%d/%d", rng.IntN(6), rng.IntN(round), rng.IntN(100000))
				}
				rq := &types.Request{URL: u, Priority: rng.IntN(3)}
				if f.Enqueue(rq) {
					model.push(engine.SlotKey(rq), rq.Priority, u)
				}
			case r < 8:
				if req := f.Next(); req != nil {
					if err := model.take(engine.SlotKey(req), req.Priority, req.URL); err != nil {
						fmt.Println("error", strings.ReplaceAll(err.Error(), " ", "_"))
						os.Exit(1)
					}
					leased = append(leased, req)
				}
			default:
				if len(leased) > 0 {
					i := rng.IntN(len(leased))
					f.Done(leased[i])
					leased = slices.Delete(leased, i, i+1)
				}
			}
		}
		st = crashState{Gen: gen, Seen: f.SeenCount(), Queues: map[string]map[int][]string{}}
		for slot, ps := range model.q {
			for p, l := range ps {
				if len(l) > 0 {
					if st.Queues[slot] == nil {
						st.Queues[slot] = map[int][]string{}
					}
					st.Queues[slot][p] = slices.Clone(l)
				}
			}
		}
		for _, rq := range leased {
			slot := engine.SlotKey(rq)
			if st.Queues[slot] == nil {
				st.Queues[slot] = map[int][]string{}
			}
			st.Queues[slot][rq.Priority] = append(st.Queues[slot][rq.Priority], rq.URL)
		}
		m, _ := json.Marshal(st)
		fmt.Println("pre", gen)
		if err := f.Commit(map[string][]byte{"state": m}); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("post", gen)
	}
}

// TestCrashSafety kills the helper process with SIGKILL at random points, at least 10
// times, and checks after each kill that the store holds exactly the state of the last
// commit: the one reported done, or the one under way at the kill.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	lastPost := 0
	for round := range 12 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), "FRONTIER_CRASH_DIR="+dir, "FRONTIER_CRASH_ROUND="+strconv.Itoa(round))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a random moment after a random number of commits.
		commits := 3 + rng.IntN(20)
		lines := bufio.NewScanner(out)
		pre, post := lastPost, lastPost
		killed := false
		for lines.Scan() {
			fields := strings.Fields(lines.Text())
			if len(fields) != 2 || fields[0] == "error" {
				t.Fatalf("round %d: helper: %s", round, lines.Text())
			}
			n, _ := strconv.Atoi(fields[1])
			switch fields[0] {
			case "pre":
				pre = n
			case "post":
				post = n
			}
			// Half the rounds kill as soon as a commit begins, the others a moment later.
			if !killed && post-lastPost >= commits && (round%2 == 0 || fields[0] == "pre") {
				killed = true
				delay := time.Duration(rng.IntN(1000)) * time.Microsecond
				if round%2 == 1 {
					delay /= 10
				}
				time.AfterFunc(delay, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
			}
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: helper ended without being killed: %v", round, err)
		}

		f, err := frontier.Open(dir, crashOpts(round))
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		var st crashState
		if err := json.Unmarshal(f.Meta("state"), &st); err != nil {
			t.Fatalf("round %d: meta: %v", round, err)
		}
		if st.Gen != post && st.Gen != pre {
			t.Fatalf("round %d: store at commit %d, want %d (done) or %d (under way)", round, st.Gen, post, pre)
		}
		// Each slot's queue is the commit's, in its order.
		model := &slotModel{fifo: crashOpts(round).FIFO, q: st.Queues}
		want := model.len()
		var got []string
		for rq := f.Next(); rq != nil; rq = f.Next() {
			if err := model.take(engine.SlotKey(rq), rq.Priority, rq.URL); err != nil {
				t.Fatalf("round %d, commit %d, after %d requests: %v", round, st.Gen, len(got), err)
			}
			got = append(got, rq.URL)
		}
		if f.Err() != nil || model.len() != 0 || f.SeenCount() != st.Seen {
			t.Fatalf("round %d, commit %d: store holds %d requests and %d fingerprints, the commit %d and %d (err %v)",
				round, st.Gen, len(got), f.SeenCount(), want, st.Seen, f.Err())
		}
		if len(st.Queues) < 2 && round > 0 {
			t.Fatalf("round %d: %d slots pending: the test needs more", round, len(st.Queues))
		}
		t.Logf("round %d: killed after commit %d (under way %d); %d pending, %d seen, %d leases recovered",
			round, post, pre, len(got), st.Seen, f.Recovered())
		if err := f.Close(); err != nil { // no commit: the drain is not kept
			t.Fatal(err)
		}
		lastPost = st.Gen
	}
}
