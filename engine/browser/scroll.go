package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// How page.scroll moves a page: as a user's mouse wheel, then to the very bottom.

// viewport is where a page is scrolled to and how far it goes on.
type viewport struct {
	Width   float64 `json:"w"` // window.innerWidth
	Height  float64 `json:"h"` // window.innerHeight
	ScrollY float64 `json:"y"` // window.scrollY
	Total   float64 `json:"t"` // document.documentElement.scrollHeight
}

// wheelParams are Input.dispatchMouseEvent's for a mouse wheel. Chromium requires deltaX
// and deltaY with it, and input.DispatchMouseEventParams leaves out a zero deltaX.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

// dispatchWheel is Input.dispatchMouseEvent with wheelParams.
var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

// wheelTimeout bounds the wait for Chromium to take the wheel: a page that draws no
// frames (a hidden one) never does, and scrollToBottom goes on with window.scrollTo.
const wheelTimeout = 2 * time.Second

// viewportScript evaluates to a viewport.
const viewportScript = `({w: innerWidth, h: innerHeight, y: scrollY, t: document.documentElement.scrollHeight})`

// scrollToBottom scrolls the document to its bottom and returns its height before.
// It turns the mouse wheel over the middle of the viewport (Input.dispatchMouseEvent)
// by what is left below it: Chromium scrolls that as a user's wheel, with the wheel and
// scroll events an infinite list may wait for (a list that loads on wheel events gets
// none from window.scrollTo). Then window.scrollTo goes the rest of the way, for a wheel
// that an element under the pointer kept (one that scrolls itself, or a listener that
// cancelled it) or that Chromium did not take (wheelTimeout).
func scrollToBottom(ctx context.Context) (float64, error) {
	vp, err := chromedp.Run(ctx, chromedp.Evaluate[viewport](viewportScript))
	if err != nil {
		return 0, err
	}
	if left := vp.Total - vp.ScrollY - vp.Height; left > 0 && vp.Width > 0 && vp.Height > 0 {
		wctx, cancel := context.WithTimeout(ctx, wheelTimeout)
		_, err := chromedp.Call(wctx, dispatchWheel, wheelParams{
			Type: input.DispatchMouseEventTypeMouseWheel, X: vp.Width / 2, Y: vp.Height / 2, DeltaY: left})
		cancel()
		if err != nil && (ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded)) {
			return 0, err
		}
	}
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.scrollTo(0, document.documentElement.scrollHeight), true)`))
	return vp.Total, err
}

// growthScript waits, in the page, for the document to grow past before (a height): first
// for two animation frames (at most ms), so that the rendering step that runs a page's
// IntersectionObservers has run after the scroll, then up to ms more for the page's own
// loading; once it grew, for two frames again, so that an observer sees its sentinel pushed
// out of view before the next scroll brings it back (an observer reports changes only: a
// sentinel that never left the viewport between two scrolls loads nothing more). A loaded
// machine can delay a frame past any fixed wait measured from Go; a page that draws no
// frames (a hidden one) gets ms for the frames instead.
const growthScript = `(async (before, ms) => {
  const h = () => document.documentElement.scrollHeight;
  const sleep = (t) => new Promise((r) => setTimeout(r, t));
  const frames = () => Promise.race([new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))), sleep(ms)]);
  await frames();
  const end = performance.now() + ms;
  while (h() <= before && performance.now() < end) await sleep(Math.min(50, ms));
  if (h() <= before) return false;
  await frames();
  return true;
})`

// waitGrowth reports whether the document grew past before within delay of the page's
// next frames (growthScript).
func waitGrowth(ctx context.Context, before float64, delay time.Duration) (bool, error) {
	expr := fmt.Sprintf("%s(%v, %d)", growthScript, before, delay.Milliseconds())
	return chromedp.Run(ctx, chromedp.Evaluate[bool](expr, chromedp.EvalAwaitPromise))
}
