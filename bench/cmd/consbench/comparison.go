package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"energy/bench"
	"energy/query/weather"
	"energy/schema"
	"energy/schema/registry"
)

// The yearly comparison's row of the consumption benchmark: the measured site gets the budget
// benchmark's weather station (hourly weather over the data set's year and the year before) and
// its comparison of the data set's year with the previous one (two periods: energy, cost and
// degree days of each) is timed computed and cached, alternating with the MONTHS request over
// the same year, which it must stay within twice of. Computed comparisons find the station's
// daily means in their cache as soon as any site of the station was compared since the last
// weather change; the first one after a change (the means cache emptied) is timed too.
const targetComparisonVsMonths = 2.0

type comparisonResult struct {
	path            string
	cold, cached    []time.Duration
	fresh           []time.Duration // computed, the station's daily means read again
	months          []time.Duration // MONTHS computed, alternating with cold and fresh
	bodyBytes       int
	energy, energy0 *float64 // Wh of the year and of the year before
	weatherCode     string
}

// measureComparison times the comparison of site's year against months (the MONTHS
// request's path) on the cold and cached servers; means is the cold server's daily-means
// cache.
func measureComparison(ctx context.Context, o options, db *schema.DB, reg *registry.Store, means *weather.CachedMeans, client *http.Client, coldURL, cachedURL, token, site, months string) (*comparisonResult, error) {
	loc, err := time.LoadLocation(bench.Timezone)
	if err != nil {
		return nil, err
	}
	if err := putBudgetSite(ctx, db, reg, o.year, site, loc); err != nil {
		return nil, err
	}
	res := &comparisonResult{path: fmt.Sprintf("/v1/sites/%s/yearly-elec-energies-comparisons?years=%d", site, o.year)}
	if err := res.check(client, coldURL+res.path, token); err != nil {
		return nil, err
	}
	if _, err := timeRequests(client, cachedURL+res.path, token, 1, "MISS"); err != nil { // fills the cache
		return nil, err
	}
	logf("comparison: %d computed requests, %d after a weather change and %d MONTHS requests in %d rounds...", o.runs, o.runs, o.runs, rounds)
	for round := range rounds {
		n := o.runs/rounds + boolInt(round < o.runs%rounds)
		cold, err := timeRequests(client, coldURL+res.path, token, n, "MISS")
		if err != nil {
			return nil, err
		}
		res.cold = append(res.cold, cold...)
		for range n {
			means.Purge()
			fresh, err := timeRequests(client, coldURL+res.path, token, 1, "MISS")
			if err != nil {
				return nil, err
			}
			res.fresh = append(res.fresh, fresh...)
		}
		m, err := timeRequests(client, coldURL+months, token, n, "MISS")
		if err != nil {
			return nil, err
		}
		res.months = append(res.months, m...)
	}
	logf("comparison: %d cached requests...", o.cachedRuns)
	if res.cached, err = timeRequests(client, cachedURL+res.path, token, o.cachedRuns, "HIT"); err != nil {
		return nil, err
	}
	c50, f50, m50 := percentile(res.cold, 50), percentile(res.fresh, 50), percentile(res.months, 50)
	logf("comparison computed p50 %s (%.2f× MONTHS %s); after a weather change %s (%.2f×)", ms(c50), ratio(c50, m50), ms(m50), ms(f50), ratio(f50, m50))
	return res, nil
}

// check gets the comparison once: one item whose year has energy.
func (res *comparisonResult) check(client *http.Client, url, token string) error {
	st, body, _, err := get(client, url, token)
	if err != nil {
		return err
	}
	if st != http.StatusOK {
		return fmt.Errorf("comparison: %w: %d %s", errBadAnswer, st, body)
	}
	var items []struct {
		CurrentYear, PreviousYear struct {
			Consumption struct{ Energy *float64 }
		}
		WeatherImpactMessageCode string
	}
	if err := json.Unmarshal(body, &items); err != nil {
		return err
	}
	if len(items) != 1 || items[0].CurrentYear.Consumption.Energy == nil {
		return fmt.Errorf("comparison: %w: %s", errBadAnswer, body)
	}
	res.bodyBytes, res.energy, res.energy0 = len(body), items[0].CurrentYear.Consumption.Energy, items[0].PreviousYear.Consumption.Energy
	res.weatherCode = items[0].WeatherImpactMessageCode
	return nil
}

// markdown is the comparison's table, under the consumption tables.
func (res *comparisonResult) markdown(year int) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	c50, m50 := percentile(res.cold, 50), percentile(res.months, 50)
	previous := "null (the data set holds one year)"
	if res.energy0 != nil {
		previous = fmt.Sprintf("%.0f Wh", *res.energy0)
	}
	code := res.weatherCode
	if code == "" {
		code = "none"
	}
	f50 := percentile(res.fresh, 50)
	w("\nYearly comparison of the same site, `years=%d` (%d against %d: two periods, each one step of energy and cost, and the degree days of the site's station "+
		"with hourly weather over both years; readings only in %d): %.0f Wh against %s, weather impact %s. *Computed*: result cache disabled, %d runs, the station's daily means "+
		"in their cache (kept until the tenant's next weather, site or tariff change; one station serves many sites); *after a weather change*: the same with the daily-means cache "+
		"emptied before each of %d runs; both alternating in %d rounds with as many computed MONTHS requests over the year; *cached*: %d runs.\n\n",
		year, year, year-1, year, *res.energy, previous, code, len(res.cold), len(res.fresh), rounds, len(res.cached))
	w("| request | body | computed p50 | computed p99 | after a weather change p50 | after a weather change p99 | MONTHS computed p50 | computed / MONTHS | after a weather change / MONTHS | cached p50 | cached p99 |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	w("| comparison, 2 years | %s | %s | %s | %s | %s | %s | %.2f× | %.2f× | %s | %s |\n", kib(int64(res.bodyBytes)), ms(c50), ms(percentile(res.cold, 99)),
		ms(f50), ms(percentile(res.fresh, 99)), ms(m50), ratio(c50, m50), ratio(f50, m50), ms(percentile(res.cached, 50)), ms(percentile(res.cached, 99)))
	w("\nTargets (2 cores): comparison computed p50 ≤ 2× MONTHS computed p50 %s, cached p50 ≤ 1 ms %s.\n",
		mark(float64(c50) <= targetComparisonVsMonths*float64(m50)), mark(percentile(res.cached, 50) <= targetCachedP50))
	w("\ncomparison-ratio computed/MONTHS=%.2f after-weather-change/MONTHS=%.2f\n", ratio(c50, m50), ratio(f50, m50))
	return b.String()
}
