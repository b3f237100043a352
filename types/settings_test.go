package types

import (
	"strings"
	"testing"
)

// TestSettingRanges: a value outside its key's range is refused with an error naming the
// key and the range; values at the bounds and settings without a range are accepted.
func TestSettingRanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key  string
		v    any
		want string // "" to accept
	}{
		{ConcurrentRequests, "0", "setting CONCURRENT_REQUESTS: out of range: must be >= 1"},
		{ConcurrentRequests, -3, "setting CONCURRENT_REQUESTS: out of range: must be >= 1"},
		{ConcurrentRequests, "1", ""},
		{ConcurrentRequestsPerDomain, 0, "CONCURRENT_REQUESTS_PER_DOMAIN: out of range: must be >= 1"},
		{ConcurrentItems, 0, "CONCURRENT_ITEMS: out of range: must be >= 1"},
		{JSVMs, "0", "JS_VMS: out of range: must be >= 1"},
		{JSVMs, "-1", "JS_VMS: out of range: must be >= 1"},
		{JSVMs, 4, ""},
		{JSONMaxDepth, 0, "JSON_MAX_DEPTH: out of range: must be between 1 and 10000"},
		{JSONMaxDepth, "10001", "JSON_MAX_DEPTH: out of range: must be between 1 and 10000"},
		{JSONMaxDepth, 10000, ""},
		{RetryTimes, -1, "RETRY_TIMES: out of range: must be >= 0"},
		{RetryTimes, 0, ""},
		{DepthLimit, "-1", "DEPTH_LIMIT: out of range: must be >= 0"},
		{CloseSpiderItemCount, -5, "CLOSESPIDER_ITEMCOUNT: out of range: must be >= 0"},
		{CloseSpiderPageCount, -1, "CLOSESPIDER_PAGECOUNT: out of range: must be >= 0"},
		{CloseSpiderErrorCount, -1, "CLOSESPIDER_ERRORCOUNT: out of range: must be >= 0"},
		{DownloadMaxSize, -1, "DOWNLOAD_MAXSIZE: out of range: must be >= 0"},
		{DownloadMemoryBudget, -1, "DOWNLOAD_MEMORY_BUDGET: out of range: must be >= 0"},
		{AutoThrottleTargetConcurrency, 0.0, "AUTOTHROTTLE_TARGET_CONCURRENCY: out of range: must be > 0"},
		{AutoThrottleTargetConcurrency, 0.5, ""},
		// Every number of seconds must be >= 0.
		{DownloadDelay, "-0.5", "DOWNLOAD_DELAY: out of range: must be >= 0"},
		{DownloadTimeout, -1.0, "DOWNLOAD_TIMEOUT: out of range: must be >= 0"},
		{LogStatsInterval, "-1", "LOGSTATS_INTERVAL: out of range: must be >= 0"},
		{CloseSpiderTimeout, -1, "CLOSESPIDER_TIMEOUT: out of range: must be >= 0"},
		{JSCallbackTimeout, "0", ""},
		// Text settings with a list of values.
		{SchedulerMemoryQueue, "xyz", `SCHEDULER_MEMORY_QUEUE: out of range: must be one of lifo, fifo, got "xyz"`},
		{SchedulerMemoryQueue, "FIFO", ""},
		{HTTPCachePolicy, "rfc2068", "HTTPCACHE_POLICY: out of range: must be one of dummy, rfc2616, rfc9111"},
		{HTTPCachePolicy, "rfc9111", ""},
		{SlotBy, "dns", `SLOT_BY: out of range: must be one of host, ip, got "dns"`},
		{SlotBy, "IP", ""},
		// The DNS cache and per-IP slots.
		{DNSCacheSize, 0, "DNSCACHE_SIZE: out of range: must be >= 1"},
		{DNSCacheSize, 1, ""},
		{DNSTimeout, 0, "DNS_TIMEOUT: out of range: must be > 0"},
		{DNSTimeout, "0.5", ""},
		{ConcurrentRequestsPerIP, -1, "CONCURRENT_REQUESTS_PER_IP: out of range: must be >= 0"},
		{ConcurrentRequestsPerIP, 0, ""},
		// No range: negative priorities are meaningful.
		{DepthPriority, -1, ""},
		{RedirectPriorityAdjust, -2, ""},
	} {
		t.Run(tc.key+"="+describe(tc.v), func(t *testing.T) {
			t.Parallel()
			s := NewSettings()
			err := s.Set(tc.key, tc.v, PriorityCmdline)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSettingRangeUnderHigherPriority: an out-of-range value is refused even when a
// higher-priority value would win (a spider's customSettings under -s).
func TestSettingRangeUnderHigherPriority(t *testing.T) {
	t.Parallel()
	s := NewSettings()
	if err := s.Set(ConcurrentRequests, 4, PriorityCmdline); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ConcurrentRequests, 0, PrioritySpider); err == nil {
		t.Error("CONCURRENT_REQUESTS=0 at spider priority accepted under a command-line value")
	}
	if got := s.Int(ConcurrentRequests); got != 4 {
		t.Errorf("CONCURRENT_REQUESTS = %d, want 4", got)
	}
}

// TestRangesKnown: every setting with a Range is numeric, every one with Choices a text
// setting whose default is one of its choices; RangeOf gives a number of seconds without a
// Range [0, ∞) and an unknown key none.
func TestRangesKnown(t *testing.T) {
	t.Parallel()
	for _, d := range Defs {
		if d.Range.bounded() {
			switch d.Kind {
			case KindInt, KindFloat, KindDuration:
			default:
				t.Errorf("%s has a Range but is not a numeric setting", d.Key)
			}
		}
		if d.Choices != nil {
			if d.Kind != KindString {
				t.Errorf("%s has Choices but is not a text setting", d.Key)
			}
			if err := NewSettings().Set(d.Key, NewSettings().String(d.Key), PriorityCmdline); err != nil {
				t.Errorf("the default of %s is not in %v: %v", d.Key, d.Choices, err)
			}
		}
		if r, ok := RangeOf(d.Key); d.Kind == KindDuration && !d.Range.bounded() && (!ok || r != AtLeast(0)) {
			t.Errorf("RangeOf(%s) = %v, %v, want >= 0 for a number of seconds", d.Key, r, ok)
		}
	}
	if _, ok := RangeOf("MY_OWN_SETTING"); ok {
		t.Error("an unknown key has a range")
	}
}

// TestConcurrency: Concurrency is CONCURRENT_REQUESTS, at least 1 even where no value is
// set (a Settings without its defaults).
func TestConcurrency(t *testing.T) {
	t.Parallel()
	s := NewSettings()
	if got := s.Concurrency(); got != 16 {
		t.Errorf("default Concurrency() = %d, want 16", got)
	}
	if err := s.Set(ConcurrentRequests, 3, PriorityCmdline); err != nil {
		t.Fatal(err)
	}
	if got := s.Concurrency(); got != 3 {
		t.Errorf("Concurrency() = %d, want 3", got)
	}
	if got := (&Settings{}).Concurrency(); got != 1 {
		t.Errorf("Concurrency() without a value = %d, want 1", got)
	}
}
