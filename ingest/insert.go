package ingest

import (
	"context"
	"fmt"
	"time"

	"energy/schema"
)

// Fluids of a point of delivery (pods.fluid).
const (
	fluidElec = "ELEC"
	fluidGas  = "GAS"
)

// insertRows writes a validated archive's rows, one batch per table with explicit columns.
// Each table's sort key is the record's identity, so inserting the same rows again (a job
// re-run after a crash) changes nothing that a FINAL read sees.
func insertRows(ctx context.Context, db *schema.DB, tenantID, jobID string, rows Rows, seen time.Time) error {
	if len(rows.Elec) > 0 {
		err := insertBatch(ctx, db, "elec_indexes",
			"tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id",
			len(rows.Elec), func(i int) []any {
				r := rows.Elec[i]
				return []any{tenantID, r.SiteID, r.PodID, r.TS.UTC(), flag(r.IndexBeforeChange), r.Nature, r.GenerationTS.UTC(), r.Dial, r.Value, jobID}
			})
		if err != nil {
			return err
		}
	}
	if len(rows.Gas) > 0 {
		err := insertBatch(ctx, db, "gas_indexes",
			"tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id",
			len(rows.Gas), func(i int) []any {
				r := rows.Gas[i]
				units, factors := r.ConversionUnits, r.ConversionFactors
				if units == nil {
					units = []string{}
				}
				if factors == nil {
					factors = []float64{}
				}
				return []any{tenantID, r.SiteID, r.PodID, r.TS.UTC(), flag(r.IndexBeforeChange), r.Nature, r.GenerationTS.UTC(), r.Value, r.Unit, units, factors, jobID}
			})
		if err != nil {
			return err
		}
	}
	if len(rows.MaxPowers) > 0 {
		err := insertBatch(ctx, db, "max_powers",
			"tenant_id, site_id, pod_id, ts, generation_ts, value, job_id",
			len(rows.MaxPowers), func(i int) []any {
				r := rows.MaxPowers[i]
				return []any{tenantID, r.SiteID, r.PodID, r.TS.UTC(), r.GenerationTS.UTC(), r.Value, jobID}
			})
		if err != nil {
			return err
		}
	}
	if len(rows.LoadCurvePoints) > 0 {
		err := insertBatch(ctx, db, "load_curve_points",
			"tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id",
			len(rows.LoadCurvePoints), func(i int) []any {
				r := rows.LoadCurvePoints[i]
				return []any{tenantID, r.SiteID, r.PodID, r.BeginTS.UTC(), r.EndTS.UTC(), r.GenerationTS.UTC(), r.Value, r.Reliability, r.MeterReadingDate.UTC(), jobID}
			})
		if err != nil {
			return err
		}
	}
	pods, err := newPods(ctx, db, tenantID, podsOf(rows))
	if err != nil {
		return err
	}
	if len(pods) > 0 {
		return insertBatch(ctx, db, "pods", "tenant_id, site_id, pod_id, fluid, first_seen_ts", len(pods), func(i int) []any {
			p := pods[i]
			return []any{tenantID, p[0], p[1], p[2], stamp(seen)}
		})
	}
	return nil
}

// insertBatch sends n rows to table in one batch and records its latency and row count.
func insertBatch(ctx context.Context, db *schema.DB, table, columns string, n int, row func(i int) []any) error {
	start := time.Now()
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+table+" ("+columns+")")
	if err != nil {
		return fmt.Errorf("insert into %s: %w", table, err)
	}
	for i := 0; i < n; i++ {
		if err := b.Append(row(i)...); err != nil {
			_ = b.Abort()
			return fmt.Errorf("insert into %s: %w", table, err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("insert into %s: %w", table, err)
	}
	insertDuration.WithLabelValues(table).Observe(time.Since(start).Seconds())
	rowsInserted.WithLabelValues(table).Add(float64(n))
	return nil
}

// podsOf lists the distinct (site, pod, fluid) of the rows.
func podsOf(rows Rows) [][3]string {
	seen := map[[3]string]bool{}
	var out [][3]string
	add := func(site, pod, fluid string) {
		k := [3]string{site, pod, fluid}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, r := range rows.Elec {
		add(r.SiteID, r.PodID, fluidElec)
	}
	for _, r := range rows.MaxPowers {
		add(r.SiteID, r.PodID, fluidElec)
	}
	for _, r := range rows.LoadCurvePoints {
		add(r.SiteID, r.PodID, fluidElec)
	}
	for _, r := range rows.Gas {
		add(r.SiteID, r.PodID, fluidGas)
	}
	return out
}

// newPods keeps the pods the tenant does not have yet, so first_seen_ts stays the first.
func newPods(ctx context.Context, db *schema.DB, tenantID string, pods [][3]string) ([][3]string, error) {
	if len(pods) == 0 {
		return nil, nil
	}
	rows, err := db.Conn.Query(ctx, "SELECT site_id, pod_id, fluid FROM pods FINAL WHERE tenant_id = ?", tenantID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	known := map[[3]string]bool{}
	for rows.Next() {
		var k [3]string
		if err := rows.Scan(&k[0], &k[1], &k[2]); err != nil {
			return nil, err
		}
		known[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out [][3]string
	for _, p := range pods {
		if !known[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

func flag(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
