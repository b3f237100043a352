package frontier

import (
	"github.com/jscrawl/jscrawl/engine/frontier/codec"
	"github.com/jscrawl/jscrawl/engine/frontier/order"
	"github.com/jscrawl/jscrawl/types"
)

// The order of the slots and the request codec live in their own store-free packages
// (engine/frontier/order, engine/frontier/codec), which the engine imports without
// pebble; these names keep the frontier's API.

// Readiness is order.Readiness.
type Readiness = order.Readiness

// SlotIndex is order.SlotIndex.
type SlotIndex = order.SlotIndex

// SlotSize is order.SlotSize.
type SlotSize = order.SlotSize

// BiggestSlots is order.BiggestSlots.
func BiggestSlots(sizes []SlotSize, n int) []SlotSize { return order.BiggestSlots(sizes, n) }

// EncodeRequest is codec.EncodeRequest.
func EncodeRequest(b []byte, req *types.Request) []byte { return codec.EncodeRequest(b, req) }

// DecodeRequest is codec.DecodeRequest.
func DecodeRequest(b []byte) (*types.Request, error) { return codec.DecodeRequest(b) }

// DecodeRequestString is codec.DecodeRequestString.
func DecodeRequestString(rec string) (*types.Request, error) { return codec.DecodeRequestString(rec) }

// EncodesExactly is codec.EncodesExactly.
func EncodesExactly(req *types.Request) bool { return codec.EncodesExactly(req) }

// Fingerprint is codec.Fingerprint.
func Fingerprint(req *types.Request) [16]byte { return codec.Fingerprint(req) }
