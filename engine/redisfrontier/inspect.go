package redisfrontier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// CrawlCount returns the crawl-wide value of the integer stat key, for CLOSESPIDER_*
// limits counted crawl-wide: the crawl's value as of this worker's last heartbeat, with
// this worker's own counts since then added. Safe from any goroutine.
func (f *Frontier) CrawlCount(key string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.totals[key] - f.pushed[key] + f.stats.Int(key)
}

// Status is a crawl as its Redis keys show it (jscrawl stats --frontier).
type Status struct {
	CrawlID   string           `json:"crawlId"`
	Prefix    string           `json:"prefix"`   // every key of the crawl starts with it
	Finished  bool             `json:"finished"` // nothing pending or leased, start() done
	StartDone bool             `json:"startDone"`
	Pending   int64            `json:"pending"`
	Slots     int64            `json:"slots"` // download slots with pending requests
	Leased    int64            `json:"leased"`
	Seen      int64            `json:"seen"`
	Stats     map[string]int64 `json:"stats"`   // the workers' integer stats summed (maxima as maxima)
	Workers   []WorkerInfo     `json:"workers"` // by id; a killed worker stays until cleared
	Keys      int              `json:"keys"`    // keys of the crawl in Redis
}

// parseURL is redis.ParseURL with the password hidden in its error (url.Parse's error
// quotes the whole URL).
func parseURL(u string) (*redis.Options, error) {
	ro, err := redis.ParseURL(u)
	if err == nil {
		return ro, nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = &url.Error{Op: ue.Op, URL: redactURL(ue.URL), Err: ue.Err}
	}
	return nil, fmt.Errorf("redis frontier: bad URL %q: %w", redactURL(u), err)
}

// connect returns a client for u after a PING: a malformed URL, a wrong password, a
// missing database or an unreachable server is an error at once (no retry).
func connect(ctx context.Context, u string) (*redis.Client, error) {
	ro, err := parseURL(u)
	if err != nil {
		return nil, err
	}
	ro.MaxRetries = 0
	ro.DialTimeout = 5 * time.Second
	ro.DisableIdentity = true
	rdb := redis.NewClient(ro)
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis frontier %s: %w", redactURL(u), err)
	}
	return rdb, nil
}

// Inspect reads the crawl crawlID of the Redis at redisURL without taking part in it.
func Inspect(ctx context.Context, redisURL, crawlID string) (*Status, error) {
	if crawlID == "" {
		return nil, fmt.Errorf("redis frontier: empty crawl id")
	}
	rdb, err := connect(ctx, redisURL)
	if err != nil {
		return nil, err
	}
	defer rdb.Close()
	p := "jscrawl:" + crawlID + ":"
	pipe := rdb.Pipeline()
	pending := pipe.HGet(ctx, p+keyMeta, "pending")
	slots := pipe.ZCard(ctx, p+keySlots)
	leased := pipe.ZCard(ctx, p+keyLeased)
	seen := pipe.SCard(ctx, p+keySeen)
	finished := pipe.Exists(ctx, p+keyFinished)
	start := pipe.HGet(ctx, p+keyStart, "done")
	stats := pipe.HGetAll(ctx, p+keyStats)
	workers := pipe.HGetAll(ctx, p+keyWorkers)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, fmt.Errorf("redis frontier %s: read crawl %s: %w", redactURL(redisURL), crawlID, err)
	}
	np, _ := strconv.ParseInt(pending.Val(), 10, 64)
	st := &Status{CrawlID: crawlID, Prefix: p, Pending: np, Slots: slots.Val(), Leased: leased.Val(), Seen: seen.Val(),
		Finished: finished.Val() > 0, StartDone: start.Val() == "1", Stats: map[string]int64{}, Workers: []WorkerInfo{}}
	for k, v := range stats.Val() {
		st.Stats[k], _ = strconv.ParseInt(v, 10, 64)
	}
	for id, v := range workers.Val() {
		var w WorkerInfo
		if json.Unmarshal([]byte(v), &w) != nil {
			w = WorkerInfo{ID: id}
		}
		st.Workers = append(st.Workers, w)
	}
	sort.Slice(st.Workers, func(i, j int) bool { return st.Workers[i].ID < st.Workers[j].ID })
	keys, err := crawlKeys(ctx, rdb, p)
	if err != nil {
		return nil, fmt.Errorf("redis frontier %s: %w", redactURL(redisURL), err)
	}
	st.Keys = len(keys)
	return st, nil
}

// Clear deletes every key of the crawl crawlID (those starting with jscrawl:<crawl-id>:)
// and returns how many there were. Workers still running on the crawl should be stopped
// first: they would go on with what they hold.
func Clear(ctx context.Context, redisURL, crawlID string) (int, error) {
	if crawlID == "" {
		return 0, fmt.Errorf("redis frontier: empty crawl id")
	}
	rdb, err := connect(ctx, redisURL)
	if err != nil {
		return 0, err
	}
	defer rdb.Close()
	keys, err := crawlKeys(ctx, rdb, "jscrawl:"+crawlID+":")
	if err != nil {
		return 0, fmt.Errorf("redis frontier %s: %w", redactURL(redisURL), err)
	}
	for i := 0; i < len(keys); i += 256 {
		if err := rdb.Del(ctx, keys[i:min(i+256, len(keys))]...).Err(); err != nil {
			return 0, fmt.Errorf("redis frontier %s: clear crawl %s: %w", redactURL(redisURL), crawlID, err)
		}
	}
	return len(keys), nil
}

// crawlKeys lists the keys of the crawl whose keys start with prefix (SCAN, so Redis is not
// blocked). A crawl id may contain ':', so the SCAN pattern prefix* also matches the keys of
// crawls whose ids extend this one's (jscrawl:A:* matches jscrawl:A:nightly:seen); a key is
// the crawl's only if what follows prefix is one of its key names (a fixed one, or
// slot:, holds:, robots:, robotslock: and a slot or origin), and not a key name of a longer
// crawl id that has its created marker in Redis (a crawl A:slot, say, whose keys
// jscrawl:A:slot:... also read as the slots of A).
func crawlKeys(ctx context.Context, rdb *redis.Client, prefix string) ([]string, error) {
	var all []string
	iter := rdb.Scan(ctx, 0, globEscape(prefix)+"*", 1000).Iterator()
	for iter.Next(ctx) {
		all = append(all, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("list keys %s*: %w", prefix, err)
	}
	// The prefixes of the longer crawl ids found (jscrawl:A:nightly:).
	var others []string
	for _, k := range all {
		if p, ok := strings.CutSuffix(k, keyCreated); ok && len(p) > len(prefix) && strings.HasSuffix(p, ":") {
			others = append(others, p)
		}
	}
	var keys []string
	for _, k := range all {
		if !isKeyName(k[len(prefix):]) {
			continue
		}
		mine := true
		for _, p := range others {
			if strings.HasPrefix(k, p) && isKeyName(k[len(p):]) {
				mine = false
				break
			}
		}
		if mine {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// isKeyName reports whether name, a key without its crawl's prefix, is one a crawl writes.
func isKeyName(name string) bool {
	for _, k := range syncKeys {
		if name == k {
			return true
		}
	}
	if name == keyCreated || name == keyOldPending || name == keySessionsRetired {
		return true
	}
	for _, p := range []string{keyPending, keySlot, keyHolds, keyRobots, keyRobotsLock} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// globEscape escapes the glob characters of a SCAN MATCH pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
