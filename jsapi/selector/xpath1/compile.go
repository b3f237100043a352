package xpath1

// This file is the package's entry point: Compile, the static context it takes (Options,
// extension Functions) and the compiled Expr.

import (
	"fmt"
)

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
