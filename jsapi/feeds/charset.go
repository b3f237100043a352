package feeds

import (
	"fmt"
	"io"

	"golang.org/x/net/html/charset"
)

// charsetReader decodes an XML document declared in another encoding than UTF-8.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	r, err := charset.NewReaderLabel(label, input)
	if err != nil {
		return nil, fmt.Errorf("xml encoding %q: %w", label, err)
	}
	return r, nil
}
