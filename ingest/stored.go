package ingest

import (
	"context"
	"sort"
	"time"

	"energy/schema"
	"energy/schema/sitedata"
	"energy/schema/tables"
)

// distributorNatures are the natures read by the network operator.
var distributorNatures = map[string]bool{"MKT_SMART_DISTRIBUTOR": true, "MKT_CYCLIC_DISTRIBUTOR": true}

// readingKey is one index reading's identity (a smart index's dials share it).
type readingKey struct {
	site, pod         string
	ts, gen           int64
	indexBeforeChange bool
	nature            string
}

// storedData lists the job's sites with the distributor readings that are new, looked up
// before the rows are inserted. Rows this same job stored before a crash count as new: the
// job's events were not recorded then.
func storedData(ctx context.Context, db *schema.DB, tenantID, jobID string, files []Rows) (sitedata.Stored, error) {
	out := sitedata.Stored{TenantID: tenantID, JobID: jobID}
	candidates := map[readingKey]bool{}
	var sites []string
	var lo, hi time.Time
	add := func(k readingKey, ts time.Time) {
		if candidates[k] {
			return
		}
		if len(candidates) == 0 || ts.Before(lo) {
			lo = ts
		}
		if len(candidates) == 0 || ts.After(hi) {
			hi = ts
		}
		candidates[k] = true
	}
	for _, r := range files {
		for _, x := range r.Elec {
			if distributorNatures[x.Nature] {
				add(readingKey{x.SiteID, x.PodID, x.TS.Unix(), x.GenerationTS.Unix(), x.IndexBeforeChange, x.Nature}, x.TS)
			}
		}
		for _, x := range r.Gas {
			if distributorNatures[x.Nature] {
				add(readingKey{x.SiteID, x.PodID, x.TS.Unix(), x.GenerationTS.Unix(), x.IndexBeforeChange, x.Nature}, x.TS)
			}
		}
	}
	sites = sitesOf(files)
	if len(candidates) > 0 {
		for _, table := range []string{tables.ElecIndexes, tables.GasIndexes} {
			// table is one of two constants; every value is bound.
			rows, err := db.Conn.Query(ctx, "SELECT DISTINCT "+tables.List(tables.SiteID, tables.PodID, tables.TS, tables.GenerationTS, tables.IndexBeforeChange, tables.Nature)+
				" FROM "+table+" WHERE "+tables.TenantID+" = ? AND has(?, "+tables.SiteID+") AND "+tables.TS+" >= ? AND "+tables.TS+" <= ? AND has(?, "+tables.Nature+
				") AND "+tables.JobID+" != ?",
				tenantID, sites, lo, hi, []string{"MKT_SMART_DISTRIBUTOR", "MKT_CYCLIC_DISTRIBUTOR"}, jobID)
			if err != nil {
				return out, err
			}
			for rows.Next() {
				var k readingKey
				var ts, gen time.Time
				var ibc uint8
				if err := rows.Scan(&k.site, &k.pod, &ts, &gen, &ibc, &k.nature); err != nil {
					rows.Close()
					return out, err
				}
				k.ts, k.gen, k.indexBeforeChange = ts.Unix(), gen.Unix(), ibc != 0
				delete(candidates, k)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return out, err
			}
		}
	}
	bySite := map[string]map[int64]bool{}
	for k := range candidates {
		if bySite[k.site] == nil {
			bySite[k.site] = map[int64]bool{}
		}
		bySite[k.site][k.ts] = true
	}
	for _, site := range sites {
		s := sitedata.Site{SiteID: site}
		for ts := range bySite[site] {
			s.NewDistributorReadings = append(s.NewDistributorReadings, time.Unix(ts, 0).UTC())
		}
		sort.Slice(s.NewDistributorReadings, func(i, j int) bool { return s.NewDistributorReadings[i].Before(s.NewDistributorReadings[j]) })
		out.Sites = append(out.Sites, s)
	}
	return out, nil
}
