package apidocs

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// writeCSVTable writes a list of items (any slice of structs) as RFC 4180 CSV: a header row,
// then one row per item. Nested structs are flattened into columns named after their JSON
// path joined by "_" (period_startTime), unless a field's `csv` tag names its column
// (csv:"energy"); a map of numbers becomes one column per key, named after the field and the
// key (energy_HC, cost_HP), the keys of every item making the header. Times keep their UTC
// offset (RFC 3339, as in JSON), numbers are written with a decimal point and no exponent,
// absent values (nil pointers, missing keys) are empty cells, lists of strings are joined by
// ";", and anything else is written as its JSON text.
func writeCSVTable(w io.Writer, items any) error {
	v := reflect.ValueOf(items)
	if v.Kind() != reflect.Slice {
		return fmt.Errorf("CSV needs a list of items, not %T", items)
	}
	layout := csvLayoutOf(v.Type().Elem())
	rows := make([]map[string]string, v.Len())
	keys := map[int]map[string]bool{} // column index → map keys seen
	for i := range rows {
		rows[i] = map[string]string{}
		layout.cells(v.Index(i), rows[i], keys)
	}
	var header []string
	for i, c := range layout.columns {
		if !c.isMap {
			header = append(header, c.name)
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(keys[i])) {
			header = append(header, c.name+"_"+k)
		}
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true // RFC 4180 line breaks
	if err := cw.Write(header); err != nil {
		return err
	}
	record := make([]string, len(header))
	for _, r := range rows {
		for i, name := range header {
			record[i] = r[name]
		}
		if err := cw.Write(record); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvColumn is a leaf of an item type: the field path to reach it and its column name.
type csvColumn struct {
	name  string
	path  []int // field indexes from the item
	isMap bool  // one column per key
}

// csvLayout is the columns of an item type, in field order.
type csvLayout struct{ columns []csvColumn }

func csvLayoutOf(t reflect.Type) csvLayout {
	var l csvLayout
	l.walk(t, nil, "")
	return l
}

var timeType = reflect.TypeFor[time.Time]()

// walk adds the columns of struct type t reached through path, named under prefix.
func (l *csvLayout) walk(t reflect.Type, path []int, prefix string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if prefix != "" {
			name = prefix + "_" + name
		}
		if tag := f.Tag.Get("csv"); tag != "" {
			name = tag
		}
		p := append(slices.Clip(path), i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && ft != timeType:
			l.walk(ft, p, name)
		case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && isScalar(ft.Elem()):
			l.columns = append(l.columns, csvColumn{name: name, path: p, isMap: true})
		default:
			l.columns = append(l.columns, csvColumn{name: name, path: p})
		}
	}
}

func isScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// cells fills row with the item's cells by column name; keys collects the map keys met.
func (l *csvLayout) cells(item reflect.Value, row map[string]string, keys map[int]map[string]bool) {
	for i, c := range l.columns {
		v, ok := field(item, c.path)
		if !ok {
			continue
		}
		if !c.isMap {
			row[c.name] = csvCell(v)
			continue
		}
		if keys[i] == nil {
			keys[i] = map[string]bool{}
		}
		for _, k := range v.MapKeys() {
			keys[i][k.String()] = true
			row[c.name+"_"+k.String()] = csvCell(v.MapIndex(k))
		}
	}
}

// field follows path from v through pointers; false when a nil pointer is on the way.
func field(v reflect.Value, path []int) (reflect.Value, bool) {
	for _, i := range path {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, false
		}
		v = v.Elem()
	}
	return v, true
}

// csvCell writes one value as its cell.
func csvCell(v reflect.Value) string {
	if v.Type() == timeType {
		return v.Interface().(time.Time).Format(time.RFC3339Nano)
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, v.Type().Bits())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			parts := make([]string, v.Len())
			for i := range parts {
				parts[i] = v.Index(i).String()
			}
			return strings.Join(parts, ";")
		}
	}
	b, _ := json.Marshal(v.Interface())
	return string(b)
}
