package warc

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/google/uuid"
	gowarc "github.com/nlnwa/gowarc/v3"
)

// record is a request or response record made in memory for gowarc's file writer, which
// marshals, gzips and rotates it. jscrawl writes both HTTP messages itself, so it knows
// the block (head, then body) and the payload (body) and hashes each once while making
// the record. gowarc's record builder would copy the block into its buffer, check the
// WARC fields (a WHATWG parse of the target URI), parse the HTTP message back and hash
// the block and the payload in one pass, then hash the block again while writing it:
// most of --warc's cost (docs/performance.md).
type record struct {
	kind   gowarc.RecordType
	header *gowarc.WarcFields
	head   []byte // the start line and the header fields of the HTTP message
	body   []byte
}

// errNotRevisit is the error of the revisit methods, which a record made here never
// needs.
var errNotRevisit = errors.New("warc: revisit records are not made by jscrawl")

// newRecord returns a record of kind for target at date whose block is head then body,
// with its ID, Content-Length and SHA-1 block and payload digests (base32), and the
// extra fields (name, value pairs).
func newRecord(kind gowarc.RecordType, target string, date time.Time, head, body []byte, extra []string) (*record, error) {
	id, err := uuid.NewRandomFromReader(rand.Reader)
	if err != nil {
		return nil, err
	}
	msgtype := "request"
	if kind == gowarc.Response {
		msgtype = "response"
	}
	h := &gowarc.WarcFields{}
	h.Add(gowarc.WarcType, kind.String())
	h.Add(gowarc.WarcTargetURI, target)
	for i := 0; i+1 < len(extra); i += 2 {
		h.Add(extra[i], oneLine(extra[i+1]))
	}
	h.AddTimeNano(gowarc.WarcDate, date)
	h.Add(gowarc.ContentType, gowarc.ApplicationHttp+";msgtype="+msgtype)
	h.AddId(gowarc.WarcRecordID, id.URN())
	payload := sha1.Sum(body)
	block := sha1.New()
	block.Write(head)
	block.Write(body)
	var sum [sha1.Size]byte
	h.Add(gowarc.WarcBlockDigest, "sha1:"+base32.StdEncoding.EncodeToString(block.Sum(sum[:0])))
	h.Add(gowarc.WarcPayloadDigest, "sha1:"+base32.StdEncoding.EncodeToString(payload[:]))
	h.Add(gowarc.ContentLength, strconv.Itoa(len(head)+len(body)))
	return &record{kind: kind, header: h, head: head, body: body}, nil
}

// Version implements gowarc.WarcRecord.
func (r *record) Version() *gowarc.WarcVersion { return gowarc.V1_1 }

// Type implements gowarc.WarcRecord.
func (r *record) Type() gowarc.RecordType { return r.kind }

// WarcHeader implements gowarc.WarcRecord.
func (r *record) WarcHeader() *gowarc.WarcFields { return r.header }

// Block implements gowarc.WarcRecord.
func (r *record) Block() gowarc.Block { return (*block)(r) }

// RecordId implements gowarc.WarcRecord.
func (r *record) RecordId() string { return r.header.GetId(gowarc.WarcRecordID) } //nolint:revive // gowarc's name

// ContentLength implements gowarc.WarcRecord.
func (r *record) ContentLength() (int64, error) { return int64(len(r.head) + len(r.body)), nil }

// Date implements gowarc.WarcRecord.
func (r *record) Date() (time.Time, error) { return r.header.GetTime(gowarc.WarcDate) }

// String implements gowarc.WarcRecord.
func (r *record) String() string {
	return "WARC record: version: " + gowarc.V1_1.String() + ", type: " + r.kind.String() + ", id: " + r.RecordId()
}

// Close implements gowarc.WarcRecord: a record in memory holds nothing to release.
func (r *record) Close() error { return nil }

// ToRevisitRecord implements gowarc.WarcRecord (not supported).
func (r *record) ToRevisitRecord(*gowarc.RevisitRef) (gowarc.WarcRecord, error) {
	return nil, errNotRevisit
}

// RevisitRef implements gowarc.WarcRecord (not supported).
func (r *record) RevisitRef() (*gowarc.RevisitRef, error) { return nil, errNotRevisit }

// CreateRevisitRef implements gowarc.WarcRecord (not supported).
func (r *record) CreateRevisitRef(string) (*gowarc.RevisitRef, error) { return nil, errNotRevisit }

// Merge implements gowarc.WarcRecord (not supported).
func (r *record) Merge(...gowarc.WarcRecord) (gowarc.WarcRecord, error) { return nil, errNotRevisit }

// ValidateDigest implements gowarc.WarcRecord: the digests were computed from the block
// itself.
func (r *record) ValidateDigest() ([]error, error) { return nil, nil }

// block is a record's content block, in memory.
type block record

// RawBytes implements gowarc.Block.
func (b *block) RawBytes() (io.Reader, error) {
	return &blockReader{parts: [2][]byte{b.head, b.body}}, nil
}

// blockReader reads a block's head then body. Its WriteTo writes them as they are (the
// marshaler copies the block with io.Copy): io.MultiReader's would copy them through a
// new 32 KiB buffer per record.
type blockReader struct {
	parts [2][]byte
	i     int
}

// Read implements io.Reader.
func (r *blockReader) Read(p []byte) (int, error) {
	for r.i < len(r.parts) && len(r.parts[r.i]) == 0 {
		r.i++
	}
	if r.i == len(r.parts) {
		return 0, io.EOF
	}
	n := copy(p, r.parts[r.i])
	r.parts[r.i] = r.parts[r.i][n:]
	return n, nil
}

// WriteTo implements io.WriterTo.
func (r *blockReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for ; r.i < len(r.parts); r.i++ {
		n, err := w.Write(r.parts[r.i])
		total += int64(n)
		r.parts[r.i] = r.parts[r.i][n:]
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// BlockDigest implements gowarc.Block.
func (b *block) BlockDigest() string { return b.header.Get(gowarc.WarcBlockDigest) }

// Size implements gowarc.Block.
func (b *block) Size() int64 { return int64(len(b.head) + len(b.body)) }

// IsCached implements gowarc.Block: the block is in memory.
func (b *block) IsCached() bool { return true }

// Cache implements gowarc.Block.
func (b *block) Cache() error { return nil }

// Close implements gowarc.Block.
func (b *block) Close() error { return nil }

// Interface guards
var (
	_ gowarc.WarcRecord = (*record)(nil)
	_ gowarc.Block      = (*block)(nil)
)
