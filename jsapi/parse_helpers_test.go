// Test helpers that run a bound spider's parse callback on one response and read what it
// yielded.
package jsapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/types"
)

// parseResponse runs sp's parse callback on resp and returns what it yielded, in order.
func parseResponse(t *testing.T, sp *jsapi.Spider, resp *types.Response) []types.Output {
	t.Helper()
	var outs enginetest.Recorder[types.Output]
	if err := sp.Parse(context.Background(), resp, outs.Add); err != nil {
		t.Fatal(err)
	}
	return outs.All()
}

// onlyItemField returns field key of the one output in outs, which must be an item.
func onlyItemField(t *testing.T, outs []types.Output, key string) any {
	t.Helper()
	if len(outs) != 1 || outs[0].Item == nil {
		t.Fatalf("outputs %v", outs)
	}
	v, _ := outs[0].Item.Get(key)
	return v
}

// rawJSON encodes v as JSON without escaping <, > and & (as JSON.stringify writes them).
func rawJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}
