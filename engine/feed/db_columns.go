package feed

// This file is the columns of a table feed: their kinds and SQL types, what an item value
// becomes in one, and the SQL statements built from them.

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Column kinds: how an item value is checked and converted for a column.
const (
	kindText    = "text"
	kindInteger = "integer"
	kindReal    = "real"
	kindBool    = "boolean"
	kindJSON    = "json"
)

// column is one column of a feed's table.
type column struct {
	name  string
	kind  string
	decl  string // the declared SQL type
	field string // the item's key
}

// inferColumn returns the column for the first value of a field.
func (t *table) inferColumn(name string, v any) column {
	kind := kindText
	switch jsType(v) {
	case "number":
		kind = kindReal
		switch v.(type) {
		case int, int64, int32, uint64, uint:
			// Go integers (not JS numbers, which are all float64 to a spider).
			kind = kindInteger
		}
	case "boolean":
		kind = kindBool
	case "object", "array":
		kind = kindJSON
	}
	c := column{name: name, kind: kind}
	c.decl = declFor(t.uri.scheme, kind)
	return c
}

// declFor is the SQL type of a kind.
func declFor(scheme, kind string) string {
	pg := scheme == "postgres"
	switch kind {
	case kindInteger:
		if pg {
			return "BIGINT"
		}
		return "INTEGER"
	case kindReal:
		if pg {
			return "DOUBLE PRECISION"
		}
		return "REAL"
	case kindBool:
		return "BOOLEAN"
	case kindJSON:
		if pg {
			return "JSONB"
		}
		return "TEXT" // JSON text: SQLite's json functions read it (a JSON type would have NUMERIC affinity)
	}
	return "TEXT"
}

// kindOf returns the kind of a declared SQL type.
func kindOf(decl string) string {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "JSON"):
		return kindJSON
	case strings.Contains(d, "BOOL"):
		return kindBool
	case strings.Contains(d, "INT") || strings.Contains(d, "SERIAL"):
		return kindInteger
	case strings.Contains(d, "REAL") || strings.Contains(d, "FLOA") || strings.Contains(d, "DOUB") ||
		strings.Contains(d, "NUMERIC") || strings.Contains(d, "DECIMAL"):
		return kindReal
	}
	return kindText
}

// jsType names v's type as JavaScript's typeof does, with null and array apart.
func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, int, int64, int32, uint64, uint, json.Number:
		return "number"
	case []any, []string:
		return "array"
	}
	return "object"
}

// ColumnError is the Export error of a table feed for an item with a value its column
// cannot take, such as a string for a REAL column. The feed goes on; the engine follows
// FEED_ERRORS (stop closes the spider, ignore leaves the item out of the table).
type ColumnError struct {
	Field  string // the item's key
	JSType string // the value's JS type: string, number, boolean, object or array
	Column string // the column, with its SQL type
	Table  string
}

// Rejected reports that the storage refused the item's value (see the engine's FEED_ERRORS).
func (e *ColumnError) Rejected() bool { return true }

// Error names the field, the value's JS type and the column.
func (e *ColumnError) Error() string {
	return fmt.Sprintf("field %q: a %s value cannot go into column %s of table %s", e.Field, e.JSType, e.Column, e.Table)
}

// convert returns v as the value of column c.
func (t *table) convert(c column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	fail := func() (any, error) {
		return nil, &ColumnError{Field: c.field, JSType: jsType(v), Column: c.name + " " + c.decl, Table: t.uri.table}
	}
	switch c.kind {
	case kindText:
		s, err := formatScalar(v)
		if err != nil {
			return fail()
		}
		return s, nil
	case kindJSON:
		b, err := appendJSON(nil, v)
		if err != nil {
			return fail()
		}
		return string(b), nil
	case kindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return fail()
	case kindReal, kindInteger:
		var f float64
		switch n := v.(type) {
		case float64:
			f = n
		case float32:
			f = float64(n)
		case int:
			f = float64(n)
		case int64:
			if c.kind == kindInteger {
				return n, nil
			}
			f = float64(n)
		case int32:
			f = float64(n)
		case json.Number:
			var err error
			if f, err = n.Float64(); err != nil {
				return fail()
			}
		default:
			return fail()
		}
		if c.kind == kindInteger {
			if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<63 {
				return fail()
			}
			return int64(f), nil
		}
		return f, nil
	}
	return fail()
}

// quoteIdent quotes a table or column name for SQL ("a.b" as a schema and a name).
func quoteIdent(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(parts, ".")
}

// quoteCol quotes a column name (dots included).
func quoteCol(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// createTableSQL is the CREATE TABLE IF NOT EXISTS statement of table with cols, as both
// drivers write it.
func createTableSQL(table string, cols []column) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (", quoteIdent(table))
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", quoteCol(c.name), c.decl)
	}
	return b.String() + ")"
}

// createIndexSQL is the CREATE UNIQUE INDEX IF NOT EXISTS statement of the index name on
// table's columns keys (an upsert key, which ON CONFLICT needs), as both drivers write it.
func createIndexSQL(name, table string, keys []string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = quoteCol(k)
	}
	return fmt.Sprintf("CREATE UNIQUE INDEX IF NOT EXISTS %s ON %s (%s)", quoteCol(name), quoteIdent(table), strings.Join(quoted, ", "))
}

// columnRows is what scanColumns reads of a query's rows: *sql.Rows and pgx.Rows both
// have it.
type columnRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanColumns returns the columns of a table from rows of (name, declared type), in the
// table's order; both drivers query their catalogue that way.
func scanColumns(rows columnRows) ([]column, error) {
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.decl); err != nil {
			return nil, err
		}
		c.kind = kindOf(c.decl)
		cols = append(cols, c)
	}
	return cols, rows.Err()
}
