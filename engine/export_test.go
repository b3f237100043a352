package engine

import "time"

// BudgetPeak returns the most DOWNLOAD_MEMORY_BUDGET room d's downloads held at once
// (0 without a budget).
func BudgetPeak(d *HTTPDownloader) int64 {
	if d.env.budget == nil {
		return 0
	}
	return d.env.budget.peakUsed()
}

// SetIdleRetry sets how long e waits before sending spider_idle again after
// ErrDontCloseSpider; before Run.
func SetIdleRetry(e *Engine, d time.Duration) { e.idle.retryEvery = d }
