package engine

import (
	"strings"
	"testing"
)

func TestThresholds(t *testing.T) {
	stats := map[string]any{
		"item_scraped_count":                    int64(100),
		"log_count/ERROR":                       int64(2),
		"downloader/response_status_count/200":  int64(50),
		"downloader/response_status_count/500":  int64(3),
		"downloader/response_status_count/503":  int64(4),
		"downloader/response_status_count/5000": int64(100), // not a status: not summed
		"elapsed_time_seconds":                  1.5,
		"finish_reason":                         "finished",
	}
	for _, tc := range []struct {
		in    string
		ok    bool
		value float64
	}{
		{"item_scraped_count >= 100", true, 100},
		{"item_scraped_count>100", false, 100},
		{"log_count/ERROR == 0", false, 2},
		{"log_count/WARNING == 0", true, 0}, // never set: 0
		{"downloader/response_status_count/5xx < 10", true, 7},
		{"downloader/response_status_count/5xx < 7", false, 7},
		{"downloader/response_status_count/4xx == 0", true, 0},
		{"elapsed_time_seconds <= 1.5", true, 1.5},
		{"elapsed_time_seconds != 1.5", false, 1.5},
		{"finish_reason == 0", true, 0}, // text counts as 0
	} {
		th, err := ParseThreshold(tc.in)
		if err != nil {
			t.Fatalf("ParseThreshold(%q): %v", tc.in, err)
		}
		ok, v := th.Check(stats)
		if ok != tc.ok || v != tc.value {
			t.Errorf("%s: ok=%v value=%v, want %v %v", tc.in, ok, v, tc.ok, tc.value)
		}
	}
	for _, bad := range []string{"item_scraped_count", ">= 3", "item_scraped_count >= many", "x =~ 3"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("ParseThreshold(%q): no error", bad)
		}
	}
	ths, err := ThresholdsFromSetting(map[string]any{"b": "< 1", "a": ">= 2"})
	if err != nil || len(ths) != 2 || ths[0].String() != "a >= 2" || ths[1].String() != "b < 1" {
		t.Errorf("ThresholdsFromSetting = %v, %v", ths, err)
	}
	if _, err := ThresholdsFromSetting(map[string]any{"a": 3}); err == nil || !strings.Contains(err.Error(), "a:") && !strings.Contains(err.Error(), "THRESHOLDS a") {
		t.Errorf("a non-string condition: err = %v", err)
	}
}
