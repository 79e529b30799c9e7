package main

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"energy/bench"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
)

// energyRow is one number of an answer: the energy (Wh) of one series over one step.
type energyRow struct {
	key  string // the answer's text columns and the value's column name: "1/wh" (dial 1), "B0007/2/wh", "hc"
	step int64  // Unix seconds of the step's first instant
	wh   float64
}

// energyTolerance is the largest difference (Wh) still counted as the same number: the API
// rounds energies to 0.001 Wh.
const energyTolerance = 0.0006

// sameEnergies reports the first difference between two answers, or nil when they hold the same
// energies. Zero energies are dropped first: a heading absent from a JSON answer is 0.
func sameEnergies(a, b []energyRow) error {
	a, b = nonZeroSorted(a), nonZeroSorted(b)
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		if x.key != y.key || x.step != y.step {
			return fmt.Errorf("step %s of %s against step %s of %s", stepTime(x.step), x.key, stepTime(y.step), y.key)
		}
		if math.Abs(x.wh-y.wh) > energyTolerance {
			return fmt.Errorf("%s at %s: %.3f Wh against %.3f Wh", x.key, stepTime(x.step), x.wh, y.wh)
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("%d energies against %d", len(a), len(b))
	}
	return nil
}

func nonZeroSorted(rows []energyRow) []energyRow {
	out := make([]energyRow, 0, len(rows))
	for _, r := range rows {
		if math.Abs(r.wh) > energyTolerance {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y energyRow) int {
		if c := strings.Compare(x.key, y.key); c != 0 {
			return c
		}
		return int(x.step - y.step)
	})
	return out
}

func stepTime(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

// pgEnergies reads a PostgreSQL answer whose columns are texts (keys), one bigint step (Unix
// seconds) named step, and float8 energies.
func pgEnergies(rows pgx.Rows) ([]energyRow, error) {
	defer rows.Close()
	fields := rows.FieldDescriptions()
	var out []energyRow
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		var keys []string
		var step int64
		var whs []energyRow
		for i, v := range vals {
			switch v := v.(type) {
			case string:
				keys = append(keys, v)
			case int64:
				step = v
			case float64:
				whs = append(whs, energyRow{key: fields[i].Name, wh: v})
			default:
				return nil, fmt.Errorf("column %s: unexpected %T", fields[i].Name, v)
			}
		}
		out = appendEnergies(out, keys, step, whs)
	}
	return out, rows.Err()
}

// chEnergies reads a ClickHouse answer whose columns are Strings (keys), one Date or DateTime
// step, and numeric energies. A Date step is a local calendar day: it starts at local midnight.
func chEnergies(rows driver.Rows, loc *time.Location) ([]energyRow, error) {
	defer rows.Close()
	types := rows.ColumnTypes()
	dest := make([]any, len(types))
	for i, t := range types {
		dest[i] = reflect.New(t.ScanType()).Interface()
	}
	var out []energyRow
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		var keys []string
		var step int64
		var whs []energyRow
		for i, d := range dest {
			switch v := reflect.ValueOf(d).Elem().Interface().(type) {
			case string:
				keys = append(keys, v)
			case time.Time:
				if types[i].DatabaseTypeName() == "Date" {
					v = time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, loc)
				}
				step = v.Unix()
			case int64:
				whs = append(whs, energyRow{key: types[i].Name(), wh: float64(v)})
			case float64:
				whs = append(whs, energyRow{key: types[i].Name(), wh: v})
			default:
				return nil, fmt.Errorf("column %s: unexpected %T", types[i].Name(), v)
			}
		}
		out = appendEnergies(out, keys, step, whs)
	}
	return out, rows.Err()
}

func appendEnergies(out []energyRow, keys []string, step int64, whs []energyRow) []energyRow {
	prefix := strings.Join(keys, "/")
	for _, w := range whs {
		if prefix != "" {
			w.key = prefix + "/" + w.key
		}
		w.step = step
		out = append(out, w)
	}
	return out
}

// energydEnergies reads a consumption answer in the shape of the direct SQL: per dial and step
// for index answers ("1/wh", dial from the tariff's heading), total and HC per step for
// load-curve answers ("wh", "hc").
func energydEnergies(body []byte, fromLoadCurve bool, dialOfHeading map[string]string) ([]energyRow, error) {
	var answer struct {
		Consumptions []struct {
			Period      struct{ StartTime time.Time } `json:"period"`
			EnergyMeter struct {
				Total           *float64           `json:"total"`
				ByTariffHeading map[string]float64 `json:"byTariffHeading"`
			} `json:"energyMeter"`
		} `json:"consumptions"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, err
	}
	var out []energyRow
	for _, c := range answer.Consumptions {
		step := c.Period.StartTime.Unix()
		if fromLoadCurve {
			if c.EnergyMeter.Total != nil {
				out = append(out, energyRow{key: "wh", step: step, wh: *c.EnergyMeter.Total})
			}
			out = append(out, energyRow{key: "hc", step: step, wh: c.EnergyMeter.ByTariffHeading["HC"]})
			continue
		}
		for heading, wh := range c.EnergyMeter.ByTariffHeading {
			dial, ok := dialOfHeading[heading]
			if !ok {
				return nil, fmt.Errorf("heading %s has no dial in the tariff", heading)
			}
			out = append(out, energyRow{key: dial + "/wh", step: step, wh: wh})
		}
	}
	return out, nil
}

// benchDialOfHeading inverts the benchmark tariff's dial → heading map.
func benchDialOfHeading(year int) map[string]string {
	m := map[string]string{}
	for dial, heading := range bench.Tariff(year).DialHeadings {
		m[heading] = dial
	}
	return m
}
