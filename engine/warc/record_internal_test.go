package warc

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// TestBlockReader: a record's block reads as its head then its body, by Read (in small
// pieces) as by WriteTo.
func TestBlockReader(t *testing.T) {
	head, body := []byte("HTTP/1.1 200 OK\r\n\r\n"), bytes.Repeat([]byte("body "), 100)
	want := append(append([]byte{}, head...), body...)
	if err := iotest.TestReader(&blockReader{parts: [2][]byte{head, body}}, want); err != nil {
		t.Error(err)
	}
	var buf bytes.Buffer
	if n, err := io.Copy(&buf, &blockReader{parts: [2][]byte{head, body}}); err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("WriteTo: %d bytes, %v", n, err)
	}
	if err := iotest.TestReader(&blockReader{parts: [2][]byte{nil, body}}, body); err != nil {
		t.Errorf("no head: %v", err)
	}
}
