package engine

// BudgetPeak returns the most DOWNLOAD_MEMORY_BUDGET room d's downloads held at once
// (0 without a budget).
func BudgetPeak(d *HTTPDownloader) int64 {
	if d.budget == nil {
		return 0
	}
	return d.budget.peakUsed()
}
