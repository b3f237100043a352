package xpath1

import (
	"math"
	"slices"
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
	switch v.Type {
	case TypeNumber:
		return v.Num
	case TypeBoolean:
		if v.Bool {
			return 1
		}
		return 0
	}
	return parseNumber(ev.toString(v))
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

// --- primary expressions and operators ---

func (e *numberExpr) eval(*evaluator, focus) Value { return NumberValue(e.v) }
func (e *stringExpr) eval(*evaluator, focus) Value { return StringValue(e.v) }

func (e *varExpr) eval(ev *evaluator, _ focus) Value {
	if ev.env != nil {
		if v, ok := ev.env.Variables[e.name]; ok {
			return v
		}
	}
	ev.fail(ErrUndefinedVariable)
	return Value{}
}

func (e *orExpr) eval(ev *evaluator, f focus) Value {
	return BooleanValue(toBoolean(e.l.eval(ev, f)) || toBoolean(e.r.eval(ev, f)))
}

func (e *andExpr) eval(ev *evaluator, f focus) Value {
	return BooleanValue(toBoolean(e.l.eval(ev, f)) && toBoolean(e.r.eval(ev, f)))
}

func (e *negExpr) eval(ev *evaluator, f focus) Value {
	return NumberValue(-ev.toNumber(e.e.eval(ev, f)))
}

func (e *arithExpr) eval(ev *evaluator, f focus) Value {
	a, b := ev.toNumber(e.l.eval(ev, f)), ev.toNumber(e.r.eval(ev, f))
	switch e.op {
	case '+':
		return NumberValue(a + b)
	case '-':
		return NumberValue(a - b)
	case '*':
		return NumberValue(a * b)
	case 'd':
		return NumberValue(a / b)
	}
	return NumberValue(math.Mod(a, b)) // mod: the sign of the dividend, as Java's %
}

func (e *unionExpr) eval(ev *evaluator, f focus) Value {
	a, b := e.l.eval(ev, f), e.r.eval(ev, f)
	if a.Type != TypeNodeSet || b.Type != TypeNodeSet {
		ev.fail(ErrInvalidType)
	}
	switch {
	case len(a.Nodes) == 0:
		return b
	case len(b.Nodes) == 0:
		return a
	}
	return NodeSetValue(ev.merge(a.Nodes, b.Nodes))
}

// merge returns the union of two node-sets in document order, in one pass.
func (ev *evaluator) merge(a, b []Node) []Node {
	out := make([]Node, 0, len(a)+len(b))
	if ev.compare(a[len(a)-1], b[0]) < 0 {
		return append(append(out, a...), b...)
	}
	if ev.compare(b[len(b)-1], a[0]) < 0 {
		return append(append(out, b...), a...)
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := ev.compare(a[i], b[j]); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// --- comparisons (§3.4) ---

func (e *cmpExpr) eval(ev *evaluator, f focus) Value {
	return BooleanValue(ev.compareValues(e.op, e.l.eval(ev, f), e.r.eval(ev, f)))
}

func (ev *evaluator) compareValues(op string, a, b Value) bool {
	an, bn := a.Type == TypeNodeSet, b.Type == TypeNodeSet
	switch {
	case an && bn:
		// True if some node of a and some node of b compare true on their string-values.
		if len(a.Nodes) == 0 || len(b.Nodes) == 0 {
			return false
		}
		if op == "=" || op == "!=" {
			bs := make([]string, len(b.Nodes))
			for i, n := range b.Nodes {
				bs[i] = ev.stringOf(n)
			}
			for _, n := range a.Nodes {
				s := ev.stringOf(n)
				for _, t := range bs {
					if (s == t) == (op == "=") {
						return true
					}
				}
			}
			return false
		}
		bf := make([]float64, len(b.Nodes))
		for i, n := range b.Nodes {
			bf[i] = parseNumber(ev.stringOf(n))
		}
		for _, n := range a.Nodes {
			x := parseNumber(ev.stringOf(n))
			for _, y := range bf {
				if compareNumbers(op, x, y) {
					return true
				}
			}
		}
		return false
	case an || bn:
		ns, other, swapped := a, b, false
		if bn {
			ns, other, swapped = b, a, true
		}
		if other.Type == TypeBoolean {
			x, y := toBoolean(ns), other.Bool
			if swapped {
				x, y = y, x
			}
			return compareAtoms(op, BooleanValue(x), BooleanValue(y))
		}
		for _, n := range ns.Nodes {
			s := StringValue(ev.stringOf(n))
			var ok bool
			if other.Type == TypeNumber {
				s = NumberValue(parseNumber(s.Str))
			}
			if swapped {
				ok = compareAtoms(op, other, s)
			} else {
				ok = compareAtoms(op, s, other)
			}
			if ok {
				return true
			}
		}
		return false
	}
	return compareAtoms(op, a, b)
}

// compareAtoms compares two values that are not node-sets.
func compareAtoms(op string, a, b Value) bool {
	if op == "=" || op == "!=" {
		eq := false
		switch {
		case a.Type == TypeBoolean || b.Type == TypeBoolean:
			eq = toBoolean(a) == toBoolean(b)
		case a.Type == TypeNumber || b.Type == TypeNumber:
			eq = atomNumber(a) == atomNumber(b)
		default:
			eq = a.Str == b.Str
		}
		return eq == (op == "=")
	}
	return compareNumbers(op, atomNumber(a), atomNumber(b))
}

func atomNumber(v Value) float64 {
	switch v.Type {
	case TypeNumber:
		return v.Num
	case TypeBoolean:
		if v.Bool {
			return 1
		}
		return 0
	}
	return parseNumber(v.Str)
}

func compareNumbers(op string, a, b float64) bool {
	switch op {
	case "=":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}

// --- function calls ---

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

// --- filter expressions and paths ---

func (e *filterExpr) eval(ev *evaluator, f focus) Value {
	v := e.prim.eval(ev, f)
	if v.Type != TypeNodeSet {
		ev.fail(ErrInvalidType)
	}
	nodes := slices.Clone(v.Nodes)
	for _, p := range e.preds {
		nodes = ev.filter(nodes, p)
	}
	return NodeSetValue(nodes)
}

func (e *pathExpr) eval(ev *evaluator, f focus) Value {
	var nodes []Node
	switch {
	case e.start != nil:
		v := e.start.eval(ev, f)
		if v.Type != TypeNodeSet {
			ev.fail(ErrInvalidType)
		}
		nodes = v.Nodes
	case e.abs:
		r := f.node.N
		for r.Parent != nil {
			r = r.Parent
		}
		nodes = []Node{NodeOf(r)}
	default:
		var one [1]Node
		one[0] = f.node
		nodes = one[:]
	}
	for _, s := range e.steps {
		if len(nodes) == 0 {
			break
		}
		nodes = ev.step(nodes, s)
	}
	return NodeSetValue(nodes)
}

// step applies a location step to every node of in (in document order, unique) and
// returns the union of the results, in document order.
func (ev *evaluator) step(in []Node, s *step) []Node {
	if len(in) == 1 {
		return ev.stepFrom(nil, in[0], s)
	}
	skipNested := (s.axis == axDescendant || s.axis == axDescendantOrSelf || s.axis == axDescendantAttr) && !anyPositional(s.preds)
	var out []Node
	sorted := true
	var last *html.Node // the last context whose subtree was walked (skipNested)
	for _, c := range in {
		if skipNested && c.A == -1 && last != nil && isAncestor(last, c.N) {
			continue // its descendants are in last's already
		}
		n := len(out)
		out = ev.stepFrom(out, c, s)
		if c.A == -1 {
			last = c.N
		}
		if len(out) > n {
			if sorted && n > 0 && ev.compare(out[n-1], out[n]) >= 0 {
				sorted = false
			}
		}
	}
	if !sorted {
		out = ev.sortUnique(out)
	}
	return out
}

func isAncestor(a, n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// stepFrom appends to out the nodes of step s from context node c, in document order.
func (ev *evaluator) stepFrom(out []Node, c Node, s *step) []Node {
	start := len(out)
	out = ev.axis(out, c, s.axis, &s.test)
	if len(s.preds) > 0 {
		// Predicates see the nodes in axis order: reverse axes count from c backwards.
		sel := out[start:]
		for _, p := range s.preds {
			sel = ev.filter(sel, p)
		}
		out = out[:start+len(sel)]
	}
	if s.axis.reverse() {
		slices.Reverse(out[start:])
	}
	return out
}

// filter keeps the nodes of nodes (in the order that gives their proximity positions)
// for which p is true, in place.
func (ev *evaluator) filter(nodes []Node, p *predicate) []Node {
	if p.index > 0 {
		if p.index <= len(nodes) {
			nodes[0] = nodes[p.index-1]
			return nodes[:1]
		}
		return nodes[:0]
	}
	out := nodes[:0]
	size := len(nodes)
	for i, n := range nodes {
		v := p.e.eval(ev, focus{node: n, pos: i + 1, size: size})
		keep := false
		if v.Type == TypeNumber {
			keep = v.Num == float64(i+1)
		} else {
			keep = toBoolean(v)
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}

// --- axes ---

// match reports whether node n of kind k passes test t on an axis whose principal node
// type is principal.
func (ev *evaluator) match(n Node, k Kind, t *nodeTest, principal Kind) bool {
	switch t.kind {
	case testNode:
		return true
	case testText:
		return k == KindText
	case testComment:
		return k == KindComment
	case testPI:
		if k != KindPI {
			return false
		}
		if t.local == "" {
			return true
		}
		_, local, _ := ev.m.Name(n.N)
		return local == t.local
	}
	if k != principal {
		return false
	}
	if t.kind == testAny {
		return true
	}
	var local, uri string
	switch k {
	case KindElement:
		_, local, uri = ev.m.Name(n.N)
	case KindAttribute:
		_, local, uri, _ = ev.m.Attr(n.N, int(n.A))
	case KindNamespace:
		ns := ev.m.Namespaces(n.N)
		local = ns[n.nsIndex()].Prefix
	}
	if t.kind == testNSAny {
		return uri == t.uri
	}
	return local == t.local && uri == t.uri
}

// add appends n to out if it passes the test.
func (ev *evaluator) add(out []Node, n Node, k Kind, t *nodeTest, principal Kind) []Node {
	if ev.match(n, k, t, principal) {
		out = append(out, n)
	}
	return out
}

// axis appends the nodes of axis a from c that pass test t, in axis order (reverse axes
// nearest first).
func (ev *evaluator) axis(out []Node, c Node, a axis, t *nodeTest) []Node {
	m := ev.m
	tree := c.A == -1
	switch a {
	case axSelf:
		return ev.add(out, c, ev.kind(c), t, KindElement)
	case axChild:
		if !tree {
			return out
		}
		n := 0
		for ch := c.N.FirstChild; ch != nil; ch = ch.NextSibling {
			n++
			if k := m.Kind(ch); k != KindNone {
				out = ev.add(out, NodeOf(ch), k, t, KindElement)
			}
		}
		ev.tick(n)
	case axDescendantOrSelf, axDescendant:
		if a == axDescendantOrSelf {
			out = ev.add(out, c, ev.kind(c), t, KindElement)
		}
		if !tree {
			return out
		}
		return ev.descendants(out, c.N, t)
	case axParent:
		if !tree {
			return ev.add(out, NodeOf(c.N), KindElement, t, KindElement)
		}
		if p := c.N.Parent; p != nil {
			return ev.add(out, NodeOf(p), m.Kind(p), t, KindElement)
		}
	case axAncestorOrSelf, axAncestor:
		if a == axAncestorOrSelf {
			out = ev.add(out, c, ev.kind(c), t, KindElement)
		}
		p := c.N
		if tree {
			p = p.Parent
		}
		for ; p != nil; p = p.Parent {
			out = ev.add(out, NodeOf(p), m.Kind(p), t, KindElement)
		}
	case axFollowingSibling, axPrecedingSibling:
		if !tree {
			return out
		}
		n := 0
		for s := sibling(c.N, a == axFollowingSibling); s != nil; s = sibling(s, a == axFollowingSibling) {
			n++
			if k := m.Kind(s); k != KindNone {
				out = ev.add(out, NodeOf(s), k, t, KindElement)
			}
		}
		ev.tick(n)
	case axFollowing:
		x := c.N
		if !tree {
			// After an attribute or namespace node come its element's descendants.
			out = ev.descendants(out, x, t)
		}
		for ; x != nil; x = x.Parent {
			for s := x.NextSibling; s != nil; s = s.NextSibling {
				if k := m.Kind(s); k != KindNone {
					out = ev.add(out, NodeOf(s), k, t, KindElement)
					out = ev.descendants(out, s, t)
				}
			}
		}
	case axPreceding:
		for x := c.N; x != nil; x = x.Parent {
			for s := x.PrevSibling; s != nil; s = s.PrevSibling {
				if k := m.Kind(s); k != KindNone {
					out = ev.reverseSubtree(out, s, k, t)
				}
			}
		}
	case axAttribute:
		if !tree || m.Kind(c.N) != KindElement {
			return out
		}
		for i := range c.N.Attr {
			if _, _, _, ok := m.Attr(c.N, i); ok {
				out = ev.add(out, AttrOf(c.N, i), KindAttribute, t, KindAttribute)
			}
		}
	case axDescendantAttr:
		if !tree {
			return out
		}
		steps := 0
		for n := c.N; n != nil; n = nextVisible(m, n, c.N) {
			steps++
			if m.Kind(n) != KindElement {
				continue
			}
			for i := range n.Attr {
				if _, _, _, ok := m.Attr(n, i); ok {
					out = ev.add(out, AttrOf(n, i), KindAttribute, t, KindAttribute)
				}
			}
		}
		ev.tick(steps)
	case axNamespace:
		if !tree || m.Kind(c.N) != KindElement {
			return out
		}
		for i := range m.Namespaces(c.N) {
			out = ev.add(out, Node{N: c.N, A: int32(-2 - i)}, KindNamespace, t, KindNamespace)
		}
	}
	return out
}

func sibling(n *html.Node, next bool) *html.Node {
	if next {
		return n.NextSibling
	}
	return n.PrevSibling
}

// descendants appends the visible descendants of n that pass t, in document order, with
// no recursion (the tree's parent links lead back).
func (ev *evaluator) descendants(out []Node, n *html.Node, t *nodeTest) []Node {
	m := ev.m
	steps := 0
	c := n.FirstChild
	for c != nil {
		steps++
		k := m.Kind(c)
		if k != KindNone {
			if ev.match(NodeOf(c), k, t, KindElement) {
				out = append(out, NodeOf(c))
			}
			if c.FirstChild != nil {
				c = c.FirstChild
				continue
			}
		}
		for c.NextSibling == nil {
			c = c.Parent
			if c == n {
				ev.tick(steps)
				return out
			}
		}
		c = c.NextSibling
	}
	ev.tick(steps)
	return out
}

// reverseSubtree appends the nodes of the subtree of s (kind k) that pass t, in reverse
// document order: the last descendant first, s last.
func (ev *evaluator) reverseSubtree(out []Node, s *html.Node, k Kind, t *nodeTest) []Node {
	ev.tick(1)
	for c := s.LastChild; c != nil; c = c.PrevSibling {
		if ck := ev.m.Kind(c); ck != KindNone {
			out = ev.reverseSubtree(out, c, ck, t)
		}
	}
	return ev.add(out, NodeOf(s), k, t, KindElement)
}

// --- document order ---

// rank orders the nodes that share a tree node: the node, its namespace nodes, then
// its attributes (§5: namespace nodes precede attributes).
func rank(n Node) int {
	switch {
	case n.A == -1:
		return 0
	case n.A < -1:
		return int(-1 - n.A) // 1, 2, …
	}
	return 1<<30 + int(n.A)
}

// compare orders two nodes of one tree by document order.
func (ev *evaluator) compare(a, b Node) int {
	if a.N == b.N {
		return rank(a) - rank(b)
	}
	if ev.order != nil {
		return int(ev.order[a.N]) - int(ev.order[b.N])
	}
	return compareTree(a.N, b.N)
}

func depth(n *html.Node) int {
	d := 0
	for ; n.Parent != nil; n = n.Parent {
		d++
	}
	return d
}

// compareTree orders two distinct tree nodes by walking up to their common ancestor.
func compareTree(x, y *html.Node) int {
	dx, dy := depth(x), depth(y)
	for ; dx > dy; dx-- {
		x = x.Parent
		if x == y {
			return 1 // y is an ancestor of the original x
		}
	}
	for ; dy > dx; dy-- {
		y = y.Parent
		if y == x {
			return -1
		}
	}
	for x.Parent != y.Parent {
		x, y = x.Parent, y.Parent
	}
	if x.Parent == nil {
		return 0 // different trees: no order
	}
	// Scan both ways from x at once: y is found in as many steps as it is far.
	for f, p := x.NextSibling, x.PrevSibling; f != nil || p != nil; {
		if f != nil {
			if f == y {
				return -1
			}
			f = f.NextSibling
		}
		if p != nil {
			if p == y {
				return 1
			}
			p = p.PrevSibling
		}
	}
	return 1
}

// sortUnique sorts nodes into document order and drops duplicates, in place.
func (ev *evaluator) sortUnique(nodes []Node) []Node {
	if len(nodes) < 2 {
		return nodes
	}
	if ev.order == nil {
		root := nodes[0].N
		for root.Parent != nil {
			root = root.Parent
		}
		ev.order = make(map[*html.Node]int32)
		var i int32
		for c := root; c != nil; {
			ev.order[c] = i
			i++
			if c.FirstChild != nil {
				c = c.FirstChild
				continue
			}
			for c != nil && c.NextSibling == nil {
				c = c.Parent
			}
			if c != nil {
				c = c.NextSibling
			}
		}
	}
	slices.SortFunc(nodes, ev.compare)
	return slices.Compact(nodes)
}

// attrCmpExpr is "@name = 'literal'" (or !=): the commonest predicate of scraping
// queries, evaluated on the context element's attributes without building a node-set.
type attrCmpExpr struct {
	test nodeTest
	val  string
	neq  bool
}

func (e *attrCmpExpr) eval(ev *evaluator, f focus) Value {
	n := f.node
	if n.A != -1 || ev.m.Kind(n.N) != KindElement {
		return BooleanValue(false)
	}
	for i := range n.N.Attr {
		if _, _, _, ok := ev.m.Attr(n.N, i); !ok {
			continue
		}
		a := AttrOf(n.N, i)
		if ev.match(a, KindAttribute, &e.test, KindAttribute) && (n.N.Attr[i].Val == e.val) != e.neq {
			return BooleanValue(true)
		}
	}
	return BooleanValue(false)
}

// attrExistsExpr is a predicate "[@name]": whether the context element has the attribute.
type attrExistsExpr struct{ test nodeTest }

func (e *attrExistsExpr) eval(ev *evaluator, f focus) Value {
	n := f.node
	if n.A != -1 || ev.m.Kind(n.N) != KindElement {
		return BooleanValue(false)
	}
	for i := range n.N.Attr {
		if _, _, _, ok := ev.m.Attr(n.N, i); ok && ev.match(AttrOf(n.N, i), KindAttribute, &e.test, KindAttribute) {
			return BooleanValue(true)
		}
	}
	return BooleanValue(false)
}

// attrStep returns the node test of e if e is a relative path of one attribute step
// without predicates ("@class").
func attrStep(e expr) (nodeTest, bool) {
	p, ok := e.(*pathExpr)
	if !ok || p.start != nil || p.abs || len(p.steps) != 1 {
		return nodeTest{}, false
	}
	s := p.steps[0]
	if s.axis != axAttribute || len(s.preds) > 0 || s.test.kind == testNode {
		return nodeTest{}, false
	}
	return s.test, true
}

// optimizePredicate replaces the predicate forms attrCmpExpr and attrExistsExpr cover.
func optimizePredicate(e expr) expr {
	switch c := e.(type) {
	case *cmpExpr:
		if c.op != "=" && c.op != "!=" {
			return e
		}
		l, r := c.l, c.r
		if _, ok := l.(*stringExpr); ok {
			l, r = r, l
		}
		lit, ok := r.(*stringExpr)
		if t, isAttr := attrStep(l); ok && isAttr {
			return &attrCmpExpr{test: t, val: lit.v, neq: c.op == "!="}
		}
	case *pathExpr:
		if t, ok := attrStep(c); ok {
			return &attrExistsExpr{test: t}
		}
	case *andExpr:
		c.l, c.r = optimizePredicate(c.l), optimizePredicate(c.r)
	case *orExpr:
		c.l, c.r = optimizePredicate(c.l), optimizePredicate(c.r)
	}
	return e
}

// nextVisible returns the node after n in document order within root's subtree,
// skipping the subtrees of hidden nodes, or nil.
func nextVisible(m Model, n, root *html.Node) *html.Node {
	if n.FirstChild != nil && (n == root || m.Kind(n) != KindNone) {
		return n.FirstChild
	}
	for n != root {
		if n.NextSibling != nil {
			return n.NextSibling
		}
		n = n.Parent
	}
	return nil
}
