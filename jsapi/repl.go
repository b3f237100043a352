package jsapi

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

//go:embed repl.js
var replSrc string

var replProg = goja.MustCompile("jscrawl-shell.js", replSrc, true)

// ErrRestarted is returned by REPL.Eval when the VM was interrupted (Ctrl-C in a busy
// loop, or JS_CALLBACK_TIMEOUT) and replaced by a fresh one: the variables defined so far
// are gone; response is bound again.
var ErrRestarted = errors.New("the JS VM was interrupted and restarted: variables defined so far are gone")

// REPL evaluates code typed at `jscrawl shell` on the spider's first VM. There, spider is
// the spider instance, response and request are the last downloaded page and its request,
// fetch(url) downloads through the crawler and re-binds both, and console writes to the
// REPL's output. Use a REPL from one goroutine; only Interrupt may be called from another.
type REPL struct {
	s     *Spider
	print func(string)

	vm      *runtime.VM
	cur     atomic.Pointer[runtime.VM] // vm, for Interrupt
	st      *vmState
	inspect goja.Callable // used on the loop
	setResp goja.Callable // used on the loop
	resp    *types.Response
}

// NewREPL prepares the spider's first VM for a REPL; call it after Bind. print receives
// console output, one line per call; it is called on the VM's loop.
func (d *DevTools) NewREPL(print func(string)) (*REPL, error) {
	r := &REPL{s: d.s, print: print}
	if err := r.init(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *REPL) init() error {
	vm, err := r.s.vm0()
	if err != nil {
		return err
	}
	st := r.s.state(vm)
	if st == nil {
		return fmt.Errorf("repl: no spider state on the VM")
	}
	r.vm, r.st = vm, st
	r.cur.Store(vm)
	return vm.Do(context.Background(), func(rt *goja.Runtime) error {
		f, err := rt.RunProgram(replProg)
		if err != nil {
			return err
		}
		init, _ := goja.AssertFunction(f)
		hooks := rt.NewObject()
		_ = hooks.Set("print", func(line string) { r.print(line) })
		_ = hooks.Set("bound", func(c goja.FunctionCall) goja.Value {
			if obj, ok := c.Argument(0).(*goja.Object); ok {
				if h, ok := st.responseHandle(obj); ok {
					r.resp = h.resp
				}
			}
			return goja.Undefined()
		})
		res, err := init(goja.Undefined(), rt.GlobalObject(), st.exports, st.spider, hooks)
		if err != nil {
			return runtime.ToScriptError(err)
		}
		o := res.ToObject(rt)
		r.inspect, _ = goja.AssertFunction(o.Get("inspect"))
		r.setResp, _ = goja.AssertFunction(o.Get("setResponse"))
		if r.resp != nil {
			return r.bind(r.resp)
		}
		return nil
	})
}

// bind sets response and request to resp; on the loop.
func (r *REPL) bind(resp *types.Response) error {
	jr, err := r.st.responseToJS(&respHandle{resp: resp})
	if err != nil {
		return err
	}
	_, err = r.setResp(goja.Undefined(), jr)
	return err
}

// SetResponse binds response and request to resp.
func (r *REPL) SetResponse(ctx context.Context, resp *types.Response) error {
	return r.vm.Do(ctx, func(*goja.Runtime) error { return r.bind(resp) })
}

// Response returns the response bound now, nil before the first fetch.
func (r *REPL) Response() *types.Response {
	var resp *types.Response
	_ = r.vm.Do(context.Background(), func(*goja.Runtime) error { resp = r.resp; return nil })
	return resp
}

// Eval runs src as a script in the global scope and returns its value as the REPL shows
// it; a promise is awaited first. Top-level await works in a lone expression or a
// declaration (let x = await fetch(u)); a top-level let or const may be declared again, as
// in Node's REPL. A thrown error or a rejection is returned as a *runtime.ScriptError, a
// syntax error as an error naming the line and column. If the VM broke while src ran
// (JS_CALLBACK_TIMEOUT), it is replaced and ErrRestarted returned; a VM broken by
// Interrupt is replaced before src runs.
func (r *REPL) Eval(ctx context.Context, src string) (string, error) {
	if r.vm.Broken() {
		if err := r.restart(); !errors.Is(err, ErrRestarted) {
			return "", err
		}
	}
	var out string
	err := r.st.await(ctx, func(rt *goja.Runtime) (goja.Value, error) {
		prog, err := compileREPL(src)
		if err != nil {
			return nil, &runtime.ScriptError{Name: "SyntaxError", Message: strings.TrimPrefix(err.Error(), "SyntaxError: ")}
		}
		v, err := rt.RunProgram(prog)
		if err != nil {
			return nil, err
		}
		if _, ok := v.Export().(*goja.Promise); ok {
			// Eval reports a rejection itself: mark it handled, so it is not also logged
			// as an unhandled rejection.
			if catch, ok := goja.AssertFunction(v.ToObject(rt).Get("catch")); ok {
				_, _ = catch(v, rt.ToValue(func(goja.FunctionCall) goja.Value { return goja.Undefined() }))
			}
		}
		return v, nil
	}, func(v goja.Value) error {
		if v == nil {
			out = "undefined"
			return nil
		}
		s, err := r.inspect(goja.Undefined(), v)
		if err != nil {
			return runtime.ToScriptError(err)
		}
		out = s.String()
		return nil
	})
	if r.vm.Broken() || errors.Is(err, runtime.ErrClosed) {
		return "", r.restart()
	}
	return out, err
}

func (r *REPL) restart() error {
	if err := r.init(); err != nil {
		return fmt.Errorf("%w; restarting failed: %v", ErrRestarted, err)
	}
	return ErrRestarted
}

// Interrupt stops an evaluation whose code runs synchronously (an endless loop): if the VM
// does not answer within wait, it is interrupted and Interrupt reports true; the next Eval
// runs on a fresh VM, without the variables defined so far. An evaluation only waiting for
// a promise is left alone (cancel Eval's context instead). Call it while Eval runs on
// another goroutine.
func (r *REPL) Interrupt(wait time.Duration) bool {
	vm := r.cur.Load()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := vm.Do(ctx, func(*goja.Runtime) error { return nil }); errors.Is(err, context.DeadlineExceeded) {
		vm.Interrupt("interrupted (Ctrl-C)")
		return true
	}
	return false
}

// firstDecl matches a script that starts with a let or const declaration.
var firstDecl = regexp.MustCompile(`^(\s*)(?:let|const)(\s)`)

// compileREPL compiles one REPL input: a leading let/const becomes var (so it can be typed
// again), and code using await at the top level runs in an async function (see
// asyncWrap).
func compileREPL(src string) (*goja.Program, error) {
	src = firstDecl.ReplaceAllString(src, "${1}var$2")
	prog, err := goja.Compile("<shell>", src, false)
	if err == nil || !strings.Contains(src, "await") {
		return prog, err
	}
	if wrapped, ok := asyncWrap(src); ok {
		if p, err2 := goja.Compile("<shell>", wrapped, false); err2 == nil {
			return p, nil
		}
	}
	return nil, err
}

// asyncWrap rewrites src, which uses await at the top level, into an async arrow function
// called at once, as Node's REPL does: its top-level declarations with initializers become
// assignments to globals (so they outlive the input), and a last expression statement is
// returned (so its value is printed).
func asyncWrap(src string) (string, bool) {
	const head = "(async () => {\n"
	wrapped := head + src + "\n})()"
	prog, err := parser.ParseFile(nil, "", wrapped, 0)
	if err != nil || len(prog.Body) != 1 {
		return "", false
	}
	es, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return "", false
	}
	call, ok := es.Expression.(*ast.CallExpression)
	if !ok {
		return "", false
	}
	arrow, ok := call.Callee.(*ast.ArrowFunctionLiteral)
	if !ok {
		return "", false
	}
	block, ok := arrow.Body.(*ast.BlockStatement)
	if !ok {
		return "", false
	}
	type edit struct {
		at, del int // 0-based offset in wrapped, bytes replaced
		text    string
	}
	var edits []edit
	declare := func(start, end int, keyword string, list []*ast.Binding) {
		for _, b := range list {
			if b.Initializer == nil {
				return // "let x;" stays local
			}
		}
		edits = append(edits, edit{start, len(keyword), "("}, edit{end, 0, ")"})
	}
	prevEnd := len(head)
	for i, st := range block.List {
		stStart := prevEnd
		prevEnd = int(st.Idx1()) - 1
		switch d := st.(type) {
		case *ast.LexicalDeclaration:
			declare(int(d.Idx0())-1, int(d.Idx1())-1, d.Token.String(), d.List)
		case *ast.VariableStatement:
			declare(int(d.Idx0())-1, int(d.Idx1())-1, "var", d.List)
		case *ast.ExpressionStatement:
			if i == len(block.List)-1 {
				// The expression's positions leave out its enclosing parentheses: return
				// from before them.
				start, end := returnSpan(wrapped, stStart, int(d.Idx0())-1, int(d.Idx1())-1)
				edits = append(edits, edit{start, 0, "return ("}, edit{end, 0, ")"})
			}
		}
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.at < len(head) || e.at+e.del > len(wrapped) {
			return "", false
		}
		wrapped = wrapped[:e.at] + e.text + wrapped[e.at+e.del:]
	}
	return wrapped, true
}

// returnSpan widens the expression wrapped[x0:x1] of the statement that starts at or after
// from to the parentheses around it, which its positions leave out: from the statement's
// first character to the first end at or after x1 where the text parses as an expression.
func returnSpan(wrapped string, from, x0, x1 int) (int, int) {
	start := from
	for start < x0 && strings.ContainsRune(" \t\r\n;", rune(wrapped[start])) {
		start++
	}
	for end := x1; end <= len(wrapped); end++ {
		if _, err := parser.ParseFile(nil, "", "(async () => (\n"+wrapped[start:end]+"\n))", 0); err == nil {
			return start, end
		}
		if end < len(wrapped) && !strings.ContainsRune(") \t\r\n", rune(wrapped[end])) {
			break
		}
	}
	return x0, x1
}
