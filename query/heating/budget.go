package heating

import (
	"context"
	"errors"
	"math"
	"time"

	"energy/query/consumption"
	"energy/query/weather"
	"energy/schema"
	"energy/schema/registry"
)

// Budget-matrix set points: COMFORT × ECO, ordered by COMFORT then ECO.
var (
	matrixComfort = []float64{18, 19, 20, 21, 22}
	matrixEco     = []float64{14, 15, 16, 17, 18}
)

// Matrix is the budget matrix answer.
type Matrix struct {
	ConfidenceIndex float64        `json:"confidenceIndex" doc:"max(0, R²) × min(1, covered days / 365) × min(1, intervals / 12), to 3 decimals"`
	BudgetVectors   []BudgetVector `json:"budgetVectors" doc:"The 25 pairs COMFORT 18..22 × ECO 14..18 °C, ordered by COMFORT then ECO"`
	MetaData        MetaData       `json:"metaData"`
}

// BudgetVector is the yearly heating budget at one pair of set points.
type BudgetVector struct {
	T [2]float64 `json:"t" doc:"[COMFORT, ECO] set points, °C" example:"[19,16]"`
	B float64    `json:"b" doc:"Yearly budget of the heating fluid in EUR (to 0.01) with those set points in the site's schedule" example:"1234.56"`
}

// FitPeriod is a range of local dates, to inclusive.
type FitPeriod struct {
	From string `json:"from" doc:"First day, yyyy-MM-dd" example:"2024-01-01"`
	To   string `json:"to" doc:"Last day (included), yyyy-MM-dd" example:"2024-12-30"`
}

// BudgetUnits are the units of a budget answer.
type BudgetUnits struct {
	Energy      string `json:"energy" example:"kWh"`
	Budget      string `json:"budget" example:"EUR"`
	Temperature string `json:"temperature" example:"°C"`
}

// MetaData describes the fitted model behind a matrix.
type MetaData struct {
	Model                string      `json:"model" enum:"DEGREE_DAYS" doc:"Degree-day regression: energy per day = base + slope × heating degree days at the balance point"`
	HeatingFluid         string      `json:"heatingFluid" enum:"GAS,ELEC"`
	BalancePointC        *float64    `json:"balancePointC" doc:"Fitted balance point, °C; null when no balance point gives a positive slope (intercept-only model)"`
	BaseKWhPerDay        float64     `json:"baseKwhPerDay" doc:"Weather-independent energy per day, kWh"`
	KWhPerDegreeDay      float64     `json:"kwhPerDegreeDay" doc:"Energy per heating degree day, kWh"`
	R2                   float64     `json:"r2" doc:"Weighted R² of the fit"`
	FitPeriod            FitPeriod   `json:"fitPeriod"`
	CoveredDays          float64     `json:"coveredDays" doc:"Days covered by the intervals the fit used"`
	Intervals            int         `json:"intervals" doc:"Reading intervals the fit used"`
	FitPeriodDegreeDays  *float64    `json:"fitPeriodDegreeDays" doc:"Degree days of those intervals at the balance point; null without one"`
	NormalYearDegreeDays *float64    `json:"normalYearDegreeDays" doc:"Degree days of a normal year at the balance point; null without one"`
	NormalYears          []int       `json:"normalYears" doc:"Complete calendar years of the station averaged into the normal year; empty: the fit period scaled to 365 days"`
	MeanSetpointC        float64     `json:"meanSetpointC" doc:"Mean set point of the site's current schedule over the week, °C"`
	PriceEURPerKWh       float64     `json:"priceEurPerKwh" doc:"Price of the heating fluid in force today, EUR/kWh"`
	Units                BudgetUnits `json:"units"`
}

// HeatingBudget is the yearly budget with the site's current schedule.
type HeatingBudget struct {
	Type         string             `json:"type" enum:"TOTAL" doc:"TOTAL: the whole heating-fluid energy, base load included"`
	Temperatures map[string]float64 `json:"temperatures" doc:"Set points of the site's current schedule, °C"`
	Budget       float64            `json:"budget" doc:"Yearly budget in EUR (to 0.01)"`
}

// Model is a fitted site: the fit, its schedule and the price of its heating fluid.
type Model struct {
	Fit      *Fit
	Fluid    string
	Schedule registry.HeatingSchedule
	Price    float64 // EUR/kWh
}

// Budgeter fits sites' models from their readings, weather, schedule and tariff.
type Budgeter struct {
	db      *schema.DB
	reg     *registry.Store
	weather *weather.Store
	elec    consumption.Computer // electricity energy by tariff heading, to weight heading prices
	now     func() time.Time
}

// NewBudgeter returns the model builder; elec computes electricity consumption (the endpoint's
// engine).
func NewBudgeter(db *schema.DB, reg *registry.Store, elec consumption.Computer) *Budgeter {
	return &Budgeter{db: db, reg: reg, weather: weather.NewStore(db), elec: elec, now: time.Now}
}

// SetClock makes the budgeter price as of now() instead of the wall clock (the fit does not
// depend on it): the benchmark pins it inside its data set's year. Call it before serving.
func (b *Budgeter) SetClock(now func() time.Time) { b.now = now }

// Today is the site's local date now, on which the heating fluid is priced.
func (b *Budgeter) Today(site registry.Site) Date { return DateOf(b.now(), site.Location()) }

// Model fits the site's model on its data and prices it with the prices in force on the local
// date priceOn; an *InsufficientDataError says why it cannot.
func (b *Budgeter) Model(ctx context.Context, site registry.Site, priceOn Date) (*Model, error) {
	fit, err := b.Fit(ctx, site)
	if err != nil {
		return nil, err
	}
	fluid := site.HeatingFluid
	tariffID, field := site.TariffID, "tariffId"
	if fluid == registry.HeatingGas {
		tariffID, field = site.GasTariffID, "gasTariffId"
	}
	if tariffID == "" {
		return nil, insufficient("site %s has no %s: its %s heating cannot be priced", site.SiteID, field, fluid)
	}
	tariff, err := b.reg.Directory.Tariff(ctx, site.TenantID, tariffID)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, insufficient("tariff %s of site %s does not exist", tariffID, site.SiteID)
	} else if err != nil {
		return nil, err
	}
	sched, _, err := b.reg.HeatingSchedule(ctx, site.TenantID, site.SiteID)
	if err != nil {
		return nil, err
	}
	price, err := b.price(ctx, site, fluid, tariff, fit, priceOn)
	if err != nil {
		return nil, err
	}
	return &Model{Fit: fit, Fluid: fluid, Schedule: sched, Price: price}, nil
}

// Fit fits the site's heating fluid to its station's weather where the data is: over the year
// (two when readings are sparse) ending at the site's last resolved reading of the fluid, with
// the normal year of the station's complete calendar years up to then, whatever today's date.
// It reads the last reading's instant first (one aggregation), then only the readings of the
// widest fit period and the weather of that period and of the candidate normal years.
func (b *Budgeter) Fit(ctx context.Context, site registry.Site) (*Fit, error) {
	fluid := site.HeatingFluid
	if fluid != registry.HeatingGas && fluid != registry.HeatingElec {
		return nil, insufficient("site %s has heatingFluid %s: set GAS or ELEC to get a heating budget", site.SiteID, fluid)
	}
	if site.WeatherStationID == "" {
		return nil, insufficient("site %s has no weather station (weatherStationId): the model needs daily temperatures", site.SiteID)
	}
	loc := site.Location()
	last, ok, err := consumption.LastReading(ctx, b.db, site, fluid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return FitModel(Input{Loc: loc}) // says the fluid has no pair of readings
	}
	end := FitEnd(last, loc)
	ivs, err := consumption.ReadingIntervals(ctx, b.db, site, fluid, FitStart(end).Midnight(loc), last)
	if err != nil {
		return nil, err
	}
	// The candidate normal years: the maxNormalYears + 1 calendar years up to the last one
	// complete by the fit's end (one may lack data), which also hold the fit period.
	first := Date{LastNormalYear(end) - maxNormalYears, 1, 1}.Midnight(loc)
	raw, err := b.weather.DailyMeans(ctx, site.TenantID, site.WeatherStationID, loc, first, end.AddDays(1).Midnight(loc))
	if err != nil {
		return nil, err
	}
	in := Input{DailyMeans: make(map[Date]float64, len(raw)), Loc: loc, Last: last}
	for d, m := range raw {
		in.DailyMeans[Date{int(d / 10000), time.Month(d / 100 % 100), int(d % 100)}] = m
	}
	for _, iv := range ivs {
		in.Intervals = append(in.Intervals, Interval{From: iv.From, To: iv.To, KWh: iv.KWh})
	}
	return FitModel(in)
}

// price is the heating fluid's EUR/kWh in force on the local date on: the gas tariff's BASE
// price, or the electricity tariff's heading prices weighted by each heading's energy over the
// fit period.
func (b *Budgeter) price(ctx context.Context, site registry.Site, fluid string, t registry.Tariff, fit *Fit, on Date) (float64, error) {
	prices := pricesOn(t, on.String())
	if prices == nil {
		return 0, insufficient("tariff %s has no price in force on %s", t.TariffID, on)
	}
	if fluid == registry.HeatingGas {
		return prices[registry.GasHeading], nil
	}
	loc := site.Location()
	res, err := b.elec.Compute(ctx, site, consumption.Request{Start: fit.From.Midnight(loc), End: fit.To.AddDays(1).Midnight(loc), WithoutCost: true})
	if err != nil {
		return 0, err
	}
	var energy, cost float64
	if len(res.Consumptions) == 1 {
		for h, wh := range res.Consumptions[0].EnergyMeter.ByTariffHeading {
			energy += wh
			cost += wh * prices[h]
		}
	}
	if energy > 0 {
		return cost / energy, nil
	}
	for _, p := range prices { // no energy by heading: the headings count alike
		cost += p
	}
	return cost / float64(len(prices)), nil
}

// pricesOn is the tariff's price period in force on date (yyyy-MM-dd), nil before the first.
func pricesOn(t registry.Tariff, date string) map[string]float64 {
	var in map[string]float64
	for _, p := range t.Prices { // sorted by validFrom
		if p.ValidFrom <= date {
			in = p.ByHeading
		}
	}
	return in
}

// Budget is the yearly budget in EUR (to 0.01) with set points t = [COMFORT, ECO] in the site's
// schedule (FROST_PROTECTION kept): the balance point moves with the schedule's mean set point.
func (m *Model) Budget(comfort, eco float64) float64 {
	shift := m.Schedule.MeanSetpoint(map[string]float64{registry.ModeComfort: comfort, registry.ModeEco: eco}) - m.Schedule.MeanSetpoint(nil)
	return round2(m.Fit.YearlyKWh(shift) * m.Price)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// Matrix is the budget matrix of the model.
func (m *Model) Matrix() Matrix {
	f := m.Fit
	out := Matrix{ConfidenceIndex: f.Confidence(), MetaData: MetaData{
		Model: "DEGREE_DAYS", HeatingFluid: m.Fluid, BalancePointC: f.BalancePoint, BaseKWhPerDay: f.Base, KWhPerDegreeDay: f.Slope,
		R2: f.R2, FitPeriod: FitPeriod{From: f.From.String(), To: f.To.String()}, CoveredDays: f.CoveredDays, Intervals: f.Intervals,
		FitPeriodDegreeDays: f.FitPeriodDegreeDays, NormalYears: append([]int{}, f.NormalYears...),
		MeanSetpointC: m.Schedule.MeanSetpoint(nil), PriceEURPerKWh: m.Price,
		Units: BudgetUnits{Energy: "kWh", Budget: "EUR", Temperature: "°C"},
	}}
	if f.BalancePoint != nil {
		ndd := f.NormalDegreeDays(*f.BalancePoint)
		out.MetaData.NormalYearDegreeDays = &ndd
	}
	for _, c := range matrixComfort {
		for _, e := range matrixEco {
			out.BudgetVectors = append(out.BudgetVectors, BudgetVector{T: [2]float64{c, e}, B: m.Budget(c, e)})
		}
	}
	return out
}

// HeatingBudget is the budget with the current schedule itself.
func (m *Model) HeatingBudget() HeatingBudget {
	return HeatingBudget{Type: "TOTAL", Temperatures: m.Schedule.Temperatures, Budget: round2(m.Fit.YearlyKWh(0) * m.Price)}
}

// AnnualHeatingKWh is the weather-dependent energy of the site's heating fluid over a normal
// year (slope × normal-year degree days, base load excluded), from the model fitted on the
// site's readings of the 365 days ending at its last one (730 when they are sparse). It returns an
// *InsufficientDataError when the model cannot be fitted.
func (b *Budgeter) AnnualHeatingKWh(ctx context.Context, site registry.Site) (float64, error) {
	f, err := b.Fit(ctx, site)
	if err != nil {
		return 0, err
	}
	return f.HeatingKWh(), nil
}
