package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// Downloads lists what is in flight: the download on the wire, the one waiting for the
// slot it holds, and the caller's origin tag; nothing once they are done.
func TestDownloadsInFlight(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.URL.Path
		<-release
	}))
	defer srv.Close()
	e, _ := newEngine(t, nil, map[string]any{types.ConcurrentRequestsPerDomain: 1, types.RetryEnabled: false})
	if got := e.Downloads(); len(got) != 0 {
		t.Fatalf("Downloads before any = %v", got)
	}
	done := make(chan error, 2)
	go func() {
		_, err := e.Download(engine.WithOrigin(context.Background(), 7), &types.Request{URL: srv.URL + "/first"})
		done <- err
	}()
	if p := <-arrived; p != "/first" {
		t.Fatalf("first request to arrive: %s", p)
	}
	go func() {
		_, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/second", Method: "POST"})
		done <- err
	}()
	// The second registers before it waits for the slot; nothing signals that moment.
	var got []engine.DownloadInfo
	for deadline := time.Now().Add(10 * time.Second); len(got) < 2 && time.Now().Before(deadline); {
		got = e.Downloads()
		time.Sleep(time.Millisecond)
	}
	if len(got) != 2 {
		t.Fatalf("Downloads = %+v, want 2", got)
	}
	first, second := got[0], got[1]
	if first.URL != srv.URL+"/first" || first.State != engine.StateDownloading || first.Origin != 7 || first.Method != "GET" || first.Slot != "127.0.0.1" {
		t.Errorf("first = %+v", first)
	}
	if second.URL != srv.URL+"/second" || second.State != engine.StateWaitingForSlot || second.Origin != 0 || second.Method != "POST" {
		t.Errorf("second = %+v", second)
	}
	if first.Started.IsZero() || second.Started.Before(first.Started) {
		t.Errorf("start times %v, %v", first.Started, second.Started)
	}
	close(release)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := e.Downloads(); len(got) != 0 {
		t.Errorf("Downloads after = %v", got)
	}
}

// A download waiting in the RetryMiddleware before its next try is listed as "retry wait".
func TestDownloadsRetryWait(t *testing.T) {
	flaky := enginetest.NewServer(t).URL + "/status/503"
	e, _ := newEngine(t, nil, map[string]any{types.RetryBackoffBase: 60.0})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Download(engine.WithOrigin(ctx, 3), &types.Request{URL: flaky})
		done <- err
	}()
	// The wait starts after the 503 is read; nothing signals that moment.
	var got []engine.DownloadInfo
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if got = e.Downloads(); len(got) == 1 && got[0].State == engine.StateRetryWait {
			break
		}
	}
	if len(got) != 1 || got[0].State != engine.StateRetryWait || got[0].Retries != 1 || got[0].URL != flaky || got[0].Origin != 3 {
		t.Fatalf("Downloads = %+v, want one in retry wait", got)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled download succeeded")
	}
	if got := e.Downloads(); len(got) != 0 {
		t.Errorf("Downloads after = %v", got)
	}
}
