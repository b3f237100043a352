package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/jscrawl/jscrawl/types"
)

// softMemoryLimit is the Go soft memory limit a crawl runs with: twice
// DOWNLOAD_MEMORY_BUDGET (the bodies being received, and their copies while each is
// joined) plus 512 MiB for everything else (VMs, queues, parsed pages), 1.5 GiB by
// default; 0 (none) when the budget is off.
//
// main sets GOGC=400, so the heap may grow to five times what is live before a collection:
// bodies cut at DOWNLOAD_MAXSIZE are garbage at once, and without a limit they pile up to
// gigabytes. Under the limit GOGC keeps its savings; near it the collector runs sooner. It
// is soft: nothing fails past it, and Go caps the collector's CPU should the live heap
// itself outgrow it.
func softMemoryLimit(settings *types.Settings) int64 {
	budget := int64(settings.Int(types.DownloadMemoryBudget))
	if budget <= 0 {
		return 0
	}
	return 2*budget + 512<<20
}

// setMemoryLimit applies softMemoryLimit unless GOMEMLIMIT is set.
func setMemoryLimit(settings *types.Settings, logger *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if limit := softMemoryLimit(settings); limit > 0 {
		debug.SetMemoryLimit(limit)
		logger.Debug(fmt.Sprintf("Go soft memory limit: %d MiB (GOMEMLIMIT overrides it)", limit>>20))
	}
}
