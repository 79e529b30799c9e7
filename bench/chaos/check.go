package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// verdict is what the store holds against what the clients were told.
type verdict struct {
	sent, accepted int
	// lost: accepted archives whose job is missing, not DONE, or whose rows are not all there.
	lost []string
	// queued: accepted archives whose job is still SUBMITTED or IN_PROGRESS.
	queued int
	// duplicated: rows beyond an archive's own, and jobs beyond one per archive.
	duplicatedRows, duplicatedJobs int
	// unanswered archives (no 200 seen) the server had taken anyway and processed whole; partial
	// ones stored some of their rows only.
	unansweredStored, partial int
	rows, wh                  int64
}

// check waits (within wait) for every accepted archive's job to end, then compares the jobs
// and the stored rows with the ledger: per archive, exactly its 24 rows and their Wh.
func check(ctx context.Context, db *schema.DB, l *ledger, wait time.Duration) (verdict, error) {
	l.mu.Lock()
	accepted := make(map[int]string, len(l.accepted))
	for k, v := range l.accepted {
		accepted[k] = v
	}
	sent := append([]int(nil), l.sent...)
	l.mu.Unlock()
	v := verdict{sent: len(sent), accepted: len(accepted)}

	type jobRow struct{ id, state string }
	var jobs map[string][]jobRow // archive name → its jobs
	deadline := time.Now().Add(wait)
	for {
		jobs = map[string][]jobRow{}
		rows, err := db.Conn.Query(ctx, "SELECT archive, job_id, state FROM "+tables.Jobs+" FINAL WHERE tenant_id = ?", tenant)
		if err != nil {
			return v, err
		}
		pending := 0
		for rows.Next() {
			var archive string
			var j jobRow
			if err := rows.Scan(&archive, &j.id, &j.state); err != nil {
				rows.Close()
				return v, err
			}
			jobs[archive] = append(jobs[archive], j)
			if j.state == "SUBMITTED" || j.state == "IN_PROGRESS" {
				pending++
			}
		}
		rows.Close()
		if pending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}

	type stored struct{ rows, wh int64 }
	got := map[string]stored{}
	rows, err := db.Conn.Query(ctx, "SELECT pod_id, toInt64(count()), sum(value) FROM "+tables.ElecIndexes+" FINAL WHERE tenant_id = ? GROUP BY pod_id", tenant)
	if err != nil {
		return v, err
	}
	for rows.Next() {
		var pod string
		var s stored
		if err := rows.Scan(&pod, &s.rows, &s.wh); err != nil {
			rows.Close()
			return v, err
		}
		got[pod] = s
		v.rows += s.rows
		v.wh += s.wh
	}
	rows.Close()

	sort.Ints(sent)
	for _, seq := range sent {
		name, pod := archiveName(seq), podOf(seq)
		s := got[pod]
		js := jobs[name]
		if len(js) > 1 {
			v.duplicatedJobs += len(js) - 1
		}
		if s.rows > readingsPerArchive {
			v.duplicatedRows += int(s.rows - readingsPerArchive)
		}
		whole := s.rows == readingsPerArchive && s.wh == expectedWh(seq)
		id, ok := accepted[seq]
		if !ok {
			switch {
			case whole:
				v.unansweredStored++
			case s.rows != 0:
				v.partial++
			}
			continue
		}
		var state string
		for _, j := range js {
			if j.id == id {
				state = j.state
			}
		}
		switch {
		case state == "SUBMITTED" || state == "IN_PROGRESS":
			v.queued++
		case state != "DONE" || !whole:
			v.lost = append(v.lost, fmt.Sprintf("%s (job %s %q, %d rows, %d Wh; want DONE, %d rows, %d Wh)",
				name, id, state, s.rows, s.wh, readingsPerArchive, expectedWh(seq)))
		}
	}
	return v, nil
}
