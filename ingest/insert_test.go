package ingest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The rows of two files, sent as 3 concurrent INSERTs of blocks of 2 rows (several Flushes in
// one INSERT, row ranges across files), are stored exactly, column by column.
func TestInsertRowsInBlocks(t *testing.T) {
	env := newJobEnv(t)
	defer func(blockRows, streams, streamRows int) {
		insertBlockRows, insertStreams, minStreamRows = blockRows, streams, streamRows
	}(insertBlockRows, insertStreams, minStreamRows)
	insertBlockRows, insertStreams, minStreamRows = 2, 3, 1
	second := strings.ReplaceAll(readingsFile, "2024-02-01T00:30:00+01:00", "2024-02-01T02:00:00+01:00")
	var files []Rows
	for _, body := range []string{readingsFile, second} {
		rows, rep := decodeText(t, "readings.json", body)
		if rep.NbOperationsOK != 4 {
			t.Fatalf("report %+v", rep)
		}
		files = append(files, rows)
	}
	ctx := context.Background()
	seen := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := insertRows(ctx, env.db, "acme", "job-1", files, seen); err != nil {
		t.Fatal(err)
	}
	env.wantCounts(map[string]uint64{"elec_indexes": 2, "gas_indexes": 1, "max_powers": 1, "load_curve_points": 4, "pods": 3})
	query := func(q string) string {
		t.Helper()
		rows, err := env.db.Conn.Query(ctx, "SELECT toString(tuple(*)) AS line FROM ("+q+")")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return strings.Join(out, "\n")
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT tenant_id, site_id, pod_id, toString(ts), index_before_change, nature, toString(generation_ts), dial, value, job_id FROM elec_indexes FINAL ORDER BY dial",
			"('acme','S1','PDL-1','2024-02-01 00:00:00',0,'MKT_SMART_DISTRIBUTOR','2024-02-01 04:00:00','1',100000,'job-1')\n" +
				"('acme','S1','PDL-1','2024-02-01 00:00:00',0,'MKT_SMART_DISTRIBUTOR','2024-02-01 04:00:00','2',200000,'job-1')"},
		{"SELECT tenant_id, site_id, pod_id, toString(ts), index_before_change, nature, toString(generation_ts), value, unit, conversion_units, conversion_factors, job_id FROM gas_indexes FINAL",
			"('acme','S1','GAS-1','2024-01-31 23:00:00',0,'MKT_CYCLIC_DISTRIBUTOR','2024-02-01 06:00:00',12345,'m3',['kWh'],[11.2],'job-1')"},
		{"SELECT tenant_id, site_id, pod_id, toString(ts), toString(generation_ts), value, job_id FROM max_powers FINAL",
			"('acme','S2','PDL-2','2024-02-01 00:00:00','2024-02-02 00:00:00',6000,'job-1')"},
		{"SELECT tenant_id, site_id, pod_id, toString(begin_ts), toString(end_ts), toString(generation_ts), value, reliability, toString(meter_reading_date), job_id FROM load_curve_points FINAL ORDER BY begin_ts",
			"('acme','S1','PDL-1','2024-01-31 23:00:00','2024-01-31 23:30:00','2024-02-02 01:00:00',500,0,'2024-02-01','job-1')\n" +
				"('acme','S1','PDL-1','2024-01-31 23:30:00','2024-02-01 00:00:00','2024-02-02 01:00:00',700,1,'2024-02-01','job-1')\n" +
				"('acme','S1','PDL-1','2024-02-01 00:00:00','2024-02-01 00:30:00','2024-02-02 01:00:00',650,0,'2024-02-01','job-1')\n" +
				"('acme','S1','PDL-1','2024-02-01 01:00:00','2024-02-01 01:30:00','2024-02-02 01:00:00',700,1,'2024-02-01','job-1')"},
		{"SELECT tenant_id, site_id, pod_id, fluid, toString(first_seen_ts) FROM pods FINAL ORDER BY pod_id",
			"('acme','S1','GAS-1','GAS','2024-03-01 12:00:00')\n('acme','S1','PDL-1','ELEC','2024-03-01 12:00:00')\n('acme','S2','PDL-2','ELEC','2024-03-01 12:00:00')"},
	} {
		if got := query(c.q); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.q, got, c.want)
		}
	}
}
