package xpath1

// This file holds the expression tree that the parser builds: the axes, the node tests and
// one type for each kind of expression, each of which evaluates itself (operators.go,
// paths.go, eval.go for calls, optimize.go for the rewritten forms).

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

// An expression tree node. Each kind evaluates itself.
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
