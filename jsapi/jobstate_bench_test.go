package jsapi_test

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkJobState reads a state of n entries (what a commit costs the first VM's loop).
func BenchmarkJobState(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			spider := benchSpider(b, `export default class S {
  name = "bench";
  state = { pages: 0, seen: {}, list: [] };
  constructor() { for (let i = 0; i < `+fmt.Sprint(n)+`; i++) { this.state.seen["https://example.com/p/" + i] = i; if (i % 10 === 0) this.state.list.push("x" + i); } }
}`)
			if err := spider.SetJobState(nil, false); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := spider.JobState(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
