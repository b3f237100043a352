package enginetest

import (
	"testing"
	"time"
)

// ArrivalSlack is how late a loaded 2-core machine may deliver one request to a test
// server after the download slot timed its start: the bytes cross TLS, proxies and the
// scheduler of a busy machine, and the server stamps them when its handler runs.
const ArrivalSlack = 150 * time.Millisecond

// CheckSpacing fails t unless at, the times a server received a slot's requests, are
// spaced by DOWNLOAD_DELAY delay as the slot spaces their starts: every run of k+1 of them
// (in time order) spans at least k delays less slack. One late arrival shortens the gap
// before it and lengthens the next, so single gaps prove little on a loaded machine, while
// the spans do: a crawl that ignores the delay, or several processes each keeping a delay
// of their own, fail them once k delays outgrow the slack.
func CheckSpacing(t testing.TB, at []time.Time, delay, slack time.Duration) {
	t.Helper()
	failed := 0
	for i := range at {
		for j := i + 1; j < len(at); j++ {
			want := time.Duration(j-i)*delay - slack
			if span := at[j].Sub(at[i]); span < want {
				t.Errorf("requests %d to %d reached the server within %v, want at least %v (%d × DOWNLOAD_DELAY %v, less %v of slack)",
					i, j, span, want, j-i, delay, slack)
				if failed++; failed == 3 {
					return
				}
			}
		}
	}
}
