package runtime

import (
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// regexpOnce makes LimitRegexps take effect once per process.
var regexpOnce sync.Once

// LimitRegexps gives every JS RegExp that goja runs on regexp2 (a pattern RE2 cannot run: a
// lookahead, a backreference) a match timeout a little longer than a callback may run
// (JS_CALLBACK_TIMEOUT, limit; 0 leaves matches unbounded): a backtracking match, which runs
// in native code where the watchdog's interrupt cannot reach, then returns once the
// watchdog has interrupted its callback, and the callback fails with the watchdog's
// TimeoutError instead of running on for hours. The margin (one watchdog tick and 250 ms)
// keeps a timed-out match from ever returning before the interrupt: goja reads a timed-out
// match as "no match", which the spider must never see.
//
// regexp2 reads its DefaultMatchTimeout when a pattern is compiled, from any goroutine, so
// LimitRegexps must be called before any VM or regexp2 pattern is made (the command line
// calls it first, with the JS_CALLBACK_TIMEOUT it was given: a spider can only lower it);
// only the first call takes effect.
func LimitRegexps(limit time.Duration) {
	regexpOnce.Do(func() {
		if limit <= 0 {
			return
		}
		regexp2.DefaultMatchTimeout = regexpTimeout(limit)
	})
}

// regexpTimeout is the match timeout LimitRegexps sets for limit: past the moment the
// watchdog (see VM.watch) interrupts a job that has run for limit.
func regexpTimeout(limit time.Duration) time.Duration {
	return limit + watchTick(limit) + 250*time.Millisecond
}

// watchTick is how often the watchdog of limit looks at the running job.
func watchTick(limit time.Duration) time.Duration {
	return max(min(limit/4, time.Second), time.Millisecond)
}
