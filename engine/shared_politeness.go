package engine

import (
	"context"
	"time"
)

// SlotGate shares the download slots among the processes of one crawl (the Redis frontier
// implements it), so that CONCURRENT_REQUESTS_PER_DOMAIN, DOWNLOAD_DELAY, DOWNLOAD_SLOTS,
// robots.txt Crawl-delays and Retry-After pauses hold per slot across all of them: adding
// processes never hits a host harder than one process would. The engine uses the
// scheduler as its gate when the scheduler implements SlotGate; without one, the slots are
// the process's own, as they always were. SlotDownloader calls it from download
// goroutines, concurrently.
type SlotGate interface {
	// AcquireSlot blocks until a download of slot key may start in the crawl: fewer than
	// conc downloads of the slot hold it, delay has passed since the slot's previous start
	// in any process, and no pause holds the slot back. The download holds the slot until
	// it calls the hold's Release. It fails when ctx ends or when the gate has failed for
	// good.
	AcquireSlot(ctx context.Context, key string, conc int, delay time.Duration) (SlotHold, error)
	// PauseSlot holds back the downloads of slot key that have not started, in every
	// process, until t (a Retry-After); an earlier t than a pause already set changes
	// nothing. It does not block.
	PauseSlot(key string, t time.Time)
}

// SlotHold is a download's hold on a slot that a SlotGate shares.
type SlotHold struct {
	// Throttle is the slot's AutoThrottle delay as the crawl last shared it (0: none yet).
	Throttle time.Duration
	// Release ends the hold; a throttle above 0 becomes the slot's shared AutoThrottle
	// delay. It is called once and does not block.
	Release func(throttle time.Duration)
}

// RobotsCache shares robots.txt among the processes of one crawl (the Redis frontier
// implements it): one of them downloads an origin's robots.txt and the others use what it
// got, a failure included. RobotsTxtMiddleware uses the scheduler as its cache when the
// scheduler implements RobotsCache, and calls it at most once at a time per origin in a
// process, from download goroutines.
type RobotsCache interface {
	// RobotsTxt returns the crawl's outcome for the robots.txt of origin. When the crawl
	// has none, it calls fetch (in this process while the others wait) and shares what fetch
	// returns, for the outcome's TTL; when fetch reports false (it was cancelled) nothing is
	// shared and another process may fetch. It fails when ctx ends or when the cache has
	// failed for good.
	RobotsTxt(ctx context.Context, origin string, fetch func(context.Context) (RobotsOutcome, bool)) (RobotsOutcome, error)
}

// RobotsVerdict is the kind of a RobotsOutcome.
type RobotsVerdict uint8

// The kinds of RobotsOutcome.
const (
	// RobotsRules: a 2xx; Body holds the rules.
	RobotsRules RobotsVerdict = iota
	// RobotsAllowAll: a 4xx, no robots.txt, or an error downloading it (for a while).
	RobotsAllowAll
	// RobotsDisallowAll: a 5xx (for a while).
	RobotsDisallowAll
)

// RobotsOutcome is what downloading a robots.txt gave, in the form a RobotsCache shares.
type RobotsOutcome struct {
	Verdict RobotsVerdict
	Body    []byte        // the rules, for RobotsRules
	TTL     time.Duration // how much longer the outcome stands; 0: for the whole crawl
}
