package jsapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// cheerioHarnessSrc is the spider evalCheerio runs its code in: the page's meta carries the
// HTML and the function body.
const cheerioHarnessSrc = `import * as cheerio from "cheerio";
export default class CheerioHarness {
  name = "cheerio-harness";
  parse(response) {
    const { html, js } = response.meta;
    try {
      const $ = cheerio.load(html);
      const r = new Function("$", "cheerio", js)($, cheerio);
      return { out: r === undefined ? "undefined" : JSON.stringify(r) };
    } catch (e) {
      return { err: String(e && e.message !== undefined ? e.message : e) };
    }
  }
}
`

// The spider of evalCheerio, loaded once per test binary (its VMs are reused: Parse is
// safe for concurrent use, so parallel tests share it).
var (
	harnessOnce sync.Once
	harnessSp   *jsapi.Spider
	harnessErr  error
)

func cheerioHarness() (*jsapi.Spider, error) {
	harnessOnce.Do(func() {
		prog, err := runtime.BundleSource("cheerio_harness.js", cheerioHarnessSrc, runtime.BundleOptions{External: jsapi.NativeModules})
		if err != nil {
			harnessErr = err
			return
		}
		sp, err := jsapi.Load(prog, jsapi.Options{})
		if err != nil {
			harnessErr = err
			return
		}
		if err := sp.Bind(engine.New(sp, types.NewSettings())); err != nil {
			harnessErr = err
			return
		}
		harnessSp = sp
	})
	return harnessSp, harnessErr
}

// evalCheerio runs js as the body of a function ($, cheerio) => { ... } in a spider VM,
// where cheerio is the built-in "cheerio" module and $ = cheerio.load(html), and returns
// JSON.stringify of what it returns ("undefined" for undefined), or an error carrying the
// JS exception's message.
func evalCheerio(t testing.TB, html, js string) (string, error) {
	t.Helper()
	sp, err := cheerioHarness()
	if err != nil {
		t.Fatalf("cheerio harness: %v", err)
	}
	u := "http://127.0.0.1:1/cheerio"
	req := &types.Request{URL: u, Meta: types.Item{{Key: "html", Value: html}, {Key: "js", Value: js}}}
	resp := &types.Response{URL: u, Status: 200, Headers: http.Header{}, Body: []byte("<p></p>"), Request: req}
	var outs enginetest.Recorder[types.Output]
	if err := sp.Parse(context.Background(), resp, outs.Add); err != nil {
		return "", err
	}
	all := outs.All()
	if len(all) != 1 || all[0].Item == nil {
		return "", fmt.Errorf("evalCheerio: outputs %v", all)
	}
	if msg, ok := all[0].Item.Get("err"); ok {
		return "", errors.New(fmt.Sprint(msg))
	}
	out, _ := all[0].Item.Get("out")
	s, _ := out.(string)
	return s, nil
}
