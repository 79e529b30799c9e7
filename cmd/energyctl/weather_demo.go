package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"time"

	"energy/query/weather"
	"energy/schema"
)

// This file generates plausible hourly weather for a station in mainland France: a seasonal
// cycle (about 4 °C in mid-January, 20 °C in late July), weather systems lasting a few days,
// a daily cycle damped by clouds, and a yearly anomaly whose sign alternates from one year
// to the next so that two consecutive years differ by more than 5 % of heating degree days
// (the demo's yearly comparison then shows a weather message). Everything is a pure function
// of the station id and the instant: regenerating any range gives the same values.

func runWeatherDemo(ctx context.Context, args []string) error {
	fs, store := newStoreFlagSet("weather demo")
	tenant := tenantFlag(fs)
	station := fs.String("station", "", "weather station id; the station must exist (required)")
	now := time.Now()
	from := fs.String("from", time.Date(now.Year()-2, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), "first day (yyyy-MM-dd, UTC midnight) or RFC 3339 instant")
	to := fs.String("to", now.Format(time.DateOnly), "end (excluded), same formats")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tenant == "" || *station == "" || fs.NArg() != 0 {
		fs.Usage()
		return errors.New("--tenant and --station are required")
	}
	begin, err := parseDemoInstant("--from", *from)
	if err != nil {
		return err
	}
	end, err := parseDemoInstant("--to", *to)
	if err != nil {
		return err
	}
	if !end.After(begin) {
		return fmt.Errorf("--to %s must be after --from %s", *to, *from)
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	obs := demoObservations(*station, begin, end)
	n, err := importObservations(ctx, db, *tenant, *station, obs, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "generated %d hourly observations for station %s of tenant %s\n", n, *station, *tenant)
	return nil
}

func parseDemoInstant(flagName, v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%s: %q is neither yyyy-MM-dd nor RFC 3339", flagName, v)
}

// demoWeather stores hourly demo weather for a station over [from, to) (hours starting at or
// after from). It does not create the station; the demo creates it first so that sites can
// name it. Values are deterministic: running it twice stores the same values again.
func demoWeather(ctx context.Context, db *schema.DB, tenantID, stationID string, from, to time.Time) error {
	obs := demoObservations(stationID, from, to)
	w := weather.NewStore(db)
	for done := 0; done < len(obs); done += weatherImportBatch {
		if err := w.Put(ctx, tenantID, stationID, obs[done:min(done+weatherImportBatch, len(obs))]); err != nil {
			return fmt.Errorf("demo weather of station %s: %w", stationID, err)
		}
	}
	return nil
}

// demoObservations returns the station's hourly weather on the hours in [from, to).
func demoObservations(stationID string, from, to time.Time) []weather.Observation {
	g := newWeatherDemoGen(stationID)
	first := from.UTC().Truncate(time.Hour)
	if first.Before(from) {
		first = first.Add(time.Hour)
	}
	var obs []weather.Observation
	for t := first; t.Before(to); t = t.Add(time.Hour) {
		obs = append(obs, g.at(t))
	}
	return obs
}

// weatherDemoGen draws the weather of one station.
type weatherDemoGen struct {
	seed uint64
	loc  *time.Location
}

func newWeatherDemoGen(stationID string) weatherDemoGen {
	h := fnv.New64a()
	h.Write([]byte(stationID))
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		loc = time.UTC
	}
	return weatherDemoGen{seed: h.Sum64(), loc: loc}
}

// Streams of the value noise, so that temperature, clouds and wind are independent.
const (
	streamSystems uint64 = iota + 1
	streamClouds
	streamWind
	streamHourly
	streamYear
)

// unit is a deterministic uniform number in [0, 1) for (stream, i) (splitmix64).
func (g weatherDemoGen) unit(stream uint64, i int64) float64 {
	x := g.seed ^ stream*0x9e3779b97f4a7c15 ^ uint64(i)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// smooth is value noise in [0, 1): random values every period, cosine-interpolated between.
func (g weatherDemoGen) smooth(stream uint64, t time.Time, period time.Duration) float64 {
	pos := float64(t.Unix()) / period.Seconds()
	k := math.Floor(pos)
	f := (1 - math.Cos(math.Pi*(pos-k))) / 2
	a, b := g.unit(stream, int64(k)), g.unit(stream, int64(k)+1)
	return a + (b-a)*f
}

// yearAnomaly is the year's offset, °C: colder in even years, milder in odd ones, by 0.35 to
// 0.6 °C, so that consecutive years differ by about 1 °C (10 to 20 % of degree days).
func (g weatherDemoGen) yearAnomaly(year int) float64 {
	mag := 0.35 + 0.25*g.unit(streamYear, int64(year))
	if year%2 == 0 {
		return -mag
	}
	return mag
}

func (g weatherDemoGen) at(t time.Time) weather.Observation {
	local := t.In(g.loc)
	doy := float64(local.YearDay()-1) + float64(local.Hour())/24
	hour := float64(local.Hour()) + float64(local.Minute())/60
	season := -math.Cos(2 * math.Pi * (doy - 20) / 365.25) // -1 mid-January .. +1 mid-July

	// Sky cover: cloudier in winter, changing over about a day.
	clouds := math.Round(math.Max(0, math.Min(8, 8*g.smooth(streamClouds, t, 20*time.Hour)+1.2-1.2*season-0.6)))
	// Weather systems: ±3.5 °C over about three days.
	systems := 7 * (g.smooth(streamSystems, t, 70*time.Hour) - 0.5)
	// Daily cycle: coolest near 05:00, warmest near 15:00 local; wider in summer, damped by clouds.
	amplitude := (4 + 1.5*season) * (1 - 0.5*clouds/8)
	daily := amplitude * math.Sin(2*math.Pi*(hour-9)/24)
	jitter := 0.6 * (g.unit(streamHourly, t.Unix()/3600) - 0.5)
	temp := 12 + 8*season + systems + daily + jitter + g.yearAnomaly(local.Year())

	wind := 6 + 22*g.smooth(streamWind, t, 30*time.Hour)*(1.1-0.2*season) + 3*g.unit(streamHourly+10, t.Unix()/3600)
	return weather.Observation{
		Date:        t,
		Temperature: math.Round(temp*10) / 10,
		Wind:        math.Round(wind*10) / 10,
		Cloudiness:  clouds,
		Picto:       weather.PictoFromCloudiness(clouds),
	}
}
