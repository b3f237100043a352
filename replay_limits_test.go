package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeGzipZeros writes to w one gzip member of prefix, then zeros MiB of zero bytes,
// then suffix (writeGzipFill).
func writeGzipZeros(w io.Writer, prefix []byte, zeros int, suffix []byte) error {
	return writeGzipFill(w, prefix, 0, zeros, suffix)
}

// writeGzipFill writes to w one gzip member of prefix, then mibs MiB of the byte fill,
// then suffix, without compressing the fill byte by byte (2 GiB would take a minute under
// -race): deflate's encoding of a MiB of fill that follows at least 32 KiB of it (the
// window) is the same block wherever it stands, so it is made once and repeated.
func writeGzipFill(w io.Writer, prefix []byte, fill byte, mibs int, suffix []byte) error {
	const mib = 1 << 20
	zero := bytes.Repeat([]byte{fill}, mib)
	zeros := mibs
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		return err
	}
	crc := crc32.Update(0, crc32.IEEETable, prefix)
	size := uint32(len(prefix))
	hdr := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	// The prefix and the first MiB of zeros, then one MiB of zeros as its own block.
	_, _ = fw.Write(prefix)
	_, _ = fw.Write(zero)
	_ = fw.Flush()
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	buf.Reset()
	_, _ = fw.Write(zero)
	_ = fw.Flush()
	block := bytes.Clone(buf.Bytes())
	buf.Reset()
	for i := range zeros {
		if i > 0 {
			if _, err := w.Write(block); err != nil {
				return err
			}
		}
		crc = crc32.Update(crc, crc32.IEEETable, zero)
		size += mib
	}
	_, _ = fw.Write(suffix)
	if err := fw.Close(); err != nil {
		return err
	}
	crc = crc32.Update(crc, crc32.IEEETable, suffix)
	size += uint32(len(suffix))
	trailer := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(buf.Bytes(), crc), size)
	_, err = w.Write(trailer)
	return err
}

// warcHead is the WARC header of a response record for target whose block is n bytes.
func warcHead(target string, n int64, id int) []byte {
	return fmt.Appendf(nil, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n"+
		"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"+
		"Content-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n", target, id, n)
}

// runPeakRSS runs the binary with args and returns what it wrote, its exit code and its
// peak resident set size (VmHWM, read from /proc while it runs: the rusage of a child
// started by Go can count the parent's pages from before the exec).
func runPeakRSS(t *testing.T, args ...string) (stdout, stderr string, code int, peak int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			b, rerr := os.ReadFile(status)
			if rerr != nil {
				continue
			}
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
					if kb, perr := strconv.ParseInt(f[1], 10, 64); perr == nil {
						peak = max(peak, kb<<10)
					}
				}
			}
		}
	}
	code = exitCode(t, ctx, err, args, errOut.String())
	return out.String(), errOut.String(), code, peak
}

// TestReplayHugeRecordStreams: run --replay of a 3 MB .warc.gz whose records hold 2 GiB
// (with its Content-Length), 1 GiB (without) and a gzip bomb (1 GiB once decoded) fails
// each request with MaxSizeError at DOWNLOAD_MAXSIZE (10 MB), counted in download/maxsize,
// with the process far below the records' size: the index skips the blocks as they
// stream, and each body streams through the size limits instead of being read whole.
func TestReplayHugeRecordStreams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	archive := filepath.Join(dir, "huge.warc.gz")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	const base = "http://example.com"
	// /declared: 2 GiB with its Content-Length; /undeclared: 1 GiB read to the block's end.
	for i, x := range []struct {
		path string
		mib  int
		clen bool
	}{{"/declared", 2048, true}, {"/undeclared", 1024, false}} {
		n := int64(x.mib) << 20
		head := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
		if x.clen {
			head += fmt.Sprintf("Content-Length: %d\r\n", n)
		}
		head += "\r\n"
		prefix := append(warcHead(base+x.path, int64(len(head))+n, i+1), head...)
		if err := writeGzipZeros(f, prefix, x.mib, []byte("\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	// /bomb: a small gzip body of 1 GiB of zeros, Content-Encoding kept as other tools
	// record it.
	var bomb bytes.Buffer
	if err := writeGzipZeros(&bomb, nil, 1024, nil); err != nil {
		t.Fatal(err)
	}
	msg := append(fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", bomb.Len()), bomb.Bytes()...)
	zw := gzip.NewWriter(f)
	_, _ = zw.Write(warcHead(base+"/bomb", int64(len(msg)), 3))
	_, _ = zw.Write(msg)
	_, _ = zw.Write([]byte("\r\n\r\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(archive); err != nil || st.Size() > 8<<20 {
		t.Fatalf("archive: %v, %v", st, err)
	}
	spider := writeFile(t, dir, "huge.js", `import { Request } from "jscrawl";
export default class Huge {
  name = "huge";
  *start() {
    for (const p of ["/declared", "/undeclared", "/bomb"]) yield new Request("`+base+`" + p, { errback: "failed" });
  }
  *parse(response) { yield { url: response.url, size: response.body.length }; }
  *failed(failure) { yield { url: failure.request.url, name: failure.error.name }; }
}
`)
	stdout, stderr, code, peak := runPeakRSS(t, "run", spider, "--replay", archive, "-o", "-:jsonl",
		"-s", "DOWNLOAD_MAXSIZE=10000000", "-s", "ROBOTSTXT_OBEY=false", "-s", "RETRY_ENABLED=false")
	t.Logf("peak RSS %d MB", peak>>20)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	items := jsonLines(t, stdout)
	for _, p := range []string{"/declared", "/undeclared", "/bomb"} {
		if it := find(items, "url", base+p); it == nil || it["name"] != "MaxSizeError" {
			t.Errorf("%s: %v, want a MaxSizeError\n%s", p, it, stdout)
		}
	}
	if _, stats := statsDump(t, stderr); stats["download/maxsize"] != float64(3) {
		t.Errorf("download/maxsize = %v, want 3", stats["download/maxsize"])
	}
	if peak == 0 {
		t.Fatal("no VmHWM read")
	}
	if peak > 300<<20 {
		t.Errorf("peak RSS %d MB replaying records of 1 and 2 GiB, want < 300 MB", peak>>20)
	}
}
