package chtest

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// bindPositional writes the arguments into the SQL text at each '?' outside string literals,
// so that a recorded query can be replayed as text on another engine. It knows the argument
// kinds this project binds (strings, numbers, booleans, times, slices of them, sets for IN).
func bindPositional(sql string, args []any) (string, error) {
	var b strings.Builder
	quote := byte(0)
	n := 0
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(sql) {
				b.WriteByte(c)
				i++
				c = sql[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '`' || c == '"':
			quote = c
		case c == '?':
			if n >= len(args) {
				return "", fmt.Errorf("more '?' than the %d arguments", len(args))
			}
			lit, err := literal(args[n])
			if err != nil {
				return "", fmt.Errorf("argument %d: %w", n+1, err)
			}
			n++
			b.WriteString(lit)
			continue
		}
		b.WriteByte(c)
	}
	if n != len(args) {
		return "", fmt.Errorf("%d arguments for %d '?'", len(args), n)
	}
	return b.String(), nil
}

func literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return quoteString(x), nil
	case []byte:
		return quoteString(string(x)), nil
	case bool:
		if x {
			return "1", nil
		}
		return "0", nil
	case time.Time:
		loc := x.Location().String()
		if loc == "Local" {
			x, loc = x.UTC(), "UTC"
		}
		return fmt.Sprintf("toDateTime(%s, %s)", quoteString(x.Format(time.DateTime)), quoteString(loc)), nil
	case clickhouse.GroupSet: // x IN ?: a parenthesised list, as clickhouse-go writes it
		parts := make([]string, len(x.Value))
		for i, e := range x.Value {
			p, err := literal(e)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return "(" + strings.Join(parts, ", ") + ")", nil
	case float32:
		return floatLiteral(float64(x)), nil
	case float64:
		return floatLiteral(x), nil
	case fmt.Stringer:
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Slice && rv.Kind() != reflect.Pointer {
			return quoteString(x.String()), nil
		}
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.String:
		return quoteString(rv.String()), nil
	case reflect.Pointer:
		if rv.IsNil() {
			return "NULL", nil
		}
		return literal(rv.Elem().Interface())
	case reflect.Slice, reflect.Array:
		parts := make([]string, rv.Len())
		for i := range parts {
			p, err := literal(rv.Index(i).Interface())
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("cannot write a %T as SQL text", v)
}

func floatLiteral(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func quoteString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}
