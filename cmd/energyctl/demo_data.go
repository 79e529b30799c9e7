package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"energy/bench/synth"
	"energy/ingest"
)

// This file generates, without any I/O, deterministic years of readings for demo sites: a
// 30-minute load curve with daily and seasonal shape on synth's HPHC calendar (dial 1 = HC
// 22:00-06:00 local, dial 2 = HP), the daily smart indexes of its two dials, the daily max
// powers and, for gas-heated sites, gas indexes (monthly, daily for demo-site-2). Load-curve
// powers are even watts so that a point's energy (W × 0.5 h) is a whole number of Wh: a day's
// index increase equals its curve energy exactly.

// The gas of demo-site-2, the first gas-heated demo site, follows the heating model exactly so
// that its budget can be checked by hand: it is read every day at local midnight, and a local
// day of mean temperature T (the mean of the station's hourly demo weather) uses
// demoGasBaseKWhPerDay + demoGasKWhPerDegreeDay × max(0, demoHeatBaseC − T) kWh, with no noise
// and no holiday. The model fitted on its readings finds this base, slope and balance point.
const (
	demoDailyGasSite       = 2
	demoGasBaseKWhPerDay   = 9.0
	demoGasKWhPerDegreeDay = 7.5
)

// Natures used by the demo.
const (
	natureSmart         = "MKT_SMART_DISTRIBUTOR"
	natureSmartInvalid  = "MKT_SMART_DISTRIBUTOR_INVALID"
	natureCyclic        = "MKT_CYCLIC_DISTRIBUTOR"
	natureCyclicInvalid = "MKT_CYCLIC_DISTRIBUTOR_INVALID"
)

// demoSite is one demo site with the identifiers its archives use.
type demoSite struct {
	SiteID           string
	SiteCustomerID   string
	PersonCustomerID string
	ElecPod          string
	GasPod           string // empty when the site does not heat with gas
	HeatingFluid     string // ELEC or GAS
	profile          demoProfile
}

// demoProfile shapes a household's consumption.
type demoProfile struct {
	baseW         float64 // standby load, always on
	heatWPerDeg   float64 // electric heating power per degree below demoHeatBaseC (0: gas heating)
	waterHeaterW  float64 // electric water heater running in the HC night window (0: none)
	activity      float64 // scale of the morning, midday and evening usage
	gasBaseKWh    float64 // gas for hot water and cooking per day
	gasKWhPerDeg  float64 // gas heating energy per degree-day
	dailyGas      bool    // gas read daily and exactly on the model (demoDailyGasSite)
	awayFrom      int     // first day of the year (0-based) of a yearly holiday absence; awayDays 0: none
	awayDays      int
	elecStartHC   int64 // dial indexes on January 1st, Wh
	elecStartHP   int64
	gasStartM3    int64
	usesEndTsCurv bool // its load-curve points carry endTs instead of beginTs
}

const demoHeatBaseC = 17.5

// demoSites returns n sites; site i (1-based) is electrically heated when i%3 == 1, gas-heated
// otherwise. Each site's profile comes from its own random stream, so a site's data does not
// depend on how many sites are generated.
func demoSites(n int, seed uint64) []demoSite {
	sites := make([]demoSite, n)
	for i := range sites {
		num := i + 1
		r := rand.New(rand.NewPCG(seed, uint64(num)*0x9e3779b97f4a7c15))
		s := demoSite{
			SiteID:           fmt.Sprintf("demo-site-%d", num),
			SiteCustomerID:   fmt.Sprintf("C-DEMO-%04d", num),
			PersonCustomerID: fmt.Sprintf("P-DEMO-%04d", num),
			ElecPod:          fmt.Sprintf("%014d", 30001234560000+int64(num)*137),
			HeatingFluid:     "GAS",
		}
		p := demoProfile{
			baseW:         180 + 200*r.Float64(),
			activity:      0.7 + 0.6*r.Float64(),
			elecStartHC:   4_000_000 + r.Int64N(20_000_000),
			elecStartHP:   6_000_000 + r.Int64N(30_000_000),
			usesEndTsCurv: num%2 == 0,
		}
		if num%3 == 1 {
			s.HeatingFluid = "ELEC"
			p.heatWPerDeg = 120 + 80*r.Float64()
			p.waterHeaterW = 2000 + 1000*r.Float64()
		} else {
			s.GasPod = fmt.Sprintf("GI%06d", 420000+num*31)
			p.gasBaseKWh = 6 + 4*r.Float64()
			p.gasKWhPerDeg = 5 + 4*r.Float64()
			p.gasStartM3 = 1000 + r.Int64N(20000)
			if num == demoDailyGasSite {
				p.gasBaseKWh, p.gasKWhPerDeg, p.dailyGas = demoGasBaseKWhPerDay, demoGasKWhPerDegreeDay, true
			}
		}
		if num%2 == 0 { // a two-week summer holiday
			p.awayFrom, p.awayDays = 212+r.IntN(10), 14
		}
		s.profile = p
		sites[i] = s
	}
	return sites
}

// demoDay is one local day of a site's load curve.
type demoDay struct {
	Date   time.Time // local midnight
	Points []demoPoint
}

// demoPoint is one 30-minute load-curve point; W is even.
type demoPoint struct {
	Begin       time.Time // local
	Slot        int       // its local half-hour (synth.Slot)
	W           int64
	Reliability int
}

// energyWh is the day's curve energy per dial, in Wh, exact.
func (d demoDay) energyWh() (hc, hp int64) {
	for _, p := range d.Points {
		if synth.Dial(p.Slot) == synth.DialHC {
			hc += synth.Wh(p.W)
		} else {
			hp += synth.Wh(p.W)
		}
	}
	return hc, hp
}

// maxW is the day's highest point.
func (d demoDay) maxW() int64 {
	var m int64
	for _, p := range d.Points {
		m = max(m, p.W)
	}
	return m
}

// demoWeatherModel is the outdoor temperature the consumption reacts to: the demo weather of
// the sites' station (weather_demo.go), so that heating energy follows the station's degree days.
type demoWeatherModel struct {
	temp      func(time.Time) float64
	dailyMean []float64 // by local day from January 1st of the first year
}

func newDemoWeatherModel(stationID string, firstYear, lastYear int, loc *time.Location) demoWeatherModel {
	g := newWeatherDemoGen(stationID)
	m := demoWeatherModel{temp: func(t time.Time) float64 { return g.at(t).Temperature }}
	for d := range spanDays(firstYear, lastYear, loc) {
		start := time.Date(firstYear, 1, 1+d, 0, 0, 0, 0, loc)
		end := time.Date(firstYear, 1, 2+d, 0, 0, 0, 0, loc)
		sum, n := 0.0, 0
		for t := start; t.Before(end); t = t.Add(time.Hour) {
			sum += m.temp(t)
			n++
		}
		m.dailyMean = append(m.dailyMean, sum/float64(n))
	}
	return m
}

// spanDays is the number of local days from January 1st of firstYear to January 1st after lastYear.
func spanDays(firstYear, lastYear int, loc *time.Location) int {
	a := time.Date(firstYear, 1, 1, 0, 0, 0, 0, loc)
	b := time.Date(lastYear+1, 1, 1, 0, 0, 0, 0, loc)
	return int(math.Round(b.Sub(a).Hours() / 24))
}

// demoSeries is a site's generated years, already in archive record form (without identity
// fields, which are chosen per file).
type demoSeries struct {
	Site       demoSite
	Days       []demoDay
	Smart      []smartElecIndexRecord
	MaxPowers  []maxPowerRecord
	Gas        []cyclicGasIndexRecord
	LoadCurves []loadCurveRecord
}

// demoAnomalies places the meter changes and invalidated indexes, in the last year: the elec
// meter of the first site is changed on June 15th, an index of the second site (the first when
// alone) is sent wrong, invalidated, then corrected on March 10th; the first gas site gets the
// same on its gas meter (change on October 1st, invalidation on April 1st).
type demoAnomalies struct {
	elecMeterChangeDay int // day index; -1: none
	elecInvalidDay     int
	gasMeterChange     time.Time // reading instant (local midnight); zero: none
	gasInvalid         time.Time
}

func anomaliesFor(siteIdx, firstGasIdx, nSites int, firstYear, lastYear int, loc *time.Location) demoAnomalies {
	a := demoAnomalies{elecMeterChangeDay: -1, elecInvalidDay: -1}
	jan1 := time.Date(firstYear, 1, 1, 0, 0, 0, 0, loc)
	dayOf := func(m time.Month, d int) int {
		return int(math.Round(time.Date(lastYear, m, d, 0, 0, 0, 0, loc).Sub(jan1).Hours() / 24))
	}
	if siteIdx == 0 {
		a.elecMeterChangeDay = dayOf(time.June, 15)
	}
	if siteIdx == min(1, nSites-1) {
		a.elecInvalidDay = dayOf(time.March, 10)
	}
	if siteIdx == firstGasIdx {
		a.gasMeterChange = time.Date(lastYear, time.October, 1, 0, 0, 0, 0, loc)
		a.gasInvalid = time.Date(lastYear, time.April, 1, 0, 0, 0, 0, loc)
	}
	return a
}

// demoSpan is the generated period: whole local years.
type demoSpan struct {
	FirstYear, LastYear int
	StationID           string // the weather the consumption follows
}

// generateDemo builds the years of every site.
func generateDemo(sites []demoSite, span demoSpan, seed uint64) ([]demoSeries, error) {
	loc, err := time.LoadLocation(synth.Timezone)
	if err != nil {
		return nil, fmt.Errorf("time zone %s: %w (install tzdata)", synth.Timezone, err)
	}
	if span.LastYear < span.FirstYear {
		return nil, fmt.Errorf("years %d to %d: the first year is after the last", span.FirstYear, span.LastYear)
	}
	weather := newDemoWeatherModel(span.StationID, span.FirstYear, span.LastYear, loc)
	firstGas := -1
	for i, s := range sites {
		if s.GasPod != "" {
			firstGas = i
			break
		}
	}
	out := make([]demoSeries, len(sites))
	for i, s := range sites {
		r := rand.New(rand.NewPCG(seed^0xa5a5, uint64(i+1)))
		an := anomaliesFor(i, firstGas, len(sites), span.FirstYear, span.LastYear, loc)
		ser := demoSeries{Site: s, Days: siteDays(s.profile, weather, span.FirstYear, loc, r)}
		ser.Smart = smartIndexes(s, ser.Days, an, loc)
		ser.MaxPowers = maxPowers(s, ser.Days, loc)
		ser.LoadCurves = loadCurves(s, ser.Days, loc)
		if s.GasPod != "" {
			ser.Gas = gasIndexes(s, weather, span.FirstYear, an, loc, r)
		}
		out[i] = ser
	}
	return out, nil
}

// siteDays draws the site's 30-minute load curve for every local day from January 1st of year
// (synth.Walk).
func siteDays(p demoProfile, w demoWeatherModel, year int, loc *time.Location, r *rand.Rand) []demoDay {
	days := make([]demoDay, 0, len(w.dailyMean))
	var (
		away, weekend       bool
		winter, waterHours  float64
		dayNoise, dailyMean float64
	)
	from := time.Date(year, 1, 1, 0, 0, 0, 0, loc)
	synth.Walk(from, time.Date(year, 1, 1+len(w.dailyMean), 0, 0, 0, 0, loc),
		func(start, _ time.Time) {
			dailyMean = w.dailyMean[len(days)]
			days = append(days, demoDay{Date: start})
			away = p.away(start)
			weekend = start.Weekday() == time.Saturday || start.Weekday() == time.Sunday
			winter = math.Max(0, math.Cos(2*math.Pi*(float64(start.YearDay())-11)/365.25)) // 1 in January, 0 from spring to autumn
			waterHours = 1.5 + 1.5*winter
			dayNoise = 1 + 0.1*r.NormFloat64()
		},
		func(begin time.Time, slot int) {
			t := begin.In(loc)
			h := float64(slot)/2 + 0.25 // the point's middle
			watts := p.baseW * (1 + 0.05*r.NormFloat64())
			if p.heatWPerDeg > 0 {
				setback := 1.0
				switch {
				case h >= 23 || h < 6:
					setback = 0.6
				case h >= 6 && h < 9:
					setback = 1.15
				}
				if away {
					setback = 0.3 // frost protection
				}
				watts += math.Min(9000, p.heatWPerDeg*math.Max(0, demoHeatBaseC-w.temp(t.Add(synth.Step/2)))*setback)
			} else if dailyMean < 15 {
				watts += 60 // gas boiler and circulation pump
			}
			if !away {
				if p.waterHeaterW > 0 && (h >= 23 || h < waterHours-1) {
					watts += p.waterHeaterW
				}
				morning, midday := 7.5, 0.5
				if weekend {
					morning, midday = 9.5, 1.0
				}
				usage := 900*bump(h, morning, 0.8) + 600*midday*bump(h, 12.7, 1.0) + 1500*bump(h, 19.7, 1.4)
				usage += 350 * winter * bump(h, 19.5, 2.5) // lighting on long evenings
				watts += p.activity * usage * dayNoise * math.Max(0.4, 1+0.15*r.NormFloat64())
			}
			pt := demoPoint{Begin: t, Slot: slot, W: 2 * int64(math.Round(math.Max(0, watts)/2))}
			if r.Float64() < 0.002 {
				pt.Reliability = 1
			}
			day := &days[len(days)-1]
			day.Points = append(day.Points, pt)
		})
	return days
}

// away tells whether the household is on holiday on the local day starting at day.
func (p demoProfile) away(day time.Time) bool {
	d := day.YearDay() - 1
	return p.awayDays > 0 && d >= p.awayFrom && d < p.awayFrom+p.awayDays
}

// bump is a bell centred on hour c with width s.
func bump(h, c, s float64) float64 {
	x := (h - c) / s
	return math.Exp(-x * x / 2)
}

// Record timestamps: readings are at local midnight, written as Timestamp-Z; load-curve
// points and generation times as Timestamp-offset.
func tsZ(t time.Time) string      { return ingest.FormatTimestampZ(t) }
func tsOffset(t time.Time) string { return t.Format(ingest.LayoutOffset) }

// smartIndexes are the daily dial indexes at local midnight from January 1st to the next
// January 1st, consistent with the curve: index(day k+1) − index(day k) = curve energy of day k.
func smartIndexes(s demoSite, days []demoDay, an demoAnomalies, loc *time.Location) []smartElecIndexRecord {
	hc, hp := s.profile.elecStartHC, s.profile.elecStartHP
	var out []smartElecIndexRecord
	rec := func(ts time.Time, gen time.Time, nature string, hcv, hpv int64, before *bool) smartElecIndexRecord {
		return smartElecIndexRecord{PodID: s.ElecPod, TS: tsZ(ts), GenerationTS: tsZ(gen), Nature: nature,
			IndexBeforeChange: before, Value: map[string]int64{synth.DialHC: hcv, synth.DialHP: hpv}}
	}
	for k := 0; k <= len(days); k++ {
		ts := time.Date(days[0].Date.Year(), 1, 1+k, 0, 0, 0, 0, loc)
		gen := ts.Add(5*time.Hour + 30*time.Minute)
		switch k {
		case an.elecMeterChangeDay:
			// The old meter's last index, then the new meter's first, at the same instant.
			out = append(out, rec(ts, gen, natureSmart, hc, hp, ptr(true)))
			hc, hp = 12, 7
			out = append(out, rec(ts, gen, natureSmart, hc, hp, ptr(false)))
		case an.elecInvalidDay:
			// A wrong reading, invalidated two days later, then corrected.
			out = append(out, rec(ts, gen, natureSmart, hc+1_850_000, hp+2_400_000, nil))
			out = append(out, rec(ts, gen.Add(48*time.Hour), natureSmartInvalid, hc+1_850_000, hp+2_400_000, nil))
			out = append(out, rec(ts, gen.Add(49*time.Hour), natureSmart, hc, hp, nil))
		default:
			out = append(out, rec(ts, gen, natureSmart, hc, hp, nil))
		}
		if k < len(days) {
			dhc, dhp := days[k].energyWh()
			hc += dhc
			hp += dhp
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// maxPowers are the daily max powers: a meter's peak (apparent power over minutes, appliances
// switching on together) lies above the curve's highest 30-minute mean, here by 20 % plus
// 600 W, so that the electrically heated site exceeds 6 kVA on a few cold days, never 9 kVA.
func maxPowers(s demoSite, days []demoDay, loc *time.Location) []maxPowerRecord {
	out := make([]maxPowerRecord, len(days))
	for k, d := range days {
		next := time.Date(d.Date.Year(), d.Date.Month(), d.Date.Day()+1, 0, 0, 0, 0, loc)
		out[k] = maxPowerRecord{PodID: s.ElecPod, TS: tsZ(d.Date), GenerationTS: tsZ(next.Add(5*time.Hour + 30*time.Minute)), Value: demoPeakW(d.maxW())}
	}
	return out
}

// demoPeakW is the daily max power of a day whose highest 30-minute mean is curveMaxW.
func demoPeakW(curveMaxW int64) int64 { return int64(math.Round(float64(curveMaxW)*1.2)) + 600 }

// loadCurves are one record per day with its 46, 48 or 50 points (DST days last 23 or 25 hours).
func loadCurves(s demoSite, days []demoDay, loc *time.Location) []loadCurveRecord {
	out := make([]loadCurveRecord, len(days))
	for k, d := range days {
		next := time.Date(d.Date.Year(), d.Date.Month(), d.Date.Day()+1, 0, 0, 0, 0, loc)
		lc := loadCurveRecord{PodID: s.ElecPod, MeterReadingDate: d.Date.Format("2006-01-02"),
			GenerationTS: tsOffset(next.Add(2*time.Hour + 15*time.Minute)), Step: synth.StepISO,
			Values: make([]loadCurvePoint, len(d.Points))}
		for i, p := range d.Points {
			v := loadCurvePoint{Value: p.W, Reliability: p.Reliability}
			if s.profile.usesEndTsCurv {
				v.EndTS = tsOffset(p.Begin.Add(synth.Step))
			} else {
				v.BeginTS = tsOffset(p.Begin)
			}
			lc.Values[i] = v
		}
		out[k] = lc
	}
	return out
}

// gasIndexes are the site's gas indexes at local midnight from January 1st of year to the
// January 1st after the last day: monthly m³ indexes on the 1st, driven by degree days with some
// noise, or, for the daily-gas site, daily dm³ indexes exactly on the model. Conversion factors
// vary a little from reading to reading; a reading's volume is its energy through its own factor,
// as the service computes energy (index difference × the later reading's factor).
func gasIndexes(s demoSite, w demoWeatherModel, year int, an demoAnomalies, loc *time.Location, r *rand.Rand) []cyclicGasIndexRecord {
	p := s.profile
	unit, m3PerUnit := "m3", 1.0
	if p.dailyGas {
		unit, m3PerUnit = "dm3", 0.001
	}
	var out []cyclicGasIndexRecord
	rec := func(ts, gen time.Time, nature string, v int64, kWhPerUnit float64, before *bool) cyclicGasIndexRecord {
		return cyclicGasIndexRecord{PodID: s.GasPod, Nature: nature, TS: tsZ(ts), GenerationTS: tsZ(gen), IndexBeforeChange: before,
			Value: v, Unit: unit, ConversionFactors: map[string]float64{"kWh": kWhPerUnit}}
	}
	cum := float64(p.gasStartM3) / m3PerUnit // index units on the current meter
	jan1 := time.Date(year, 1, 1, 0, 0, 0, 0, loc)
	day := 0
	for k := 0; ; k++ {
		ts := time.Date(year, time.Month(1+k), 1, 0, 0, 0, 0, loc)
		if p.dailyGas {
			ts = time.Date(year, 1, 1+k, 0, 0, 0, 0, loc)
		}
		kWhPerM3 := math.Round((11.12+0.16*r.Float64())*1000) / 1000
		kWhPerUnit := math.Round(kWhPerM3*m3PerUnit*1e6) / 1e6
		for ; day < len(w.dailyMean) && jan1.AddDate(0, 0, day).Before(ts); day++ {
			cum += p.gasKWh(w.dailyMean[day], p.away(jan1.AddDate(0, 0, day)), r) / kWhPerUnit
		}
		gen := ts.Add(72 * time.Hour)
		v := int64(math.Floor(cum))
		switch {
		case ts.Equal(an.gasMeterChange):
			out = append(out, rec(ts, gen, natureCyclic, v, kWhPerUnit, ptr(true)))
			cum -= float64(v) // the new meter starts at 0 with the fraction already counted
			out = append(out, rec(ts, gen, natureCyclic, 0, kWhPerUnit, ptr(false)))
		case ts.Equal(an.gasInvalid):
			out = append(out, rec(ts, gen, natureCyclic, v*10, kWhPerUnit, nil))
			out = append(out, rec(ts, gen.Add(24*time.Hour), natureCyclicInvalid, v*10, kWhPerUnit, nil))
			out = append(out, rec(ts, gen.Add(25*time.Hour), natureCyclic, v, kWhPerUnit, nil))
		default:
			out = append(out, rec(ts, gen, natureCyclic, v, kWhPerUnit, nil))
		}
		if day >= len(w.dailyMean) {
			return out
		}
	}
}

// gasKWh is the site's gas use on a day of mean temperature mean °C: hot water and cooking plus
// heating by degree day; the daily-gas site's is exactly that, the others' base varies by 10 %
// from day to day and drops to a little frost protection while away.
func (p demoProfile) gasKWh(mean float64, away bool, r *rand.Rand) float64 {
	heating := p.gasKWhPerDeg * math.Max(0, demoHeatBaseC-mean)
	switch {
	case p.dailyGas:
		return p.gasBaseKWh + heating
	case away:
		return 0.3 * heating
	}
	return math.Max(0, p.gasBaseKWh*(1+0.1*r.NormFloat64())+heating)
}
