package xpath1

import (
	"errors"
	"fmt"
)

// The reasons an expression fails to compile or evaluate, wrapped by *Error. Their texts
// are libxml2's (lxml's XPathSyntaxError and XPathEvalError messages), which parsel's
// tests match, hence the capitals.
var (
	ErrInvalidExpression = errors.New("Invalid expression")          //nolint:staticcheck // lxml's text
	ErrInvalidPredicate  = errors.New("Invalid predicate")           //nolint:staticcheck // lxml's text
	ErrUnfinishedLiteral = errors.New("Unfinished literal")          //nolint:staticcheck // lxml's text
	ErrUndefinedPrefix   = errors.New("Undefined namespace prefix")  //nolint:staticcheck // lxml's text
	ErrUnknownFunction   = errors.New("Unregistered function")       //nolint:staticcheck // lxml's text
	ErrArity             = errors.New("Invalid number of arguments") //nolint:staticcheck // lxml's text
	ErrUndefinedVariable = errors.New("Undefined variable")          //nolint:staticcheck // lxml's text
	ErrInvalidType       = errors.New("Invalid type")                //nolint:staticcheck // lxml's text
	// ErrTooDeep is wrapped when an expression nests deeper than the parser allows
	// (1000 levels of parentheses, predicates, arguments or unary minus).
	ErrTooDeep = errors.New("Expression too deep") //nolint:staticcheck // as the other reasons
	// ErrNoContext is returned by Evaluate for a context node without a tree node.
	ErrNoContext = errors.New("no context node")
	// ErrBudget is wrapped when an evaluation runs out of its Env.MaxSteps.
	ErrBudget = errors.New("evaluation step budget exhausted")
)

// Error is a compile or evaluation error of an expression: which expression, where (a
// byte offset into it; -1 when the failure has no place, as an evaluation error) and why
// (Err: one of the Err* values above, an extension function's error, or Env.Check's).
//
// Error() reads "<reason> in <expr> at offset <n>"; the selector builds parsel's
// "XPath error: <reason> in <expr>" from Err and Expr.
type Error struct {
	Expr string
	Pos  int
	Err  error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Pos < 0 {
		return fmt.Sprintf("%v in %s", e.Err, e.Expr)
	}
	return fmt.Sprintf("%v in %s at offset %d", e.Err, e.Expr, e.Pos)
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

func newError(expr string, pos int, err error) *Error { return &Error{Expr: expr, Pos: pos, Err: err} }
