package engine

import (
	"cmp"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// This file decodes the download slots' settings once, when the SlotDownloader is made:
// the concurrency and delay of every slot, DOWNLOAD_SLOTS's overrides and AutoThrottle's.

// slotConfig is what the slots' settings say, decoded once by newSlotConfig.
type slotConfig struct {
	perSlot   int           // CONCURRENT_REQUESTS_PER_DOMAIN, at least 1
	delay     time.Duration // DOWNLOAD_DELAY
	randomize bool          // RANDOMIZE_DOWNLOAD_DELAY
	// ipConc is CONCURRENT_REQUESTS_PER_IP, the concurrency of per-IP slots (0:
	// perSlot); above 0 it makes the slots per IP, as slotByIP (SLOT_BY=ip) does.
	ipConc    int
	slotByIP  bool
	overrides []slotOverride // DOWNLOAD_SLOTS, most specific first
	throttle  *autoThrottle  // nil when AutoThrottle is off
}

// newSlotConfig decodes the slots' settings; logger gets the warnings about bad
// DOWNLOAD_SLOTS entries.
func newSlotConfig(settings *types.Settings, logger *slog.Logger) slotConfig {
	c := slotConfig{
		perSlot:   max(settings.Int(types.ConcurrentRequestsPerDomain), 1),
		delay:     settings.Duration(types.DownloadDelay),
		randomize: settings.Bool(types.RandomizeDownloadDelay),
		ipConc:    max(settings.Int(types.ConcurrentRequestsPerIP), 0),
		slotByIP:  strings.EqualFold(settings.String(types.SlotBy), "ip"),
		overrides: parseSlotOverrides(settings.Map(types.DownloadSlots), logger),
	}
	if settings.Bool(types.AutoThrottleEnabled) {
		c.throttle = &autoThrottle{
			start:  settings.Duration(types.AutoThrottleStartDelay),
			max:    settings.Duration(types.AutoThrottleMaxDelay),
			target: settings.Float(types.AutoThrottleTargetConcurrency),
			debug:  settings.Bool(types.AutoThrottleDebug),
		}
		if c.throttle.target <= 0 {
			c.throttle.target = 1
		}
	}
	return c
}

// slotOverride is one DOWNLOAD_SLOTS entry.
type slotOverride struct {
	glob        string
	concurrency int           // 0: CONCURRENT_REQUESTS_PER_DOMAIN
	delay       time.Duration // -1: DOWNLOAD_DELAY
	randomize   *bool         // nil: RANDOMIZE_DOWNLOAD_DELAY
}

// autoThrottle holds the AUTOTHROTTLE_* settings.
type autoThrottle struct {
	start, max time.Duration
	target     float64
	debug      bool
}

// parseSlotOverrides reads DOWNLOAD_SLOTS: glob → {concurrency, delay, randomizeDelay}
// (Scrapy's randomize_delay is accepted too). Globs are sorted most specific first: globs
// without wildcards, then longer ones.
func parseSlotOverrides(m map[string]any, logger *slog.Logger) []slotOverride {
	var out []slotOverride
	for glob, v := range m {
		glob = strings.ToLower(strings.TrimSpace(glob))
		if _, err := path.Match(glob, ""); err != nil {
			logger.Warn(fmt.Sprintf("DOWNLOAD_SLOTS: bad glob %q: %v", glob, err))
			continue
		}
		conf, ok := v.(map[string]any)
		if !ok {
			logger.Warn(fmt.Sprintf("DOWNLOAD_SLOTS: %q: want an object {concurrency, delay, randomizeDelay}", glob))
			continue
		}
		o := slotOverride{glob: glob, delay: -1}
		if n, ok := toInt(conf["concurrency"]); ok && n > 0 {
			o.concurrency = n
		}
		if f, ok := toFloat(conf["delay"]); ok && f >= 0 {
			o.delay = time.Duration(f * float64(time.Second))
		}
		for _, k := range []string{"randomizeDelay", "randomize_delay"} {
			if b, ok := conf[k].(bool); ok {
				o.randomize = &b
			}
		}
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b slotOverride) int {
		wa, wb := strings.ContainsAny(a.glob, "*?["), strings.ContainsAny(b.glob, "*?[")
		if wa != wb {
			if wa {
				return 1
			}
			return -1
		}
		return cmp.Or(len(b.glob)-len(a.glob), strings.Compare(a.glob, b.glob))
	})
	return out
}

// toFloat returns a JSON-like number (float64, int, int64) as a float64.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}
