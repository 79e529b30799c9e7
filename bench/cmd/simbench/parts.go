package main

import (
	"context"
	"time"

	"energy/query/consumption"
	"energy/query/contract"
	"energy/schema"
	"energy/schema/registry"
)

// part is one piece of the computed answer, timed alone.
type part struct {
	name string
	runs []time.Duration
}

// measureParts times, in process: the bare read of the year's points (rows scanned, nothing
// else), the load curve read and priced under the 11 tariffs, and the whole simulation
// without HTTP and JSON.
func measureParts(ctx context.Context, db *schema.DB, reg *registry.Store, year int, loc *time.Location, ids []string, runs int) ([]part, error) {
	site, err := reg.Site(ctx, tenant, siteID)
	if err != nil {
		return nil, err
	}
	start, end := time.Date(year, 1, 1, 0, 0, 0, 0, loc), time.Date(year+1, 1, 1, 0, 0, 0, 0, loc)
	req, err := contract.NewRequest(ctx, reg.Tariff, tenant, loc, start, end, ids)
	if err != nil {
		return nil, err
	}
	own, err := reg.Tariff(ctx, tenant, site.TariffID)
	if err != nil {
		return nil, err
	}
	tariffs := []*registry.Tariff{&own}
	for i := range req.Candidates {
		tariffs = append(tariffs, &req.Candidates[i])
	}
	cons := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	sim := contract.NewEngine(db, reg, cons)
	parts := []part{
		{name: "bare read of the year's 17,520 points (SELECT, rows scanned)"},
		{name: "load curve read, resolved and priced under the 11 tariffs (one pass)"},
		{name: "whole simulation (indexes, max powers, load curve, ranking), no HTTP"},
	}
	steps := []func() error{
		func() error {
			rows, err := db.Conn.Query(ctx, "SELECT pod_id, begin_ts, end_ts, generation_ts, value, reliability FROM load_curve_points WHERE tenant_id = ? AND site_id = ? AND begin_ts >= ? AND begin_ts < ?",
				tenant, siteID, start.UTC(), end.UTC())
			if err != nil {
				return err
			}
			defer rows.Close()
			var pod string
			var b, e, g time.Time
			var v int64
			var r uint8
			for rows.Next() {
				if err := rows.Scan(&pod, &b, &e, &g, &v, &r); err != nil {
					return err
				}
			}
			return rows.Err()
		},
		func() error { _, _, _, err := cons.LoadCurveUnder(ctx, site, start, end, tariffs); return err },
		func() error { _, err := sim.Compute(ctx, site, req); return err },
	}
	for i := -2; i < runs; i++ {
		for k, step := range steps {
			t0 := time.Now()
			if err := step(); err != nil {
				return nil, err
			}
			if i >= 0 {
				parts[k].runs = append(parts[k].runs, time.Since(t0))
			}
		}
	}
	return parts, nil
}
