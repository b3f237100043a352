package redisfrontier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Crawl is a shared crawl as Redis holds it: what `jscrawl stats --frontier` shows.
type Crawl struct {
	ID        string           `json:"crawl"`
	Finished  bool             `json:"finished"`
	StartDone bool             `json:"startDone"`
	Pending   int64            `json:"pending"`
	Leased    int64            `json:"leased"`
	Seen      int64            `json:"seen"`
	Stats     map[string]int64 `json:"stats"`   // crawl-wide, Scrapy's keys
	Workers   []WorkerInfo     `json:"workers"` // by id; a dead worker stays until cleared
}

// connect opens a client for one command, checking the connection.
func connect(ctx context.Context, url string) (*redis.Client, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis frontier: bad URL %q: %w", redactURL(url), err)
	}
	ro.DisableIdentity = true
	c := redis.NewClient(ro)
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("redis frontier %s: %w", redactURL(url), err)
	}
	return c, nil
}

// Inspect reads the state of crawl crawlID in the Redis at url.
func Inspect(ctx context.Context, url, crawlID string) (*Crawl, error) {
	c, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	p := "jscrawl:" + crawlID + ":"
	pipe := c.Pipeline()
	fin := pipe.Exists(ctx, p+keyFinished)
	done := pipe.HGet(ctx, p+keyStart, "done")
	pending := pipe.ZCard(ctx, p+keyPending)
	leased := pipe.ZCard(ctx, p+keyLeased)
	seen := pipe.SCard(ctx, p+keySeen)
	stats := pipe.HGetAll(ctx, p+keyStats)
	workers := pipe.HGetAll(ctx, p+keyWorkers)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redis frontier: read crawl %s: %w", crawlID, err)
	}
	cr := &Crawl{ID: crawlID, Finished: fin.Val() > 0, StartDone: done.Val() == "1",
		Pending: pending.Val(), Leased: leased.Val(), Seen: seen.Val(), Stats: map[string]int64{}}
	for k, v := range stats.Val() {
		cr.Stats[k], _ = strconv.ParseInt(v, 10, 64)
	}
	for _, v := range workers.Val() {
		var w WorkerInfo
		if json.Unmarshal([]byte(v), &w) == nil {
			cr.Workers = append(cr.Workers, w)
		}
	}
	slices.SortFunc(cr.Workers, func(a, b WorkerInfo) int { return strings.Compare(a.ID, b.ID) })
	return cr, nil
}

// Clear removes every key of crawl crawlID from the Redis at url (`jscrawl frontier
// clear`) and returns how many it removed. Workers still running on it would go on with
// an empty crawl: stop them first.
func Clear(ctx context.Context, url, crawlID string) (int64, error) {
	c, err := connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var n int64
	iter := c.Scan(ctx, 0, globEscape("jscrawl:"+crawlID+":")+"*", 1000).Iterator()
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		d, err := c.Unlink(ctx, batch...).Result()
		n += d
		batch = batch[:0]
		return err
	}
	for iter.Next(ctx) {
		batch = append(batch, iter.Val())
		if len(batch) == 500 {
			if err := flush(); err != nil {
				return n, fmt.Errorf("redis frontier: clear %s: %w", crawlID, err)
			}
		}
	}
	if err := iter.Err(); err != nil {
		return n, fmt.Errorf("redis frontier: clear %s: %w", crawlID, err)
	}
	if err := flush(); err != nil {
		return n, fmt.Errorf("redis frontier: clear %s: %w", crawlID, err)
	}
	return n, nil
}

// globEscape escapes the characters SCAN's MATCH pattern gives a meaning.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\^`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
