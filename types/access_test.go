package types_test

import (
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestEverySettingHasAccess keeps the settings table and types.Accesses together: a new
// setting cannot be added without saying what a spider may do with it, an operator-only
// one without the reason its refusal gives, and a "0: no limit" ceiling without saying so.
func TestEverySettingHasAccess(t *testing.T) {
	known := map[string]bool{}
	for _, d := range types.Defs {
		known[d.Key] = true
		a, ok := types.Accesses[d.Key]
		if !ok {
			t.Errorf("%s has no entry in types.Accesses: say whether a spider may set it", d.Key)
			continue
		}
		if a == types.OperatorOnly && types.OperatorWhy[d.Key] == "" {
			t.Errorf("%s is operator-only but has no types.OperatorWhy", d.Key)
		}
		if types.ZeroIsNoLimit[d.Key] && a != types.SpiderTightens {
			t.Errorf("%s is in ZeroIsNoLimit but is %s, not a ceiling", d.Key, a)
		}
		if a == types.SpiderPath && d.Kind != types.KindString && d.Kind != types.KindList {
			t.Errorf("%s is a path setting of kind %s", d.Key, d.Kind)
		}
	}
	for k := range types.Accesses {
		if !known[k] {
			t.Errorf("types.Accesses has %s, which is not in types.Defs", k)
		}
	}
	for k := range types.OperatorWhy {
		if types.Accesses[k] != types.OperatorOnly {
			t.Errorf("types.OperatorWhy has %s, which is not operator-only", k)
		}
	}
	if got := types.AccessOf("MY_OWN_SETTING"); got != types.SpiderSets {
		t.Errorf("AccessOf(an unknown key) = %s, want spider", got)
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ key, want string }{
		{"DOWNLAOD_DELAY", types.DownloadDelay},          // two letters swapped
		{"download_delay", types.DownloadDelay},          // Scrapy's name in lower case
		{"CONCURRENT_REQUEST", types.ConcurrentRequests}, // a letter missing
		{"ROBOTS_TXT_OBEY", types.RobotsTxtObey},         // a letter added
		{"MY_OWN_SETTING", ""},
		{"DELAY", ""},
	} {
		if got := types.Nearest(tc.key); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
