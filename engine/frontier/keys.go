package frontier

import (
	"encoding/binary"
)

// The store's keys (see Layout in the package doc) and the state record.

var (
	keyFormat = []byte("f")
	keyState  = []byte("g")
)

// encodePrio maps a priority to 8 bytes that sort higher priorities first.
func encodePrio(b []byte, p int) []byte {
	return binary.BigEndian.AppendUint64(b, ^(uint64(int64(p)) ^ 1<<63))
}

func decodePrio(b []byte) int {
	return int(int64(^binary.BigEndian.Uint64(b) ^ 1<<63))
}

// qkey is the key of a pending request (p), ikey of a range record (r), kkey of a slot's
// name record (k).
func qkey(b []byte, slot uint32, p int, pos uint64) []byte {
	b = append(b, 'p')
	b = binary.BigEndian.AppendUint32(b, slot)
	b = encodePrio(b, p)
	return binary.BigEndian.AppendUint64(b, pos)
}

func ikey(slot uint32, p int) []byte {
	return encodePrio(binary.BigEndian.AppendUint32([]byte("r"), slot), p)
}

func kkey(slot uint32) []byte { return binary.BigEndian.AppendUint32([]byte("k"), slot) }

func skey(b []byte, fp *[16]byte) []byte { return append(append(b, 's'), fp[:]...) }

func lkey(id uint64) []byte { return binary.BigEndian.AppendUint64([]byte("l"), id) }

// stateRecord is the g record: committed generation, lease counter, slot counter.
func (f *Frontier) stateRecord(gen uint64) []byte {
	state := binary.BigEndian.AppendUint64(nil, gen)
	state = binary.BigEndian.AppendUint64(state, f.leaseSeq)
	return binary.BigEndian.AppendUint64(state, f.slotSeq)
}
