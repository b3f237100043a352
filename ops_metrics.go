package main

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// prometheusText renders the stats and live gauges in the Prometheus text exposition format
// (version 0.0.4), written by hand: every numeric stat becomes jscrawl_<key> with the
// characters Prometheus does not allow replaced by "_" (downloader/response_count →
// jscrawl_downloader_response_count), labelled with the spider; times become unix seconds.
// Stats are untyped (the collector does not say which are counters); live values are gauges.
func prometheusText(spider string, stats map[string]any, live liveGauges) []byte {
	var b bytes.Buffer
	label := `{spider="` + escapeLabel(spider) + `"}`
	seen := map[string]bool{}
	write := func(name, typ, help string, v float64) {
		if seen[name] {
			return
		}
		seen[name] = true
		b.WriteString("# HELP " + name + " " + strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(help) + "\n")
		b.WriteString("# TYPE " + name + " " + typ + "\n")
		b.WriteString(name + label + " " + formatFloat(v) + "\n")
	}
	write("jscrawl_up", "gauge", "1 while the crawl runs", 1)
	write("jscrawl_elapsed_seconds", "gauge", "seconds since the crawl started", live.Elapsed)
	write("jscrawl_downloads_in_flight", "gauge", "downloads in flight (scheduled and inline)", float64(live.Downloads))
	write("jscrawl_callbacks_running", "gauge", "spider callbacks running", float64(live.Callbacks))
	write("jscrawl_scheduler_backlog", "gauge", "requests waiting to be downloaded", float64(live.Backlog))
	for _, k := range sortedKeys(stats) {
		v, ok := metricValue(stats[k])
		if !ok {
			continue
		}
		write(metricName(k), "untyped", "stat "+k, v)
	}
	return b.Bytes()
}

// metricValue converts a stat to a number: integers, floats, times (unix seconds, also
// RFC 3339 strings). Other values are left out.
func metricValue(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case time.Time:
		return float64(x.UnixNano()) / 1e9, true
	case time.Duration:
		return x.Seconds(), true
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return float64(t.UnixNano()) / 1e9, true
		}
	}
	return 0, false
}

// metricName is "jscrawl_" + key with every character outside [a-zA-Z0-9_] replaced by "_".
func metricName(key string) string {
	b := []byte("jscrawl_" + key)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
