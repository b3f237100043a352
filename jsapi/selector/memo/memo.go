// Package memo holds compiled values (CSS and XPath queries, regular expressions, globs)
// by the text they were compiled from, in a process-wide cache that stays bounded even
// when a spider builds its patterns from page data. Package selector keeps its queries
// and expressions in it, package jsapi/links its link patterns.
package memo

import (
	"sync"
	"sync/atomic"
)

// Cache maps a key to a compiled value and the error compiling it gave, so a failing
// pattern is not recompiled either. When it holds Limit entries it is emptied: hot keys
// are compiled once more, and memory stays bounded. It is safe for concurrent use; two
// goroutines that miss the same key at once may both compile it (the last store wins).
// The zero value with Limit set is ready to use; a Cache must not be copied.
type Cache[V any] struct {
	// Limit is the number of entries past which the cache is emptied (at least 1).
	Limit int64

	m sync.Map // string → entry[V]
	n atomic.Int64
}

type entry[V any] struct {
	v   V
	err error
}

// Get returns the value and error stored for key, or calls compile, stores what it
// returns and returns that.
func (c *Cache[V]) Get(key string, compile func() (V, error)) (V, error) {
	if e, ok := c.m.Load(key); ok {
		e, _ := e.(entry[V]) // only entry[V] values are stored
		return e.v, e.err
	}
	v, err := compile()
	if c.n.Add(1) > c.Limit {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(key, entry[V]{v, err})
	return v, err
}

// Len returns the number of entries the cache holds.
func (c *Cache[V]) Len() int {
	n := 0
	c.m.Range(func(any, any) bool { n++; return true })
	return n
}
