package xpath1

import (
	"fmt"
)

// axis is one of the 13 axes (XPath 1.0 §2.2).
type axis uint8

const (
	axChild axis = iota
	axDescendant
	axParent
	axAncestor
	axFollowingSibling
	axPrecedingSibling
	axFollowing
	axPreceding
	axAttribute
	axNamespace
	axSelf
	axDescendantOrSelf
	axAncestorOrSelf
	// axDescendantAttr is not XPath's: the attributes of the context node and of its
	// descendants, for descendant-or-self::node()/attribute::T without positional
	// predicates ("//@href"), in one walk.
	axDescendantAttr
)

var axisByName = map[string]axis{
	"child": axChild, "descendant": axDescendant, "parent": axParent, "ancestor": axAncestor,
	"following-sibling": axFollowingSibling, "preceding-sibling": axPrecedingSibling,
	"following": axFollowing, "preceding": axPreceding, "attribute": axAttribute,
	"namespace": axNamespace, "self": axSelf, "descendant-or-self": axDescendantOrSelf,
	"ancestor-or-self": axAncestorOrSelf,
}

// reverse reports whether the axis is a reverse axis, whose proximity positions count
// from the context node backwards in document order.
func (a axis) reverse() bool {
	switch a {
	case axParent, axAncestor, axAncestorOrSelf, axPreceding, axPrecedingSibling:
		return true
	}
	return false
}

// testKind is the kind of a node test.
type testKind uint8

const (
	testName    testKind = iota // QName or NCName
	testAny                     // *
	testNSAny                   // prefix:*
	testNode                    // node()
	testText                    // text()
	testComment                 // comment()
	testPI                      // processing-instruction() or processing-instruction('t')
)

type nodeTest struct {
	kind       testKind
	local, uri string // testName: the expanded name; testNSAny: uri; testPI: the target
}

// An expression tree node. Each kind evaluates itself (eval.go).
type expr interface {
	eval(ev *evaluator, f focus) Value
}

type (
	numberExpr struct{ v float64 }
	stringExpr struct{ v string }
	varExpr    struct{ name string }
	orExpr     struct{ l, r expr }
	andExpr    struct{ l, r expr }
	negExpr    struct{ e expr }
	unionExpr  struct{ l, r expr }
	// cmpExpr is = != < <= > >=.
	cmpExpr struct {
		op   string
		l, r expr
	}
	// arithExpr is + - * div mod.
	arithExpr struct {
		op   byte
		l, r expr
	}
	callExpr struct {
		name string
		fn   *builtin // a core function, or nil
		ext  Function // an extension function (when fn is nil)
		args []expr
	}
	// filterExpr is a primary expression with predicates (§3.3).
	filterExpr struct {
		prim  expr
		preds []*predicate
	}
	// pathExpr is a location path, absolute or relative, or a filter expression followed
	// by a relative location path (start != nil).
	pathExpr struct {
		start expr
		abs   bool
		steps []*step
	}
	step struct {
		axis  axis
		test  nodeTest
		preds []*predicate
	}
	predicate struct {
		e expr
		// positional: the predicate depends on the proximity position (a number, or a
		// call of position() or last(), or of unknown type).
		positional bool
		// index > 0: the predicate is the number literal index.
		index int
	}
)

// parser is a recursive-descent parser of the XPath 1.0 grammar (§3), with the
// precedence of or < and < equality < relational < additive < multiplicative < unary <
// union.
type parser struct {
	src   string
	toks  []token
	i     int
	opts  *Options
	ns    map[string]string
	depth int // nesting of expressions, bounded by maxDepth
}

// maxDepth bounds the nesting of parentheses, predicates, arguments and unary minus, so
// that a hostile expression cannot exhaust the stack.
const maxDepth = 1000

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF && t.kind != tErr {
		p.i++
	}
	return t
}

func (p *parser) isOp(v string) bool {
	t := p.toks[p.i]
	return t.kind == tOp && t.val == v
}

func (p *parser) fail(pos int, err error) {
	if t := p.peek(); t.kind == tErr && pos >= t.pos {
		err, pos = t.err, t.pos // failing on the lexer's error: report that
	}
	panic(newError(p.src, pos, err))
}

func (p *parser) expect(v string, err error) {
	if !p.isOp(v) {
		p.fail(p.peek().pos, err)
	}
	p.next()
}

func (p *parser) resolve(prefix string, pos int) string {
	if prefix == "" {
		return ""
	}
	if uri, ok := p.ns[prefix]; ok {
		return uri
	}
	p.fail(pos, ErrUndefinedPrefix)
	return ""
}

func (p *parser) parseExpr() expr {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.peek().pos, ErrTooDeep)
	}
	e := p.parseOr()
	p.depth--
	return e
}

func (p *parser) parseOr() expr {
	l := p.parseAnd()
	for p.isOp("or") {
		p.next()
		l = &orExpr{l, p.parseAnd()}
	}
	return l
}

func (p *parser) parseAnd() expr {
	l := p.parseEquality()
	for p.isOp("and") {
		p.next()
		l = &andExpr{l, p.parseEquality()}
	}
	return l
}

func (p *parser) parseEquality() expr {
	l := p.parseRelational()
	for p.isOp("=") || p.isOp("!=") {
		op := p.next().val
		l = &cmpExpr{op, l, p.parseRelational()}
	}
	return l
}

func (p *parser) parseRelational() expr {
	l := p.parseAdditive()
	for p.isOp("<") || p.isOp("<=") || p.isOp(">") || p.isOp(">=") {
		op := p.next().val
		l = &cmpExpr{op, l, p.parseAdditive()}
	}
	return l
}

func (p *parser) parseAdditive() expr {
	l := p.parseMultiplicative()
	for p.isOp("+") || p.isOp("-") {
		op := p.next().val
		l = &arithExpr{op[0], l, p.parseMultiplicative()}
	}
	return l
}

func (p *parser) parseMultiplicative() expr {
	l := p.parseUnary()
	for p.isOp("*") || p.isOp("div") || p.isOp("mod") {
		op := p.next().val
		l = &arithExpr{op[0], l, p.parseUnary()}
	}
	return l
}

func (p *parser) parseUnary() expr {
	if p.isOp("-") {
		p.next()
		p.depth++
		if p.depth > maxDepth {
			p.fail(p.peek().pos, ErrTooDeep)
		}
		e := &negExpr{p.parseUnary()}
		p.depth--
		return e
	}
	return p.parseUnion()
}

func (p *parser) parseUnion() expr {
	l := p.parsePath()
	for p.isOp("|") {
		p.next()
		l = &unionExpr{l, p.parsePath()}
	}
	return l
}

// startsStep reports whether the current token can begin a location step.
func (p *parser) startsStep() bool {
	t := p.peek()
	switch t.kind {
	case tName, tStar, tAxis, tNodeType:
		return true
	case tOp:
		return t.val == "." || t.val == ".." || t.val == "@"
	}
	return false
}

func (p *parser) parsePath() expr {
	t := p.peek()
	switch {
	case t.kind == tVar || t.kind == tLiteral || t.kind == tNumber || t.kind == tFunc || t.kind == tOp && t.val == "(":
		var e expr = p.parseFilter()
		if p.isOp("/") || p.isOp("//") {
			path := &pathExpr{start: e}
			p.parseRelative(path)
			return path
		}
		return e
	case t.kind == tOp && t.val == "/":
		p.next()
		path := &pathExpr{abs: true}
		if p.startsStep() {
			p.parseSteps(path)
		}
		return path
	case t.kind == tOp && t.val == "//":
		path := &pathExpr{abs: true}
		p.parseRelative(path)
		return path
	case p.startsStep():
		path := &pathExpr{}
		p.parseSteps(path)
		return path
	}
	p.fail(t.pos, ErrInvalidExpression)
	return nil
}

var descendantOrSelfNode = &step{axis: axDescendantOrSelf, test: nodeTest{kind: testNode}}

// parseRelative parses ("/" | "//") RelativeLocationPath after a filter expression or as
// an absolute path starting with "//".
func (p *parser) parseRelative(path *pathExpr) {
	if p.isOp("//") {
		p.next()
		path.steps = append(path.steps, descendantOrSelfNode)
	} else {
		p.expect("/", ErrInvalidExpression)
	}
	p.parseSteps(path)
}

// parseSteps parses Step (("/" | "//") Step)*.
func (p *parser) parseSteps(path *pathExpr) {
	for {
		path.steps = append(path.steps, p.parseStep())
		switch {
		case p.isOp("/"):
			p.next()
		case p.isOp("//"):
			p.next()
			path.steps = append(path.steps, descendantOrSelfNode)
		default:
			return
		}
	}
}

func (p *parser) parseStep() *step {
	t := p.peek()
	switch {
	case t.kind == tOp && t.val == ".":
		p.next()
		return &step{axis: axSelf, test: nodeTest{kind: testNode}}
	case t.kind == tOp && t.val == "..":
		p.next()
		return &step{axis: axParent, test: nodeTest{kind: testNode}}
	}
	s := &step{axis: axChild}
	switch {
	case t.kind == tOp && t.val == "@":
		p.next()
		s.axis = axAttribute
	case t.kind == tAxis:
		p.next()
		a, ok := axisByName[t.val]
		if !ok {
			p.fail(t.pos, ErrInvalidExpression)
		}
		s.axis = a
		p.expect("::", ErrInvalidExpression)
	}
	s.test = p.parseNodeTest()
	for p.isOp("[") {
		s.preds = append(s.preds, p.parsePredicate())
	}
	return s
}

func (p *parser) parseNodeTest() nodeTest {
	t := p.next()
	switch t.kind {
	case tStar:
		return nodeTest{kind: testAny}
	case tName:
		if t.val == "*" {
			return nodeTest{kind: testNSAny, uri: p.resolve(t.prefix, t.pos)}
		}
		return nodeTest{kind: testName, local: t.val, uri: p.resolve(t.prefix, t.pos)}
	case tNodeType:
		p.expect("(", ErrInvalidExpression)
		var nt nodeTest
		switch t.val {
		case "node":
			nt.kind = testNode
		case "text":
			nt.kind = testText
		case "comment":
			nt.kind = testComment
		default:
			nt.kind = testPI
			if lit := p.peek(); lit.kind == tLiteral {
				p.next()
				nt.local = lit.val
			}
		}
		p.expect(")", ErrInvalidExpression)
		return nt
	}
	p.fail(t.pos, ErrInvalidExpression)
	return nodeTest{}
}

func (p *parser) parsePredicate() *predicate {
	p.expect("[", ErrInvalidPredicate)
	e := p.parseExpr()
	p.expect("]", ErrInvalidPredicate)
	pr := &predicate{e: e, positional: positional(e)}
	if n, ok := e.(*numberExpr); ok && n.v >= 1 && n.v == float64(int(n.v)) {
		pr.index = int(n.v)
	}
	return pr
}

func (p *parser) parseFilter() expr {
	prim := p.parsePrimary()
	if !p.isOp("[") {
		return prim
	}
	f := &filterExpr{prim: prim}
	for p.isOp("[") {
		f.preds = append(f.preds, p.parsePredicate())
	}
	return f
}

func (p *parser) parsePrimary() expr {
	t := p.next()
	switch t.kind {
	case tVar:
		name := t.val
		if t.prefix != "" {
			p.resolve(t.prefix, t.pos)
			name = t.prefix + ":" + t.val
		}
		return &varExpr{name}
	case tLiteral:
		return &stringExpr{t.val}
	case tNumber:
		return &numberExpr{t.num}
	case tOp:
		if t.val == "(" {
			e := p.parseExpr()
			p.expect(")", ErrInvalidExpression)
			return e
		}
	case tFunc:
		return p.parseCall(t)
	}
	p.fail(t.pos, ErrInvalidExpression)
	return nil
}

func (p *parser) parseCall(t token) expr {
	p.expect("(", ErrInvalidExpression)
	var args []expr
	if !p.isOp(")") {
		for {
			args = append(args, p.parseExpr())
			if !p.isOp(",") {
				break
			}
			p.next()
		}
	}
	p.expect(")", ErrInvalidExpression)
	c := &callExpr{name: t.val, args: args}
	uri := p.resolve(t.prefix, t.pos)
	if t.prefix != "" {
		c.name = t.prefix + ":" + t.val
	}
	if p.opts != nil && p.opts.Functions != nil {
		if f, ok := p.opts.Functions[QName{uri, t.val}]; ok {
			c.ext = f
			return c
		}
	}
	if uri == "" {
		if b, ok := builtins[t.val]; ok {
			if len(args) < b.min || b.max >= 0 && len(args) > b.max {
				p.fail(t.pos, ErrArity)
			}
			c.fn = b
			return c
		}
	}
	p.fail(t.pos, ErrUnknownFunction)
	return nil
}

// positional reports whether a predicate's value can depend on the proximity position
// or is a number (so the predicate compares it with the position).
func positional(e expr) bool {
	switch e := e.(type) {
	case *numberExpr, *arithExpr, *negExpr, *varExpr:
		return true
	case *stringExpr:
		return false
	case *orExpr:
		return positional(e.l) || positional(e.r)
	case *andExpr:
		return positional(e.l) || positional(e.r)
	case *cmpExpr:
		return usesPosition(e.l) || usesPosition(e.r)
	case *callExpr:
		if e.fn == nil && e.ext.Result != TypeBoolean && e.ext.Result != TypeString && e.ext.Result != TypeNodeSet ||
			e.fn != nil && e.fn.ret == TypeNumber {
			return true
		}
		return usesPosition(e)
	case *pathExpr, *unionExpr, *filterExpr:
		return usesPosition(e)
	}
	return true
}

// usesPosition reports whether e calls position() or last() for the current focus
// (calls inside nested predicates have a focus of their own but are counted, which only
// costs an optimisation).
func usesPosition(e expr) bool {
	switch e := e.(type) {
	case *callExpr:
		if e.fn == nil && e.ext.Result == TypeAny || e.fn != nil && (e.name == "position" || e.name == "last") {
			return true
		}
		for _, a := range e.args {
			if usesPosition(a) {
				return true
			}
		}
		return false
	case *orExpr:
		return usesPosition(e.l) || usesPosition(e.r)
	case *andExpr:
		return usesPosition(e.l) || usesPosition(e.r)
	case *cmpExpr:
		return usesPosition(e.l) || usesPosition(e.r)
	case *arithExpr:
		return usesPosition(e.l) || usesPosition(e.r)
	case *negExpr:
		return usesPosition(e.e)
	case *unionExpr:
		return usesPosition(e.l) || usesPosition(e.r)
	case *filterExpr:
		return usesPosition(e.prim)
	case *pathExpr:
		return e.start != nil && usesPosition(e.start)
	}
	return false
}

// Options are the static context of a compilation.
type Options struct {
	// Namespaces binds the prefixes that name tests, variables and function names may use
	// (prefix → URI). The prefix xml is always bound to XMLNamespace.
	Namespaces map[string]string
	// Functions are the extension functions by expanded name. A name with an empty Space
	// is called without a prefix (parsel's has-class) and hides a core function of the
	// same name.
	Functions map[QName]Function
}

// Function is an extension function.
type Function struct {
	// Call computes the function's value.
	Call Func
	// Result is the type Call always returns, if it is one (TypeAny otherwise). Setting
	// it also promises that Call does not read Context.Position or Context.Size; a
	// function known not to return a number and not to read the position lets "//a[f()]"
	// run as one walk of the document instead of one child step per node.
	Result Type
}

// QName is an expanded name: a namespace URI and a local name.
type QName struct {
	Space, Local string
}

// String returns the name in James Clark's notation, "{uri}local", or local alone.
func (q QName) String() string {
	if q.Space == "" {
		return q.Local
	}
	return "{" + q.Space + "}" + q.Local
}

// Expr is a compiled XPath 1.0 expression. It is immutable, so one Expr may be evaluated
// by any number of goroutines at once.
type Expr struct {
	src string
	e   expr
}

// String returns the expression as it was given.
func (x *Expr) String() string { return x.src }

// Compile parses src as an XPath 1.0 expression with the prefixes and extension functions
// of opts (nil: none but xml and the core library). Errors are *Error wrapping one of the
// Err* reasons, with the offset where parsing failed.
func Compile(src string, opts *Options) (x *Expr, err error) {
	toks := lex(src)
	ns := map[string]string{"xml": XMLNamespace}
	if opts != nil {
		for k, v := range opts.Namespaces {
			ns[k] = v
		}
	}
	p := &parser{src: src, toks: toks, opts: opts, ns: ns}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			x, err = nil, e
		}
	}()
	if toks[0].kind == tEOF {
		p.fail(toks[0].pos, ErrInvalidExpression)
	}
	e := p.parseExpr()
	if t := p.peek(); t.kind != tEOF {
		p.fail(t.pos, ErrInvalidExpression)
	}
	return &Expr{src: src, e: optimize(e)}, nil
}

// MustCompile is Compile that panics on an error, for expressions fixed in the code.
func MustCompile(src string, opts *Options) *Expr {
	x, err := Compile(src, opts)
	if err != nil {
		panic(fmt.Sprintf("xpath1: %v", err))
	}
	return x
}

// optimize rewrites descendant-or-self::node()/child::T[P] as descendant::T[P] where no
// predicate is positional (so "//a[@href]" is one walk), and
// descendant-or-self::node()/attribute::T[P] likewise, throughout the tree.
func optimize(e expr) expr {
	switch e := e.(type) {
	case *pathExpr:
		if e.start != nil {
			e.start = optimize(e.start)
		}
		var steps []*step
		for i := 0; i < len(e.steps); i++ {
			s := e.steps[i]
			for _, pr := range s.preds {
				pr.e = optimizePredicate(optimize(pr.e))
			}
			if s == descendantOrSelfNode && i+1 < len(e.steps) {
				n := e.steps[i+1]
				if (n.axis == axChild || n.axis == axAttribute) && !anyPositional(n.preds) {
					for _, pr := range n.preds {
						pr.e = optimizePredicate(optimize(pr.e))
					}
					ax := axDescendant
					if n.axis == axAttribute {
						ax = axDescendantAttr
					}
					steps = append(steps, &step{axis: ax, test: n.test, preds: n.preds})
					i++
					continue
				}
			}
			steps = append(steps, s)
		}
		e.steps = steps
	case *filterExpr:
		e.prim = optimize(e.prim)
		for _, pr := range e.preds {
			pr.e = optimizePredicate(optimize(pr.e))
		}
	case *orExpr:
		e.l, e.r = optimize(e.l), optimize(e.r)
	case *andExpr:
		e.l, e.r = optimize(e.l), optimize(e.r)
	case *cmpExpr:
		e.l, e.r = optimize(e.l), optimize(e.r)
	case *arithExpr:
		e.l, e.r = optimize(e.l), optimize(e.r)
	case *unionExpr:
		e.l, e.r = optimize(e.l), optimize(e.r)
	case *negExpr:
		e.e = optimize(e.e)
	case *callExpr:
		for i, a := range e.args {
			e.args[i] = optimize(a)
		}
	}
	return e
}

func anyPositional(ps []*predicate) bool {
	for _, p := range ps {
		if p.positional {
			return true
		}
	}
	return false
}
