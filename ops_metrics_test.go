package main

import (
	"testing"
	"time"
)

func TestPrometheusText(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	got := string(prometheusText(`my "spider"`, map[string]any{
		"downloader/response_status_count/200": int64(12),
		"elapsed_time_seconds":                 1.5,
		"start_time":                           start.Format(time.RFC3339),
		"finish_reason":                        "finished", // not a number: left out
		"memusage/max-rss.kb":                  7,
	}, liveGauges{Elapsed: 2, Downloads: 3, Callbacks: 1, Backlog: 0}))
	want := `# HELP jscrawl_up 1 while the crawl runs
# TYPE jscrawl_up gauge
jscrawl_up{spider="my \"spider\""} 1
# HELP jscrawl_elapsed_seconds seconds since the crawl started
# TYPE jscrawl_elapsed_seconds gauge
jscrawl_elapsed_seconds{spider="my \"spider\""} 2
# HELP jscrawl_downloads_in_flight downloads in flight (scheduled and inline)
# TYPE jscrawl_downloads_in_flight gauge
jscrawl_downloads_in_flight{spider="my \"spider\""} 3
# HELP jscrawl_callbacks_running spider callbacks running
# TYPE jscrawl_callbacks_running gauge
jscrawl_callbacks_running{spider="my \"spider\""} 1
# HELP jscrawl_scheduler_backlog requests waiting to be downloaded
# TYPE jscrawl_scheduler_backlog gauge
jscrawl_scheduler_backlog{spider="my \"spider\""} 0
# HELP jscrawl_downloader_response_status_count_200 stat downloader/response_status_count/200
# TYPE jscrawl_downloader_response_status_count_200 untyped
jscrawl_downloader_response_status_count_200{spider="my \"spider\""} 12
# HELP jscrawl_elapsed_time_seconds stat elapsed_time_seconds
# TYPE jscrawl_elapsed_time_seconds untyped
jscrawl_elapsed_time_seconds{spider="my \"spider\""} 1.5
# HELP jscrawl_memusage_max_rss_kb stat memusage/max-rss.kb
# TYPE jscrawl_memusage_max_rss_kb untyped
jscrawl_memusage_max_rss_kb{spider="my \"spider\""} 7
# HELP jscrawl_start_time stat start_time
# TYPE jscrawl_start_time untyped
jscrawl_start_time{spider="my \"spider\""} 1767323045
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
