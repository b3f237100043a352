package xpath1

// This file holds the evaluator: its dynamic context (Env, the Context extension functions
// see), Evaluate and Select, string-values, the conversions of §4 and function calls.

import (
	"math"
	"strings"

	"golang.org/x/net/html"
)

// Env is the dynamic context of one evaluation beyond the context node.
type Env struct {
	// Variables binds $name (or $prefix:name, as written) to values.
	Variables map[string]Value
	// Data is handed to extension functions as Context.Data (the selector's regex
	// timeout, for example).
	Data any
	// Check, when set, is called every CheckEvery steps (a step is one node an axis
	// visits or one function call); an error it returns aborts the evaluation and is
	// wrapped in the *Error. Use it for deadlines and cancellation.
	Check func() error
	// MaxSteps, when positive, bounds the steps of the evaluation (ErrBudget).
	MaxSteps int
}

// CheckEvery is how many steps pass between calls of Env.Check.
const CheckEvery = 1024

// Func is an extension function. args are its evaluated arguments. It may be called from
// many goroutines at once.
type Func func(ctx *Context, args []Value) (Value, error)

// Context is the evaluation context an extension function sees (XPath 1.0 §1: the
// context node, position and size), with the document's model and Env.Data.
type Context struct {
	Node     Node  // the context node
	Position int   // the context position, from 1
	Size     int   // the context size
	Model    Model // the document's model
	Data     any   // Env.Data
	ev       *evaluator
}

// String converts v to a string as string() does.
func (c *Context) String(v Value) string { return c.ev.toString(v) }

// Number converts v to a number as number() does.
func (c *Context) Number(v Value) float64 { return c.ev.toNumber(v) }

// Boolean converts v to a boolean as boolean() does.
func (c *Context) Boolean(v Value) bool { return toBoolean(v) }

// StringOf returns the string-value of node n.
func (c *Context) StringOf(n Node) string { return c.ev.stringOf(n) }

// SortNodes sorts nodes into document order and removes duplicates, in place.
func (c *Context) SortNodes(nodes []Node) []Node { return c.ev.sortUnique(nodes) }

// evalError carries an *Error out of the evaluation by panic, to Evaluate.
type evalError struct{ err error }

// focus is the context node, position and size (§2.4).
type focus struct {
	node      Node
	pos, size int
}

type evaluator struct {
	m     Model
	env   *Env
	src   string
	steps int
	order map[*html.Node]int32 // document order of the whole tree, built on first need
}

func (ev *evaluator) fail(err error) { panic(evalError{err}) }

func (ev *evaluator) tick(n int) {
	ev.steps += n
	if ev.env == nil {
		return
	}
	if ev.env.MaxSteps > 0 && ev.steps > ev.env.MaxSteps {
		ev.fail(ErrBudget)
	}
	if ev.env.Check != nil && ev.steps/CheckEvery != (ev.steps-n)/CheckEvery {
		if err := ev.env.Check(); err != nil {
			ev.fail(err)
		}
	}
}

// Evaluate evaluates the expression with ctx as the context node (position and size 1)
// in the document m describes. env may be nil. Errors are *Error (Pos -1).
func (x *Expr) Evaluate(m Model, ctx Node, env *Env) (v Value, err error) {
	if ctx.N == nil {
		return Value{}, &Error{Expr: x.src, Pos: -1, Err: ErrNoContext}
	}
	ev := &evaluator{m: m, env: env, src: x.src}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(evalError)
			if !ok {
				panic(r)
			}
			v, err = Value{}, &Error{Expr: x.src, Pos: -1, Err: e.err}
		}
	}()
	return x.e.eval(ev, focus{node: ctx, pos: 1, size: 1}), nil
}

// Select evaluates an expression that must give a node-set and returns its nodes in
// document order (ErrInvalidType otherwise).
func (x *Expr) Select(m Model, ctx Node, env *Env) ([]Node, error) {
	v, err := x.Evaluate(m, ctx, env)
	if err != nil {
		return nil, err
	}
	if v.Type != TypeNodeSet {
		return nil, &Error{Expr: x.src, Pos: -1, Err: ErrInvalidType}
	}
	return v.Nodes, nil
}

// kind returns the node type of n.
func (ev *evaluator) kind(n Node) Kind {
	switch {
	case n.A >= 0:
		return KindAttribute
	case n.A < -1:
		return KindNamespace
	}
	return ev.m.Kind(n.N)
}

// StringOf returns the string-value of node n in the document m describes (§5).
func StringOf(m Model, n Node) string { return (&evaluator{m: m}).stringOf(n) }

func (ev *evaluator) stringOf(n Node) string {
	switch {
	case n.A >= 0:
		return n.N.Attr[n.A].Val
	case n.A < -1:
		ns := ev.m.Namespaces(n.N)
		if i := n.nsIndex(); i < len(ns) {
			return ns[i].URI
		}
		return ""
	}
	switch ev.m.Kind(n.N) {
	case KindText, KindComment, KindPI:
		return n.N.Data
	case KindElement, KindRoot:
		// The concatenation of the text descendants; one text child needs no copy.
		if c := n.N.FirstChild; c != nil && c.NextSibling == nil && ev.m.Kind(c) == KindText {
			return c.Data
		}
		var b strings.Builder
		ev.appendText(&b, n.N)
		return b.String()
	}
	return ""
}

func (ev *evaluator) appendText(b *strings.Builder, n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch ev.m.Kind(c) {
		case KindText:
			b.WriteString(c.Data)
		case KindElement:
			ev.appendText(b, c)
		}
	}
}

func (ev *evaluator) toString(v Value) string {
	switch v.Type {
	case TypeString:
		return v.Str
	case TypeNumber:
		return FormatNumber(v.Num)
	case TypeBoolean:
		if v.Bool {
			return "true"
		}
		return "false"
	case TypeNodeSet:
		if len(v.Nodes) == 0 {
			return ""
		}
		return ev.stringOf(v.Nodes[0])
	}
	return ""
}

func (ev *evaluator) toNumber(v Value) float64 {
	if v.Type == TypeNodeSet {
		return parseNumber(ev.toString(v))
	}
	return atomNumber(v)
}

func toBoolean(v Value) bool {
	switch v.Type {
	case TypeBoolean:
		return v.Bool
	case TypeNumber:
		return v.Num != 0 && !math.IsNaN(v.Num)
	case TypeString:
		return v.Str != ""
	case TypeNodeSet:
		return len(v.Nodes) > 0
	}
	return false
}

func (e *callExpr) eval(ev *evaluator, f focus) Value {
	ev.tick(1)
	if e.fn != nil {
		return e.fn.call(ev, f, e.args)
	}
	args := make([]Value, len(e.args))
	for i, a := range e.args {
		args[i] = a.eval(ev, f)
	}
	c := &Context{Node: f.node, Position: f.pos, Size: f.size, Model: ev.m, ev: ev}
	if ev.env != nil {
		c.Data = ev.env.Data
	}
	v, err := e.ext.Call(c, args)
	if err != nil {
		ev.fail(err)
	}
	return v
}
