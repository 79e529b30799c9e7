package consumption

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

func TestFastJSONKnowsTheResultTypes(t *testing.T) {
	if got := resultShape(); got != knownResultShape {
		t.Fatalf("the consumption result types changed: EncodeJSON falls back to encoding/json (correct but slower) "+
			"until appendResult (cache_json.go) writes the new shape and knownResultShape is set to:\n%s", got)
	}
	if !fastJSON {
		t.Fatal("fast encoder disabled")
	}
}

// filler sets every exported field of a value, whatever the types become (so that a field the
// hand encoder does not know shows up as a difference), choosing among edge cases: nil and empty
// maps and slices, floats that encoding/json writes in exponent form, strings to escape, times
// with offsets and nanoseconds.
type filler struct {
	rng  *rand.Rand
	full bool // never nil pointers, maps or slices
}

var (
	fillFloats = []float64{0, math.Copysign(0, -1), 1, -2.5, 1500, 0.1034, -0.0583, 1.0 / 3, 0.1 + 0.2, 123456789.125, 1e-7, 2.5e-9, 1e21, 3.2e22,
		-4e-8, 0.000001, 0.0000015, 999999999999999999999, 99.99, 1234567.891, 0.064198, 4.05e11, 1e12, 2e15, 1e-6, 100.000001, 7.0 / 22}
	fillStrings = []string{"", "HC", "P1D", "MKT_SMART_DISTRIBUTOR", `a"b`, `back\slash`, "é", "<&>", "line\nbreak", "\u2028", "tab\t", "\x01", "bad\xffutf8"}
	fillZones   = []*time.Location{time.UTC, time.FixedZone("", 3600), time.FixedZone("", -5*3600-1800), time.FixedZone("LMT", 561), time.FixedZone("Z0", 0),
		parisLoc, mustLoadLocation("America/St_Johns"), mustLoadLocation("Australia/Lord_Howe")}
)

func mustLoadLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func (f *filler) fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if !f.full && f.rng.IntN(3) == 0 || depth > 6 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			t := time.Date(1890+f.rng.IntN(150), time.Month(1+f.rng.IntN(12)), 1+f.rng.IntN(28), f.rng.IntN(24), f.rng.IntN(60), f.rng.IntN(60), 0, fillZones[f.rng.IntN(len(fillZones))])
			if f.rng.IntN(4) == 0 {
				t = t.Add(time.Duration(f.rng.IntN(1e9)))
			}
			v.Set(reflect.ValueOf(t))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		n := f.rng.IntN(4)
		if !f.full && n == 0 {
			return // nil
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		n := f.rng.IntN(5)
		if !f.full && n == 0 {
			return // nil
		}
		m := reflect.MakeMap(v.Type())
		for range n {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k, depth+1)
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(fillStrings[f.rng.IntN(len(fillStrings))])
	case reflect.Float64, reflect.Float32:
		v.SetFloat(fillFloats[f.rng.IntN(len(fillFloats))])
	case reflect.Bool:
		v.SetBool(f.rng.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.rng.IntN(1000)) - 500)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.rng.IntN(1000)))
	}
}

func TestFastJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2024))
	check := func(name string, r *ConsumptionResult) {
		t.Helper()
		want, err := encodeJSONReflect(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendResult(nil, r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got = append(got, '\n'); !bytes.Equal(got, want) {
			t.Fatalf("%s: the hand encoder differs from encoding/json:\n got %s\nwant %s", name, got, want)
		}
		if enc, _ := EncodeJSON(r); !bytes.Equal(enc, want) {
			t.Fatalf("%s: EncodeJSON differs from encoding/json", name)
		}
	}
	check("zero", &ConsumptionResult{})
	check("empty consumptions", &ConsumptionResult{Consumptions: []Consumption{}})
	for _, f := range fillFloats {
		check("float", &ConsumptionResult{Consumptions: []Consumption{{Quality: f}}})
	}
	check("a year of hours", bigResult())
	// Consecutive items at the same instants in other zones, across DST changes and zone periods.
	var hops ConsumptionResult
	for k := range 200 {
		t := time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC).Add(time.Duration(k) * 47 * time.Minute)
		for _, loc := range fillZones {
			hops.Consumptions = append(hops.Consumptions, Consumption{Period: Period{t.In(loc), t.Add(time.Hour).In(loc)}})
		}
	}
	check("hops", &hops)
	for i := range 2000 {
		var r ConsumptionResult
		(&filler{rng: rng, full: i%3 == 0}).fill(reflect.ValueOf(&r).Elem(), 0)
		check("random", &r)
	}
}

func TestEncodeJSONRejectsNaN(t *testing.T) {
	nan := 0.0
	nan /= nan
	for name, c := range map[string]Consumption{
		"quality":    {Quality: nan},
		"cost total": {Cost: &Cost{Total: nan}, Quality: 100},
		"ratio":      {Ratios: &Ratios{ByTariffHeading: map[string]float64{"HC": nan}}},
	} {
		r := &ConsumptionResult{Consumptions: []Consumption{{Quality: 100}, c}}
		if _, err := EncodeJSON(r); err == nil {
			t.Errorf("%s: NaN encoded", name)
		}
		// The hand-written encoder refuses it itself (EncodeJSON then tries encoding/json).
		if b, err := appendResult(nil, r); !errors.Is(err, errNotFinite) || b != nil {
			t.Errorf("%s: appendResult gave %q, %v; want no bytes and errNotFinite", name, b, err)
		}
	}
}

// bigResult is a year of hours cut at the window: 1,200 items with costs, carbon and ratios.
func bigResult() *ConsumptionResult {
	loc, _ := time.LoadLocation("Europe/Paris")
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, loc)
	r := &ConsumptionResult{Period: Period{start, start.AddDate(1, 0, 0)}, Step: "PT1H", Units: Units{UnitCost, UnitEnergy, UnitCarbon}}
	for k := range MaxSteps {
		wh, kg := 1234.567+float64(k), 0.064198
		r.Consumptions = append(r.Consumptions, Consumption{
			Period:      Period{start.Add(time.Duration(k) * time.Hour), start.Add(time.Duration(k+1) * time.Hour)},
			EnergyMeter: EnergyMeter{Total: &wh, ByTariffHeading: map[string]float64{"HC": 234.567, "HP": 1000}},
			Cost: &Cost{Total: 0.3312, StandingCharge: 0.0196, StandingChargeByComponents: map[string]float64{"subscription": 0.0172, "cta": 0.0024},
				ByTariffHeading: map[string]float64{"HC": 0.0485, "HP": 0.27}},
			CarbonFootprint: &CarbonFootprint{Coefficient: 0.052, Total: &kg},
			Quality:         100, ErrorFlags: []string{}, IndexNatures: []string{}, Status: StatusComplete, Nature: NatureReal, UsingLoadCurve: true,
			Ratios: &Ratios{ByTariffHeading: map[string]float64{"HC": 0.19, "HP": 0.81}, ByTariffHeadingGroup: map[string]float64{"HC": 0.19, "HP": 0.81}},
		})
	}
	return r
}

func BenchmarkEncodeJSON(b *testing.B) {
	r := bigResult()
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			if _, err := EncodeJSON(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeJSONReflect(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// appendDecimal's single rounding at 6 decimals gives what trying each number of decimals
// gives, for the answers' rounded values and for any float.
func TestAppendDecimalOneRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2024))
	for i := range 300000 {
		var f float64
		switch i % 3 {
		case 0:
			f = roundTo((rng.Float64()-0.3)*math.Pow10(rng.IntN(13)-3), rng.IntN(7))
		case 1:
			f = float64(rng.Int64N(2e15)-1e15) / math.Pow10(rng.IntN(7))
		default:
			f = (rng.Float64() - 0.5) * math.Pow10(rng.IntN(20)-8)
		}
		got, ok := appendDecimal(nil, f)
		want, wantOK := appendDecimalEach(nil, f)
		if ok != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("%v: %q %v, want %q %v", f, got, ok, want, wantOK)
		}
	}
}
