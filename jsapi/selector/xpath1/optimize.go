package xpath1

// This file analyses and rewrites a parsed expression tree: which predicates depend on the
// position, the fusion of "//" with the next step, and the fast forms of attribute predicates.

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
