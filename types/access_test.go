package types_test

import (
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestEverySettingHasAccess keeps the entries of types.Defs complete: a new setting cannot
// be added without saying what a spider may do with it, an operator-only one without the
// reason its refusal gives, and a "0: no limit" ceiling without saying so; and no key is
// declared twice.
func TestEverySettingHasAccess(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range types.Defs {
		if seen[d.Key] {
			t.Errorf("%s is declared twice in types.Defs", d.Key)
		}
		seen[d.Key] = true
		a := d.Access
		if a == 0 { // the zero Access: the entry does not say
			t.Errorf("%s has no Access in types.Defs: say whether a spider may set it", d.Key)
			continue
		}
		if got := types.AccessOf(d.Key); got != a {
			t.Errorf("AccessOf(%s) = %s, want its entry's %s", d.Key, got, a)
		}
		if (a == types.OperatorOnly) != (d.Why != "") {
			t.Errorf("%s is %s with Why %q: every operator-only setting, and only those, says why", d.Key, a, d.Why)
		}
		if d.ZeroIsNoLimit && a != types.SpiderTightens {
			t.Errorf("%s is ZeroIsNoLimit but is %s, not a ceiling", d.Key, a)
		}
		if a == types.SpiderPath && d.Kind != types.KindString && d.Kind != types.KindList {
			t.Errorf("%s is a path setting of kind %s", d.Key, d.Kind)
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
