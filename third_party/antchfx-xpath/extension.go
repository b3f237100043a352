package xpath

// This file is jscrawl's patch to github.com/antchfx/xpath v1.3.9 (see PATCH.md): XPath
// extension functions, which lxml registers with FunctionNamespace and parsel uses for
// has-class() and the EXSLT functions.

import (
	"errors"
	"fmt"
)

// Function is an XPath extension function. ctx is the context node (do not move it; Copy
// it first). Each argument is evaluated in that context and given as a string, a float64,
// a bool, or a []NodeNavigator for a node-set (copies, in the order the library gives
// them). The result must be a string, a float64, a bool or a []NodeNavigator (a node-set);
// an error stops the evaluation with a panic that Evaluate and Select report.
type Function func(ctx NodeNavigator, args []interface{}) (interface{}, error)

// CompileWithFunctions compiles expr as CompileWithNS does, with extension functions.
// funcs maps a function name to its implementation: "name" for an unprefixed call, or
// "{uri}name" for a call prefix:name whose prefix namespaces binds to uri. Calls to an
// extension function take precedence over built-in functions of the same name.
func CompileWithFunctions(expr string, namespaces map[string]string, funcs map[string]Function) (*Expr, error) {
	if expr == "" {
		return nil, errors.New("expr expression is nil")
	}
	qy, err := build(expr, namespaces, funcs)
	if err != nil {
		return nil, err
	}
	if qy == nil {
		return nil, fmt.Errorf("undeclared variable in XPath expression: %s", expr)
	}
	return &Expr{s: expr, q: qy}, nil
}

// processExtension builds a call to an extension function; ok is false when root names
// none.
func (b *builder) processExtension(root *functionNode, props *builderProp) (q query, ok bool, err error) {
	name := root.FuncName
	if root.Prefix != "" {
		uri, bound := b.namespaces[root.Prefix]
		if !bound {
			if len(b.funcs) == 0 {
				return nil, false, nil // the library's behaviour: the prefix is ignored
			}
			return nil, false, fmt.Errorf("undefined namespace prefix %q in %s:%s()", root.Prefix, root.Prefix, root.FuncName)
		}
		name = "{" + uri + "}" + name
	}
	fn, found := b.funcs[name]
	if !found {
		if root.Prefix != "" && len(b.funcs) > 0 {
			return nil, false, fmt.Errorf("unregistered function %s:%s()", root.Prefix, root.FuncName)
		}
		return nil, false, nil
	}
	args := make([]query, len(root.Args))
	for i, a := range root.Args {
		if args[i], err = b.processNode(a, flagsEnum.None, props); err != nil {
			return nil, true, err
		}
	}
	*props = builderProps.None
	return &extensionQuery{name: root.FuncName, args: args, fn: fn}, true, nil
}

// extensionQuery calls an extension function. A node-set result is kept and given node by
// node to Select.
type extensionQuery struct {
	name  string
	args  []query
	fn    Function
	nodes []NodeNavigator
	pos   int
	done  bool // nodes holds the result of the current evaluation
}

func (e *extensionQuery) call(t iterator) interface{} {
	vals := make([]interface{}, len(e.args))
	for i, a := range e.args {
		switch v := functionArgs(a).Evaluate(t).(type) {
		case query:
			var nodes []NodeNavigator
			for n := v.Select(t); n != nil; n = v.Select(t) {
				nodes = append(nodes, n.Copy())
			}
			vals[i] = nodes
		default:
			vals[i] = v
		}
	}
	res, err := e.fn(t.Current().Copy(), vals)
	if err != nil {
		panic(fmt.Errorf("%s(): %w", e.name, err))
	}
	switch v := res.(type) {
	case string, float64, bool, []NodeNavigator:
		return v
	case int:
		return float64(v)
	default:
		panic(fmt.Errorf("%s(): unexpected result of type %T", e.name, res))
	}
}

// Evaluate returns the function's scalar result, or the query itself for a node-set.
func (e *extensionQuery) Evaluate(t iterator) interface{} {
	v := e.call(t)
	if nodes, ok := v.([]NodeNavigator); ok {
		e.nodes, e.pos, e.done = nodes, 0, true
		return e
	}
	return v
}

// Select gives the nodes of a node-set result one by one, then nil.
func (e *extensionQuery) Select(t iterator) NodeNavigator {
	if !e.done {
		v := e.call(t)
		nodes, _ := v.([]NodeNavigator)
		e.nodes, e.pos, e.done = nodes, 0, true
	}
	if e.pos < len(e.nodes) {
		n := e.nodes[e.pos]
		e.pos++
		return n
	}
	e.nodes, e.done = nil, false
	return nil
}

func (e *extensionQuery) Clone() query {
	args := make([]query, len(e.args))
	for i, a := range e.args {
		args[i] = a.Clone()
	}
	return &extensionQuery{name: e.name, args: args, fn: e.fn}
}

func (e *extensionQuery) ValueType() resultType { return xpathResultType.Any }

func (e *extensionQuery) Properties() queryProp { return queryProps.Merge }

// NamespaceNavigator is implemented by a NodeNavigator that has namespace nodes: the
// namespace:: axis asks it for the namespace nodes in scope of the current element. Each
// node's LocalName is the prefix ("" for the default namespace) and its Value the URI.
type NamespaceNavigator interface {
	Namespaces() []NodeNavigator
}

// namespaceQuery is the namespace:: axis: the namespace nodes of each input node whose
// prefix is name (any prefix for "*").
type namespaceQuery struct {
	Input query
	name  string
	any   bool
	nodes []NodeNavigator
	pos   int
}

func (q *namespaceQuery) Select(t iterator) NodeNavigator {
	for {
		if q.pos < len(q.nodes) {
			n := q.nodes[q.pos]
			q.pos++
			return n
		}
		node := q.Input.Select(t)
		if node == nil {
			q.nodes, q.pos = nil, 0
			return nil
		}
		q.nodes, q.pos = q.nodes[:0], 0
		if nn, ok := node.(NamespaceNavigator); ok {
			for _, ns := range nn.Namespaces() {
				if q.any || ns.LocalName() == q.name {
					q.nodes = append(q.nodes, ns)
				}
			}
		}
	}
}

func (q *namespaceQuery) Evaluate(t iterator) interface{} {
	q.Input.Evaluate(t)
	q.nodes, q.pos = nil, 0
	return q
}

func (q *namespaceQuery) Clone() query {
	return &namespaceQuery{Input: q.Input.Clone(), name: q.name, any: q.any}
}

func (q *namespaceQuery) ValueType() resultType { return xpathResultType.NodeSet }

func (q *namespaceQuery) Properties() queryProp { return queryProps.Merge }
