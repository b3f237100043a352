package xpath1

// This file is the recursive-descent parser: the tokens of lex.go into the expression tree
// of ast.go.

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
