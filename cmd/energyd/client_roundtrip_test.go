package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"energy/apidocs/adviceclient"
	"energy/apidocs/client"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// routeRecorder is the generated clients' HTTP doer: it records the route of every request
// answered 2xx, so that the round trip can tell which documented operations it exercised.
type routeRecorder struct {
	routes chi.Routes
	mu     sync.Mutex
	seen   map[string]bool
}

func (r *routeRecorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultClient.Do(req)
	if err == nil && resp.StatusCode/100 == 2 {
		pattern := r.routes.Find(chi.NewRouteContext(), req.Method, req.URL.Path)
		r.mu.Lock()
		r.seen[req.Method+" "+normalizeRoute(pattern)] = true
		r.mu.Unlock()
	}
	return resp, err
}

// wantRoundTrip fails unless the call got an answer with the wanted status, parsed by the
// generated client.
func wantRoundTrip(t *testing.T, what string, status interface{ StatusCode() int }, err error, want int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := status.StatusCode(); got != want {
		body := ""
		if b, ok := status.(interface{ GetBody() []byte }); ok {
			body = string(b.GetBody())
		}
		t.Fatalf("%s: HTTP %d, want %d: %.300s", what, got, want, body)
	}
}

func ptr[T any](v T) *T { return &v }

// roundTripTemps: the local days cycle through 0, 10 and 20 °C; a gas-heated day uses 80, 40
// and 20 kWh (base 20 kWh, 4 kWh per degree day under 15 °C).
var roundTripTemps, roundTripKWh = []float64{0, 10, 20}, map[float64]int64{0: 80, 10: 40, 20: 20}

// TestEveryOperationThroughTheGeneratedClients wires energyd as run does and calls every
// operation of both committed descriptions through the generated clients (apidocs/client,
// apidocs/adviceclient), checking what each answers; it fails when a documented operation was
// not exercised, so a new operation needs its round trip here.
func TestEveryOperationThroughTheGeneratedClients(t *testing.T) {
	db := chtest.DB(t)
	cfg, err := loadConfig([]string{"--data-dir", t.TempDir(), "--advice-listen", "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := wire(ctx, cfg, db, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); svc.stopWithin(10*time.Second, log) })
	mainHandler, adviceHandler := svc.handlers()
	mainSrv, adviceSrv := httptest.NewServer(mainHandler), httptest.NewServer(adviceHandler)
	t.Cleanup(mainSrv.Close)
	t.Cleanup(adviceSrv.Close)
	secret, _, err := registry.New(db).CreateToken(ctx, "acme", []string{"admin"}, 0, "round trip")
	if err != nil {
		t.Fatal(err)
	}
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+secret)
		return nil
	}
	mainRec := &routeRecorder{routes: mainHandler.(chi.Routes), seen: map[string]bool{}}
	adviceRec := &routeRecorder{routes: adviceHandler.(chi.Routes), seen: map[string]bool{}}
	api, err := client.NewClientWithResponses(mainSrv.URL, client.WithHTTPClient(mainRec), client.WithRequestEditorFn(bearer))
	if err != nil {
		t.Fatal(err)
	}
	advice, err := adviceclient.NewClientWithResponses(adviceSrv.URL, adviceclient.WithHTTPClient(adviceRec), adviceclient.WithRequestEditorFn(bearer))
	if err != nil {
		t.Fatal(err)
	}

	// Health.
	health, err := api.HealthzWithResponse(ctx)
	wantRoundTrip(t, "healthz", health, err, 200)
	ready, err := api.ReadyzWithResponse(ctx)
	wantRoundTrip(t, "readyz", ready, err, 200)

	// Reference data: a station with daily noon observations from January 1 two years ago to
	// yesterday, an HP/HC electricity tariff, a gas tariff, an electric and a gas-heated site.
	paris, _ := time.LoadLocation("Europe/Paris")
	now := time.Now().In(paris)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, paris)
	first := time.Date(today.Year()-2, 1, 1, 0, 0, 0, 0, paris)
	tempOf := func(day time.Time) float64 {
		return roundTripTemps[int(math.Round(day.Sub(first).Hours()/24))%3]
	}
	station, err := api.PutWeatherStationWithResponse(ctx, "ST", client.StationBody{Name: "Paris-Orly", Latitude: 48.72, Longitude: 2.38})
	wantRoundTrip(t, "put station", station, err, 200)
	gotStation, err := api.GetWeatherStationWithResponse(ctx, "ST")
	wantRoundTrip(t, "get station", gotStation, err, 200)
	if s := gotStation.JSON200; s == nil || s.Name != "Paris-Orly" || s.Latitude != 48.72 {
		t.Errorf("station read back: %+v", s)
	}
	var obs []client.ObservationBody
	for day := first; day.Before(today); day = day.AddDate(0, 0, 1) {
		obs = append(obs, client.ObservationBody{Date: day.Add(12 * time.Hour), Temperature: tempOf(day), Wind: 10, Cloudiness: 4})
	}
	stored, err := api.PutWeatherObservationsWithResponse(ctx, "ST", obs)
	wantRoundTrip(t, "put observations", stored, err, 200)
	week := today.AddDate(0, 0, -7)
	observed, err := api.GetWeatherObservationsWithResponse(ctx, "ST", &client.GetWeatherObservationsParams{
		BeginDate: week.Format("2006-01-02T15:04:05.000-0700"), EndDate: week.AddDate(0, 0, 2).Format("2006-01-02T15:04:05.000-0700")})
	wantRoundTrip(t, "get observations", observed, err, 200)
	if !strings.Contains(string(observed.Body), strconv.FormatFloat(tempOf(week), 'f', -1, 64)) {
		t.Errorf("observations of %s: %s", week.Format(time.DateOnly), observed.Body)
	}

	tariff := client.TariffBody{Option: "HPHC", DialHeadings: &map[string]string{"1": "HC", "2": "HP"}, DefaultHeading: ptr("HP"), SubscribedPowerKva: ptr(int64(6)),
		TimeOfUse: &[]client.TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}},
		Prices:    []client.PricePeriod{{ValidFrom: "2000-01-01", ByHeading: map[string]float64{"HC": 0.2, "HP": 0.25}}}}
	putTariff, err := api.PutTariffWithResponse(ctx, "HPHC", tariff)
	wantRoundTrip(t, "put tariff", putTariff, err, 200)
	putGasTariff, err := api.PutTariffWithResponse(ctx, "GAS-1", client.TariffBody{Option: "GAS",
		Prices: []client.PricePeriod{{ValidFrom: "2000-01-01", ByHeading: map[string]float64{"BASE": 0.1}}}})
	wantRoundTrip(t, "put gas tariff", putGasTariff, err, 200)
	putBase, err := api.PutTariffWithResponse(ctx, "BASE-9", client.TariffBody{Option: "BASE", DialHeadings: &map[string]string{"1": "BASE"}, SubscribedPowerKva: ptr(int64(9)),
		Prices: []client.PricePeriod{{ValidFrom: "2000-01-01", ByHeading: map[string]float64{"BASE": 0.22}}}})
	wantRoundTrip(t, "put simulation candidate tariff", putBase, err, 200)
	gotTariff, err := api.GetTariffWithResponse(ctx, "HPHC")
	wantRoundTrip(t, "get tariff", gotTariff, err, 200)
	if tf := gotTariff.JSON200; tf == nil || tf.Option != "HPHC" || len(tf.Prices) != 1 || tf.Prices[0].ByHeading["HP"] != 0.25 {
		t.Errorf("tariff read back: %+v", tf)
	}
	// A TEMPO day-colour calendar and two colour days (the second sent twice keeps its last colour).
	putCalendar, err := api.PutDayColourCalendarWithResponse(ctx, "TEMPO", client.DayColourCalendarBody{Name: "Tempo", DayStartsAt: "06:00"})
	wantRoundTrip(t, "put day-colour calendar", putCalendar, err, 200)
	gotCalendar, err := api.GetDayColourCalendarWithResponse(ctx, "TEMPO")
	wantRoundTrip(t, "get day-colour calendar", gotCalendar, err, 200)
	if c := gotCalendar.JSON200; c == nil || c.Name != "Tempo" || c.DayStartsAt != "06:00" || c.CalendarId == nil || *c.CalendarId != "TEMPO" {
		t.Errorf("day-colour calendar read back: %s", gotCalendar.Body)
	}
	putColours, err := api.PutDayColoursWithResponse(ctx, "TEMPO", client.PutDayColoursJSONRequestBody{
		{Date: "2025-01-07", Colour: "WHITE"}, {Date: "2025-01-06", Colour: "BLUE"}, {Date: "2025-01-07", Colour: "RED"}})
	wantRoundTrip(t, "put day colours", putColours, err, 200)
	if c := putColours.JSON200; c == nil || c.Stored != 3 {
		t.Errorf("day colours stored: %s", putColours.Body)
	}
	colours, err := api.GetDayColoursWithResponse(ctx, "TEMPO", &client.GetDayColoursParams{From: "2025-01-01", To: "2025-02-01"})
	wantRoundTrip(t, "get day colours", colours, err, 200)
	if c := colours.JSON200; c == nil || !slices.Equal(*c, []client.DayColour{{Date: "2025-01-06", Colour: "BLUE"}, {Date: "2025-01-07", Colour: "RED"}}) {
		t.Errorf("day colours read back: %s", colours.Body)
	}
	gas := client.SiteBodyHeatingFluid("GAS")
	for id, body := range map[string]client.SiteBody{
		"ELEC": {TariffId: ptr("HPHC"), WeatherStationId: ptr("ST"), SiteCustomerId: ptr("C-ELEC"), PersonCustomerId: ptr("P-ELEC")},
		"GAS":  {GasTariffId: ptr("GAS-1"), WeatherStationId: ptr("ST"), HeatingFluid: &gas},
	} {
		put, err := api.PutSiteWithResponse(ctx, id, body)
		wantRoundTrip(t, "put site "+id, put, err, 200)
	}
	site, err := api.GetSiteWithResponse(ctx, "ELEC")
	wantRoundTrip(t, "get site", site, err, 200)
	if s := site.JSON200; s == nil || s.TariffId == nil || *s.TariffId != "HPHC" || s.Timezone == nil || *s.Timezone != "Europe/Paris" {
		t.Errorf("site read back: %+v", s)
	}
	schedule := `{"temperatures":{"COMFORT":20,"ECO":17},"weeklyCalendar":[{"offset":420,"temperature":"COMFORT"},{"offset":1380,"temperature":"ECO"}]}`
	putSchedule, err := api.PutHeatingScheduleWithBodyWithResponse(ctx, "GAS", "application/json", strings.NewReader(schedule))
	wantRoundTrip(t, "put heating schedule", putSchedule, err, 200)
	gotSchedule, err := api.GetHeatingScheduleWithResponse(ctx, "GAS")
	wantRoundTrip(t, "get heating schedule", gotSchedule, err, 200)
	if s := gotSchedule.JSON200; s == nil || s.HeatingSchedule.Temperatures["COMFORT"] != 20 || len(s.HeatingSchedule.WeeklyCalendar) != 2 {
		t.Errorf("heating schedule read back: %+v", s)
	}

	// Readings through the archive intake: 400 days of daily indexes of both sites. ELEC adds
	// 1,000 Wh on dial 1 (HC) and 2,000 Wh on dial 2 (HP) a day; GAS adds the day's kWh / 10 m3
	// (10 kWh per m3). ELEC's daily max power is 7,000 W on the first day of the week checked
	// below (above its 6 kVA) and 5,000 W on the second.
	var elec, gasIdx []string
	hc, hp, m3 := 100000, 500000, int64(5000)
	for day := today.AddDate(0, 0, -400); !day.After(today); day = day.AddDate(0, 0, 1) {
		ts := day.UTC().Format(time.RFC3339)
		elec = append(elec, fmt.Sprintf(`{"siteId":"ELEC","podId":"PDL-1","ts":%q,"generationTs":%q,"nature":"MKT_SMART_DISTRIBUTOR","value":{"1":%d,"2":%d}}`, ts, ts, hc, hp))
		gasIdx = append(gasIdx, fmt.Sprintf(`{"siteId":"GAS","podId":"GAS-1","ts":%q,"generationTs":%q,"nature":"MKT_CYCLIC_DISTRIBUTOR","value":%d,"unit":"m3","conversionFactors":{"kWh":10}}`, ts, ts, m3))
		hc, hp, m3 = hc+1000, hp+2000, m3+roundTripKWh[tempOf(day)]/10
	}
	var maxPowers []string
	for i, w := range []int{7000, 5000} {
		ts := week.AddDate(0, 0, i).Add(19 * time.Hour).UTC().Format(time.RFC3339)
		maxPowers = append(maxPowers, fmt.Sprintf(`{"siteId":"ELEC","podId":"PDL-1","ts":%q,"generationTs":%q,"value":%d}`, ts, ts, w))
	}
	file := `{"smartElecIndexes":[` + strings.Join(elec, ",") + `],"cyclicGasIndexes":[` + strings.Join(gasIdx, ",") + `],"maxPowers":[` + strings.Join(maxPowers, ",") + `]}`
	contentType, archive := archiveUpload(t, "readings.json", file)
	submitted, err := api.SubmitArchiveWithBodyWithResponse(ctx, contentType, bytes.NewReader(archive))
	wantRoundTrip(t, "submit archive", submitted, err, 200)
	href := submitted.JSON200.UnderscoreLinks.Self.Href
	jobID := href[strings.LastIndex(href, "/")+1:]
	var job *client.JobDetail
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		got, err := api.GetJobWithResponse(ctx, jobID)
		wantRoundTrip(t, "get job", got, err, 200)
		if job = got.JSON200; job.State.Current == "DONE" || job.State.Current == "ERROR" || job.State.Current == "TIMEOUT" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s after a minute", jobID, job.State.Current)
		}
	}
	if job.State.Current != "DONE" || job.Report.Overview.NbOperationsOK != 2*401+2 || job.Report.Overview.NbOperationsKO != 0 {
		t.Fatalf("job: %s, report %+v", job.State.Current, job.Report.Overview)
	}
	jobs, err := api.ListJobsWithResponse(ctx, &client.ListJobsParams{Size: ptr(int64(10))})
	wantRoundTrip(t, "list jobs", jobs, err, 200)
	if l := jobs.JSON200; l == nil || len(l.UnderscoreEmbedded.Jobs) != 1 || l.UnderscoreEmbedded.Jobs[0].Id != jobID {
		t.Errorf("job listing: %s", jobs.Body)
	}

	// Answers over those readings.
	days := client.GetSiteElecConsumptionsParamsStepUnit("DAYS")
	cons, err := api.GetSiteElecConsumptionsWithResponse(ctx, "ELEC", &client.GetSiteElecConsumptionsParams{
		StartTs: week.Format("2006-01-02T15:04:05"), EndTs: week.AddDate(0, 0, 3).Format("2006-01-02T15:04:05"), StepUnit: &days})
	wantRoundTrip(t, "electricity consumption", cons, err, 200)
	if c := cons.JSON200; c == nil || len(c.Consumptions) != 3 {
		t.Fatalf("electricity consumption: %s", cons.Body)
	}
	for _, c := range cons.JSON200.Consumptions {
		// 1 kWh HC at 0.20 and 2 kWh HP at 0.25 EUR/kWh: 0.70 EUR of energy a day.
		if c.EnergyMeter.Total == nil || *c.EnergyMeter.Total != 3000 || c.EnergyMeter.ByTariffHeading["HC"] != 1000 || c.EnergyMeter.ByTariffHeading["HP"] != 2000 ||
			c.Cost == nil || c.Cost.ByTariffHeading["HC"] != 0.2 || c.Cost.ByTariffHeading["HP"] != 0.5 {
			t.Errorf("electricity day %v: energy %+v cost %+v", c.Period.StartTime, c.EnergyMeter, c.Cost)
		}
	}
	gasDays := client.GetSiteGasConsumptionsParamsStepUnit("DAYS")
	gasCons, err := api.GetSiteGasConsumptionsWithResponse(ctx, "GAS", &client.GetSiteGasConsumptionsParams{
		StartTs: week.Format("2006-01-02T15:04:05"), EndTs: week.AddDate(0, 0, 3).Format("2006-01-02T15:04:05"), StepUnit: &gasDays})
	wantRoundTrip(t, "gas consumption", gasCons, err, 200)
	if c := gasCons.JSON200; c == nil || len(c.Consumptions) != 3 {
		t.Fatalf("gas consumption: %s", gasCons.Body)
	}
	for i, c := range gasCons.JSON200.Consumptions {
		kwh := float64(roundTripKWh[tempOf(week.AddDate(0, 0, i))])
		if c.EnergyMeter.Total == nil || *c.EnergyMeter.Total != kwh || c.Volume == nil || c.Volume.Total == nil || *c.Volume.Total != kwh/10 {
			t.Errorf("gas day %d: energy %+v volume %+v, want %v kWh", i+1, c.EnergyMeter, c.Volume, kwh)
		}
	}
	// The same answer as CSV: one row per day, energy and volume as in the JSON.
	acceptCSV := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Accept", "text/csv")
		return nil
	}
	gasCSV, err := api.GetSiteGasConsumptionsWithResponse(ctx, "GAS", &client.GetSiteGasConsumptionsParams{
		StartTs: week.Format("2006-01-02T15:04:05"), EndTs: week.AddDate(0, 0, 3).Format("2006-01-02T15:04:05"), StepUnit: &gasDays}, acceptCSV)
	wantRoundTrip(t, "gas consumption as CSV", gasCSV, err, 200)
	records, err := csv.NewReader(bytes.NewReader(gasCSV.Body)).ReadAll()
	if err != nil || gasCSV.ContentType() != "text/csv" || len(records) != 4 {
		t.Fatalf("gas consumption as CSV (%s, %v): %s", gasCSV.ContentType(), err, gasCSV.Body)
	}
	column := map[string]int{}
	for i, name := range records[0] {
		column[name] = i
	}
	for i, c := range gasCons.JSON200.Consumptions {
		row := records[i+1]
		if row[column["startTime"]] != c.Period.StartTime.Format(time.RFC3339) || row[column["energy"]] != strconv.FormatFloat(*c.EnergyMeter.Total, 'f', -1, 64) ||
			row[column["volume"]] != strconv.FormatFloat(*c.Volume.Total, 'f', -1, 64) || row[column["volume_unit"]] != "m3" {
			t.Errorf("gas CSV row %d %v, JSON %v %v %+v", i+1, row, c.Period.StartTime, *c.EnergyMeter.Total, c.Volume)
		}
	}
	// The week's daily max powers against HPHC's 6 kVA: 7,000 W overruns, 5,000 W does not, the
	// third day has no reading.
	maxDays := client.GetSiteElecMaxPowersParamsStepUnit("DAYS")
	powers, err := api.GetSiteElecMaxPowersWithResponse(ctx, "ELEC", &client.GetSiteElecMaxPowersParams{
		StartTs: week.Format("2006-01-02T15:04:05"), EndTs: week.AddDate(0, 0, 3).Format("2006-01-02T15:04:05"), StepUnit: &maxDays})
	wantRoundTrip(t, "max powers", powers, err, 200)
	if m := powers.JSON200; m == nil || m.Unit != "W" || m.SubscribedPowerKva == nil || *m.SubscribedPowerKva != 6 || len(m.MaxPowers) != 3 {
		t.Fatalf("max powers: %s", powers.Body)
	}
	for i, want := range []struct {
		value    int64
		overruns int64
		status   string
	}{{7000, 1, "COMPLETE"}, {5000, 0, "COMPLETE"}, {0, 0, "NO_DATA"}} {
		step, date := powers.JSON200.MaxPowers[i], week.AddDate(0, 0, i).Format(time.DateOnly)
		got := int64(0)
		if step.Value != nil {
			got = *step.Value
			if step.Date == nil || *step.Date != date {
				t.Errorf("max power of %s dated %v", date, step.Date)
			}
		}
		if got != want.value || step.OverrunDays == nil || *step.OverrunDays != want.overruns || string(step.Status) != want.status {
			t.Errorf("max power of %s: %s; want %d W, %d overrun days, %s", date, mustJSON(t, step), want.value, want.overruns, want.status)
		}
	}
	// The same three days priced on BASE-9: 9 kWh at 0.22 EUR is 1.98 EUR, 0.12 under HPHC's
	// 2.10 EUR (3 × (1 kWh at 0.20 + 2 kWh at 0.25)), which the 7,000 W day rules out at 6 kVA.
	simulated, err := api.GetSiteElecTariffSimulationsWithResponse(ctx, "ELEC", &client.GetSiteElecTariffSimulationsParams{
		StartTs: week.Format("2006-01-02T15:04:05"), EndTs: week.AddDate(0, 0, 3).Format("2006-01-02T15:04:05"), TariffIds: "BASE-9"})
	wantRoundTrip(t, "tariff simulations", simulated, err, 200)
	sims := simulated.JSON200
	if sims == nil || sims.EnergySource != "INDEXES" || sims.Reference == nil || *sims.Reference != "HPHC" || sims.MaxPower == nil ||
		sims.MaxPower.Value != 7000 || sims.MaxPower.Date != week.Format(time.DateOnly) || len(sims.Simulations) != 2 {
		t.Fatalf("tariff simulations: %s", simulated.Body)
	}
	base, hphc := sims.Simulations[0], sims.Simulations[1]
	if base.TariffId != "BASE-9" || base.Status != "OK" || !base.Cheapest || base.Cost == nil || math.Abs(base.Cost.Total-1.98) > 1e-9 ||
		base.EnergyMeter.Total != 9000 || base.OverrunDays == nil || *base.OverrunDays != 0 ||
		base.DifferenceVsReference == nil || math.Abs(base.DifferenceVsReference.Cost+0.12) > 1e-9 || base.DifferenceVsReference.Rate == nil || *base.DifferenceVsReference.Rate != -5.71 {
		t.Errorf("BASE-9 simulated: %s", mustJSON(t, base))
	}
	if hphc.TariffId != "HPHC" || hphc.Status != "INSUFFICIENT_POWER" || hphc.Cheapest || hphc.Cost == nil || math.Abs(hphc.Cost.Total-2.1) > 1e-9 ||
		hphc.EnergyMeter.ByTariffHeading["HC"] != 3000 || hphc.EnergyMeter.ByTariffHeading["HP"] != 6000 || hphc.OverrunDays == nil || *hphc.OverrunDays != 1 {
		t.Errorf("HPHC simulated: %s", mustJSON(t, hphc))
	}
	weathers, err := api.GetSiteWeathersWithResponse(ctx, "ELEC", &client.GetSiteWeathersParams{
		BeginDate: week.Format("2006-01-02T15:04:05.000-0700"), EndDate: week.AddDate(0, 0, 2).Format("2006-01-02T15:04:05.000-0700")})
	wantRoundTrip(t, "site weather", weathers, err, 200)
	if w := weathers.JSON200; w == nil || len(*w) != 2 || (*w)[0].Temperature != tempOf(week) || (*w)[1].Temperature != tempOf(week.AddDate(0, 0, 1)) {
		t.Errorf("site weather: %s", weathers.Body)
	}
	lastYear := strconv.Itoa(today.Year() - 1)
	compared, err := api.GetSiteYearlyElecEnergiesComparisonsWithResponse(ctx, "ELEC", &client.GetSiteYearlyElecEnergiesComparisonsParams{Years: []string{lastYear}})
	wantRoundTrip(t, "yearly comparison", compared, err, 200)
	if c := compared.JSON200; c == nil || len(*c) != 1 || (*c)[0].CurrentYear.Year != lastYear {
		t.Errorf("yearly comparison: %s", compared.Body)
	}
	matrix, err := api.GetBudgetMatrixWithResponse(ctx, "GAS")
	wantRoundTrip(t, "budget matrix", matrix, err, 200)
	if m := matrix.JSON200; m == nil || len(m.BudgetVectors) == 0 || m.ConfidenceIndex <= 0 {
		t.Errorf("budget matrix: %.400s", matrix.Body)
	}
	budget, err := api.GetHeatingBudgetWithResponse(ctx, "GAS")
	wantRoundTrip(t, "heating budget", budget, err, 200)
	if b := budget.JSON200; b == nil || b.Budget <= 0 || b.Temperatures["COMFORT"] != 20 {
		t.Errorf("heating budget: %s", budget.Body)
	}

	// Targets.
	yearStart := time.Date(today.Year(), 1, 1, 0, 0, 0, 0, paris).UTC().Format("2006-01-02T15:04:05Z")
	yearEnd := time.Date(today.Year()+1, 1, 1, 0, 0, 0, 0, paris).UTC().Format("2006-01-02T15:04:05Z")
	created, err := api.CreateTargetWithResponse(ctx, "ELEC", client.TargetInput{BeginDate: &yearStart, EndDate: &yearEnd, Type: ptr("ELEC"),
		Unit: ptr("KWH"), TargetValue: ptr(5000.0), Name: ptr("yearly objective")})
	wantRoundTrip(t, "create target", created, err, 201)
	targetID := created.JSON201.TargetId
	listed, err := api.ListTargetsWithResponse(ctx, "ELEC")
	wantRoundTrip(t, "list targets", listed, err, 200)
	if l := listed.JSON200; l == nil || len(*l) != 1 || (*l)[0].TargetId != targetID || (*l)[0].TargetValue != 5000 {
		t.Errorf("target listing: %s", listed.Body)
	}
	updated, err := api.UpdateTargetWithResponse(ctx, "ELEC", targetID, client.TargetInput{BeginDate: &yearStart, EndDate: &yearEnd, Type: ptr("ELEC"),
		Unit: ptr("KWH"), TargetValue: ptr(6000.0), Name: ptr("yearly objective")})
	wantRoundTrip(t, "update target", updated, err, 200)
	target, err := api.GetTargetWithResponse(ctx, "ELEC", targetID)
	wantRoundTrip(t, "get target", target, err, 200)
	if tg := target.JSON200; tg == nil || tg.TargetValue != 6000 || tg.BeginDate != yearStart || tg.Unit != "KWH" {
		t.Errorf("target read back: %s", target.Body)
	}
	notifications, err := api.ListTargetNotificationsWithResponse(ctx, "ELEC", targetID)
	wantRoundTrip(t, "target notifications", notifications, err, 200)
	if n := notifications.JSON200; n == nil || len(*n) != 0 {
		t.Errorf("notifications of a target without channels: %s", notifications.Body)
	}

	// The recommendation API: the catalog's worked example.
	// A site's export (the intake archive: site.json first), then its erasure, DONE.
	exported, err := api.ExportSiteWithResponse(ctx, "ELEC", &client.ExportSiteParams{StartTs: ptr(lastYear + "-01-01T00:00:00Z")})
	wantRoundTrip(t, "export site", exported, err, 200)
	if zr, err := gzip.NewReader(bytes.NewReader(exported.Body)); err != nil {
		t.Fatalf("export: %v", err)
	} else if h, err := tar.NewReader(zr).Next(); err != nil || h.Name != "site.json" {
		t.Fatalf("export: first file %v, %v; want site.json", h, err)
	}
	put, err := api.PutSiteWithResponse(ctx, "ERASE-ME", client.SiteBody{})
	wantRoundTrip(t, "put site ERASE-ME", put, err, 200)
	erase, err := api.EraseSiteWithResponse(ctx, "ERASE-ME")
	wantRoundTrip(t, "erase site", erase, err, 202)
	erasureID := erase.JSON202.UnderscoreLinks.Self.Href[strings.LastIndex(erase.JSON202.UnderscoreLinks.Self.Href, "/")+1:]
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		got, err := api.GetSiteErasureWithResponse(ctx, erasureID)
		wantRoundTrip(t, "get site erasure", got, err, 200)
		if got.JSON200.State == "DONE" {
			if got.JSON200.RowsRemoved["sites"] == 0 {
				t.Errorf("erasure of ERASE-ME: %s, want its sites row counted", mustJSON(t, got.JSON200))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("erasure still %s after a minute", got.JSON200.State)
		}
	}

	adviceHealth, err := advice.HealthzWithResponse(ctx)
	wantRoundTrip(t, "advice healthz", adviceHealth, err, 200)
	adviceReady, err := advice.ReadyzWithResponse(ctx)
	wantRoundTrip(t, "advice readyz", adviceReady, err, 200)
	var input adviceclient.SubmitAdviceJobJSONBody_Input
	if err := json.Unmarshal([]byte(`{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21, "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false}`), &input); err != nil {
		t.Fatal(err)
	}
	adviceJob, err := advice.SubmitAdviceJobWithResponse(ctx, adviceclient.SubmitAdviceJobJSONRequestBody{{Input: input}})
	wantRoundTrip(t, "submit advice job", adviceJob, err, 200)
	var done *adviceclient.AdviceJobBody
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		got, err := advice.GetAdviceJobWithResponse(ctx, adviceJob.JSON200.JobId)
		wantRoundTrip(t, "get advice job", got, err, 200)
		if done = got.JSON200; done.Status == "DONE" || done.Status == "ERROR" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("advice job still %s after a minute", done.Status)
		}
	}
	if done.Status != "DONE" || len(done.Result) != 1 || !strings.Contains(mustJSON(t, done.Result[0]), `"totalSavingsKwh":2712`) {
		t.Errorf("advice job: %s %s", done.Status, mustJSON(t, done.Result))
	}

	for _, api := range []struct {
		file string
		rec  *routeRecorder
	}{{"../../apidocs/openapi.yaml", mainRec}, {"../../apidocs/openapi-advice.yaml", adviceRec}} {
		for route := range documentedRoutes(t, api.file) {
			if !api.rec.seen[route] {
				t.Errorf("%s documents %s but no call of the generated client exercised it: add its round trip here", api.file, route)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// archiveUpload is a multipart body holding a .tar.gz of one file, and its Content-Type.
func archiveUpload(t *testing.T, name, content string) (string, []byte) {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write([]byte(content))
	_ = tw.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(tb.Bytes())
	_ = zw.Close()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("file", "readings.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(gz.Bytes())
	_ = mw.Close()
	return mw.FormDataContentType(), body.Bytes()
}
