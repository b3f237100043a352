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

	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// crashState is what the helper process commits as meta along with each commit: the
// generation and the URLs pending or leased (those a reopen finds pending).
type crashState struct {
	Gen  int      `json:"gen"`
	URLs []string `json:"urls"`
	Seen int64    `json:"seen"`
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
	opts := frontier.Options{Sync: true, BufferLimit: 40, FIFO: round%2 == 0}
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
	live := map[string]bool{}
	for _, u := range st.URLs {
		live[u] = true
	}
	rng := rand.New(rand.NewPCG(uint64(round), 7))
	var leased []*types.Request
	for gen := st.Gen + 1; ; gen++ {
		for range rng.IntN(200) {
			switch r := rng.IntN(10); {
			case r < 5:
				// New URLs, and some already seen (dropped) from earlier rounds.
				u := fmt.Sprintf("http://h/%d/%d", round, rng.IntN(100000))
				if rng.IntN(4) == 0 && round > 0 {
					u = fmt.Sprintf("http://h/%d/%d", rng.IntN(round), rng.IntN(100000))
				}
				if f.Enqueue(&types.Request{URL: u, Priority: rng.IntN(3)}) {
					live[u] = true
				}
			case r < 8:
				if req := f.Next(); req != nil {
					leased = append(leased, req)
				}
			default:
				if len(leased) > 0 {
					i := rng.IntN(len(leased))
					f.Done(leased[i])
					delete(live, leased[i].URL)
					leased = slices.Delete(leased, i, i+1)
				}
			}
		}
		st = crashState{Gen: gen, Seen: f.SeenCount()}
		for u := range live {
			st.URLs = append(st.URLs, u)
		}
		slices.Sort(st.URLs)
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

		f, err := frontier.Open(dir, frontier.Options{Sync: true})
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
		got := drain(t, f)
		slices.Sort(got)
		if !slices.Equal(got, st.URLs) || f.SeenCount() != st.Seen {
			t.Fatalf("round %d, commit %d: store holds %d requests and %d fingerprints, the commit %d and %d",
				round, st.Gen, len(got), f.SeenCount(), len(st.URLs), st.Seen)
		}
		t.Logf("round %d: killed after commit %d (under way %d); %d pending, %d seen, %d leases recovered",
			round, post, pre, len(got), st.Seen, f.Recovered())
		if err := f.Close(); err != nil { // no commit: the drain is not kept
			t.Fatal(err)
		}
		lastPost = st.Gen
	}
}
