package engine

// This file decodes response bodies as they stream in: the Content-Encoding decoders
// (Scrapy: HttpCompressionMiddleware) and the meters that enforce the size limits on the
// raw and the decoded bytes.

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// acceptEncoding is the Accept-Encoding sent when a request has none: every
// Content-Encoding the downloader decodes.
const acceptEncoding = "gzip, deflate, br, zstd"

// errTooBig marks a meter that went over its limit.
var errTooBig = errors.New("too big")

// meter counts the bytes read through it, fails with errTooBig past max (0: no limit)
// and calls warn once past warnAt (0: never). err keeps the first error of r other than
// io.EOF, so a decoder's error can be told apart from the connection's.
type meter struct {
	r      io.Reader
	n      int64
	max    int64
	warnAt int64
	warn   func(n int64)
	err    error
}

func (m *meter) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n, err := m.r.Read(p)
	m.n += int64(n)
	if m.max > 0 && m.n > m.max {
		m.err = errTooBig
		return n, errTooBig
	}
	if m.warnAt > 0 && m.n > m.warnAt && m.warn != nil {
		m.warn(m.n)
		m.warn = nil
	}
	if err != nil && err != io.EOF {
		m.err = err
	}
	return n, err
}

// decoders stacks over r the decoders of encs, the codings in the order they were applied,
// and returns the reader of the decoded body and the decoders to close once it is read
// (closeAll). An unknown coding hands the body over as it came: r itself is returned.
// When a decoder fails to start, failed is its coding and err its error. repaired, when
// not nil, is called once a decoder accepted a body it repaired (see gzipMembers).
func decoders(r io.Reader, encs []string, repaired func(what string)) (out io.Reader, closers []io.Closer, failed string, err error) {
	out = r
	for i := len(encs) - 1; i >= 0; i-- {
		var next io.Reader
		switch encs[i] {
		case "identity":
			continue
		case "gzip", "x-gzip":
			var g *gzipMembers
			if g, err = newGzipMembers(out, repaired); err == nil {
				next = g
			}
		case "deflate":
			next = newDeflateReader(out)
		case "br":
			next = brotli.NewReader(out)
		case "zstd":
			var z *zstd.Decoder
			// One goroutine, and the 8 MB window RFC 9659 allows zstd in HTTP: a frame
			// asking for more is refused instead of allocated.
			if z, err = zstd.NewReader(out, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxWindow(8<<20)); err == nil {
				next = z
				closers = append(closers, closerFunc(func() error { z.Close(); return nil }))
			}
		default:
			return r, closers, "", nil // unknown encoding: hand the body over as it came
		}
		if err != nil {
			return r, closers, encs[i], err
		}
		out = next
	}
	return out, closers, "", nil
}

// closeAll closes cs.
func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

// contentEncodings splits a Content-Encoding header into lower-case codings, in the order
// they were applied.
func contentEncodings(h string) []string {
	if h == "" {
		return nil
	}
	var out []string
	for _, e := range strings.Split(h, ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// gzipMembers reads a gzip body: its members one after the other, as gzip.Reader does,
// and, as curl does (it stops at the end of the gzip stream), bytes after the last member
// that do not start another member ("trailing garbage": a stray newline, padding, an
// appended error page) are dropped instead of failing the response, with repaired called
// once. A member that starts but is corrupt still fails.
type gzipMembers struct {
	br       *bufio.Reader // the one buffer under every member, so Reset loses nothing
	z        *gzip.Reader
	repaired func(what string)
	done     bool
}

func newGzipMembers(r io.Reader, repaired func(what string)) (*gzipMembers, error) {
	br := bufio.NewReader(r)
	z, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	z.Multistream(false)
	return &gzipMembers{br: br, z: z, repaired: repaired}, nil
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for !g.done {
		n, err := g.z.Read(p)
		if err != io.EOF {
			return n, err
		}
		// The end of a member: another one, the end of the body, or garbage.
		switch rerr := g.z.Reset(g.br); {
		case rerr == io.EOF:
			g.done = true
		case rerr != nil:
			g.done = true
			if g.repaired != nil {
				g.repaired("gzip trailing garbage")
			}
		default:
			g.z.Multistream(false)
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, io.EOF
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// deflateReader reads zlib-wrapped deflate, or raw deflate from servers that leave the
// zlib header out, deciding on the first read.
type deflateReader struct {
	src io.Reader
	r   io.Reader
}

func newDeflateReader(src io.Reader) io.Reader { return &deflateReader{src: src} }

func (d *deflateReader) Read(p []byte) (int, error) {
	if d.r == nil {
		var hdr [2]byte
		n, err := io.ReadFull(d.src, hdr[:])
		if err != nil && n == 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		head := io.MultiReader(bytes.NewReader(hdr[:n]), d.src)
		// A zlib header: CM 8, window ≤ 32K, and a checksum making it a multiple of 31.
		if n == 2 && hdr[0]&0x0f == 8 && hdr[0]>>4 <= 7 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
			z, err := zlib.NewReader(head)
			if err != nil {
				return 0, err
			}
			d.r = z
		} else {
			d.r = flate.NewReader(head)
		}
	}
	return d.r.Read(p)
}
