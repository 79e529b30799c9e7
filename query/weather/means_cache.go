package weather

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"time"

	"energy/query/cache"
	"energy/schema/registry"
)

// meansCacheMetrics are the series of the stations' daily-means cache.
var meansCacheMetrics = cache.NewMetrics("energy_weather_means_cache", "Stations' daily mean temperatures")

// Bounds of the daily-means cache: an entry is a station's days over a span, 12 bytes a day
// (two years: about 9 KiB).
const (
	MeansCacheEntries = 2000
	MeansCacheBytes   = 32 << 20
)

// CachedMeans serves a station's daily means from a cache of earlier reads of the same span
// and zone. One station serves many sites, and the yearly comparison of every one of them
// reads the same two years: the read (an aggregation over every hourly observation) is the
// largest part of a computed comparison.
//
// Entries follow the tenant's reference version (registry.DataVersions Get(tenant, "")), which
// a weather PUT bumps, like a site or tariff change: the next read after a change of this
// process is fresh, and another process's change (another energyd, energyctl) is seen once the
// data-version watch applies it, as for cached answers.
type CachedMeans struct {
	store   *Store
	results *cache.Results
}

// NewCachedMeans returns store's daily means behind a cache of at most MeansCacheEntries
// spans.
func NewCachedMeans(store *Store, versions *registry.DataVersions) *CachedMeans {
	return &CachedMeans{store: store, results: cache.NewResults(versions, MeansCacheEntries, MeansCacheBytes, meansCacheMetrics)}
}

// DailyMeans is Store.DailyMeans, from the cache when the same station, zone and span were
// read since the tenant's last reference change. The map is the caller's own.
func (c *CachedMeans) DailyMeans(ctx context.Context, tenantID, stationID string, loc *time.Location, from, to time.Time) (map[uint32]float64, error) {
	// Spans are keyed by their instants: a zone name and two Unix times determine the read.
	request := stationID + "\x00" + loc.String() + "\x00" + strconv.FormatInt(from.Unix(), 10) + "\x00" + strconv.FormatInt(to.Unix(), 10)
	b, _, err := c.results.Get(ctx, tenantID, "", request, func(ctx context.Context) ([]byte, error) {
		means, err := c.store.DailyMeans(ctx, tenantID, stationID, loc, from, to)
		if err != nil {
			return nil, err
		}
		return encodeMeans(means), nil
	})
	if err != nil {
		return nil, err
	}
	return decodeMeans(b), nil
}

// Purge empties the cache (benchmarks time the first read after a change with it).
func (c *CachedMeans) Purge() { c.results.Purge() }

// encodeMeans writes the means as (yyyymmdd uint32, mean float64 bits) pairs in day order: the
// exact values, so that answers are those of an uncached read.
func encodeMeans(means map[uint32]float64) []byte {
	days := make([]uint32, 0, len(means))
	for d := range means {
		days = append(days, d)
	}
	slices.Sort(days)
	b := make([]byte, 0, 12*len(days))
	for _, d := range days {
		b = binary.LittleEndian.AppendUint32(b, d)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(means[d]))
	}
	return b
}

func decodeMeans(b []byte) map[uint32]float64 {
	means := make(map[uint32]float64, len(b)/12)
	for ; len(b) >= 12; b = b[12:] {
		means[binary.LittleEndian.Uint32(b)] = math.Float64frombits(binary.LittleEndian.Uint64(b[4:]))
	}
	return means
}
