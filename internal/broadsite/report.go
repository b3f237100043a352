package broadsite

import (
	"time"
)

// ShortGapFactor is the fraction of DOWNLOAD_DELAY below which a gap between two requests
// to one host counts as short (issue 26 counted gaps under 0.90 s for a 1 s delay).
const ShortGapFactor = 0.9

// Report is what the whole site saw of a crawl.
type Report struct {
	// Requests is every request the site received; Pages the distinct pages requested,
	// Duplicates the page requests beyond the first of each page, Missing the pages never
	// requested.
	Requests, Pages, Duplicates, Missing int
	// First and Last are the first and the last request's arrival (zero without
	// requests); Span is the time between them.
	First, Last time.Time
	Span        time.Duration
	// Gaps is the number of gaps between two consecutive requests to one host,
	// ShortGaps those under ShortGapFactor × the delay Report was given, and MinGap the
	// smallest (-1 without gaps).
	Gaps, ShortGaps int
	MinGap          time.Duration
	// MaxInFlight is the most requests one host had in flight at once.
	MaxInFlight int
}

// Report sums up what the site saw, counting the gaps shorter than ShortGapFactor × delay.
func (s *Site) Report(delay time.Duration) Report {
	rep := Report{MinGap: -1}
	below := time.Duration(float64(delay) * ShortGapFactor)
	for _, l := range s.hosts {
		l.mu.Lock()
		rep.Requests += len(l.arrivals)
		for _, n := range l.hits {
			switch {
			case n == 0:
				rep.Missing++
			default:
				rep.Pages++
				rep.Duplicates += n - 1
			}
		}
		if len(l.arrivals) > 0 {
			if first := l.arrivals[0]; rep.First.IsZero() || first.Before(rep.First) {
				rep.First = first
			}
			if last := l.arrivals[len(l.arrivals)-1]; last.After(rep.Last) {
				rep.Last = last
			}
		}
		g := GapsOf(l.arrivals, below)
		rep.Gaps += g.N
		rep.ShortGaps += g.Short
		if g.N > 0 && (rep.MinGap < 0 || g.Min < rep.MinGap) {
			rep.MinGap = g.Min
		}
		rep.MaxInFlight = max(rep.MaxInFlight, l.maxIn)
		l.mu.Unlock()
	}
	rep.Span = rep.Last.Sub(rep.First)
	return rep
}

// Gaps describes the gaps between consecutive arrivals at one host.
type Gaps struct {
	// N is the number of gaps (one less than the arrivals), Short those below the bound
	// GapsOf was given, Min the smallest (0 without gaps).
	N, Short int
	Min      time.Duration
}

// GapsOf measures the gaps between consecutive arrivals (in arrival order), counting
// those shorter than below.
func GapsOf(arrivals []time.Time, below time.Duration) Gaps {
	var g Gaps
	for i := 1; i < len(arrivals); i++ {
		d := arrivals[i].Sub(arrivals[i-1])
		if g.N == 0 || d < g.Min {
			g.Min = d
		}
		g.N++
		if d < below {
			g.Short++
		}
	}
	return g
}
