package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"energy/bench"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/jackc/pgx/v5"
)

// store is one of the three answering the same per-site requests.
type store int

const (
	storePG store = iota
	storeCH
	storeEnergyd
)

var storeNames = [...]string{"PostgreSQL", "ClickHouse direct SQL", "energyd, cache off"}

// peerRequest is one per-site request kind and what the three stores took for it.
type peerRequest struct {
	name, label string
	times       [3][]time.Duration
	steps       int           // energies compared per round
	energyd     queryLogStats // energyd's ClickHouse queries for this kind, per request
	directSQL   queryLogStats // the direct SQL's, per request
}

// peerScan is one all-sites scan on the two stores.
type peerScan struct {
	label  string
	chSQL  string
	times  [2][]time.Duration // storePG, storeCH
	rows   int
	direct queryLogStats // ClickHouse's query, per run
}

// peerReport is everything the comparison measured.
type peerReport struct {
	*report
	pgVersion string
	pg        pgLoad
	chCurve   uint64 // bytes on disk of load_curve_points, and of elec_indexes with its by-site copy, in ClickHouse
	chIndexes uint64
	requests  []*peerRequest
	scans     []*peerScan
	commit    string
}

// runPostgres is --postgres: the data set in ClickHouse (loaded again, timed) and in a
// throwaway PostgreSQL, the same per-site requests rotated between PostgreSQL, ClickHouse direct
// SQL and energyd without its result cache, every answer compared, then the all-sites scans
// and energyd's ClickHouse work per request from system.query_log.
func runPostgres(ctx context.Context, o options) error {
	r := &peerReport{report: &report{spec: bench.Spec{Sites: o.sites, Year: o.year}, opts: o}, commit: gitCommit()}
	ds, closeAll, err := openDataSet(ctx, o, r.report)
	if err != nil {
		return err
	}
	defer closeAll()
	// The indexes count twice: the raw table and its by-site copy, which the answers read.
	if err := ds.db.Conn.QueryRow(ctx, "SELECT sumIf(bytes_on_disk, table = ?), sumIf(bytes_on_disk, table IN (?, ?)) FROM system.parts WHERE active AND database = currentDatabase()",
		tables.LoadCurvePoints, tables.ElecIndexes, tables.ElecIndexesBySite).Scan(&r.chCurve, &r.chIndexes); err != nil {
		return err
	}

	logf("starting a throwaway PostgreSQL...")
	pg, err := startPostgres(ctx)
	if err != nil {
		return err
	}
	defer pg.stop()
	r.pgVersion = pg.version
	pgConn, err := pgx.Connect(ctx, pg.url())
	if err != nil {
		return err
	}
	defer pgConn.Close(context.Background())
	logf("loading %d sites into PostgreSQL %s...", o.sites, pg.version)
	if r.pg, err = loadPostgres(ctx, pgConn, r.spec); err != nil {
		return err
	}
	logf("PostgreSQL: copied in %.1f s, indexed in %.1f s, analyzed in %.1f s", r.pg.copyTime.Seconds(), r.pg.indexTime.Seconds(), r.pg.analyzeTime.Seconds())

	// energyd's own connection logs its queries to system.query_log; the direct SQL's does not
	// (except in the query-log pass), so that each can be told apart. The token is written
	// before energyd starts: it reads the tokens at start.
	token, _, err := ds.reg.CreateToken(ctx, bench.Tenant, []string{string(registry.ScopeRead)}, 24*time.Hour, "consbench-postgres")
	if err != nil {
		return err
	}
	logf("building and starting energyd (result cache off) over the benchmark's ClickHouse...")
	energyd, stopEnergyd, err := startEnergyd(ctx, ds.dsn)
	if err != nil {
		return err
	}
	defer stopEnergyd()
	logf("energyd pid %d on %s; its CPU profile: go tool pprof %sprofile?seconds=30 (log %s)", energyd.proc.Pid(), energyd.url, energyd.pprofURL, energyd.logPath)
	p := &peers{
		o: o, pg: pgConn, ch: ds.db, client: newClient(4), energyd: energyd, url: energyd.url, token: token,
		dials: benchDialOfHeading(o.year), rng: rand.New(rand.NewPCG(uint64(o.year), uint64(o.sites))),
	}
	if p.loc, err = time.LoadLocation(bench.Timezone); err != nil {
		return err
	}
	if err := p.perSite(ctx, r); err != nil {
		return err
	}
	if err := p.allSites(ctx, r); err != nil {
		return err
	}
	if err := p.queryLog(ctx, r); err != nil {
		return err
	}
	return writeResults(o.out, r.markdown())
}

// peers sends the same requests to the three stores.
type peers struct {
	o       options
	pg      *pgx.Conn
	ch      *schema.DB
	client  *http.Client
	energyd *energydProcess
	url     string
	token   string
	dials   map[string]string
	loc     *time.Location
	rng     *rand.Rand
}

// perSite runs the rounds: in each, a random site's DAYS, MONTHS and HOURS on the three stores,
// the first store changing from round to round, and the three answers compared.
func (p *peers) perSite(ctx context.Context, r *peerReport) error {
	logf("per-site requests: %d rounds of DAYS, MONTHS, HOURS on the three stores...", p.o.pgRounds)
	for round := range p.o.pgRounds {
		site := bench.SiteID(p.rng.IntN(p.o.sites))
		for k, sc := range scenarios(site, p.o.year) {
			if round == 0 {
				r.requests = append(r.requests, &peerRequest{name: sc.name, label: sc.label})
			}
			req := r.requests[k]
			var answers [3][]energyRow
			for j := range 3 {
				st := store((round + j) % 3)
				rows, d, err := p.ask(ctx, st, site, sc)
				if err != nil {
					return fmt.Errorf("%s of %s on %s: %w", sc.name, site, storeNames[st], err)
				}
				req.times[st] = append(req.times[st], d)
				answers[st] = rows
			}
			if len(answers[storeCH]) == 0 {
				return fmt.Errorf("%s of %s: ClickHouse gave no energy", sc.name, site)
			}
			if err := sameEnergies(answers[storePG], answers[storeCH]); err != nil {
				return fmt.Errorf("%s of %s: PostgreSQL and ClickHouse differ: %w", sc.name, site, err)
			}
			if err := sameEnergies(answers[storeEnergyd], answers[storeCH]); err != nil {
				return fmt.Errorf("%s of %s: energyd and the direct SQL differ: %w", sc.name, site, err)
			}
			req.steps = len(answers[storeCH])
		}
	}
	return nil
}

// ask sends one request to one store and returns its energies and the time from sending the
// request to having read the whole answer (decoding into energies is not timed).
func (p *peers) ask(ctx context.Context, st store, site string, sc scenario) ([]energyRow, time.Duration, error) {
	from := time.Date(p.o.year, 1, 1, 0, 0, 0, 0, p.loc)
	to := time.Date(p.o.year+1, 1, 1, 0, 0, 0, 0, p.loc)
	start := time.Now()
	switch st {
	case storePG:
		var rows pgx.Rows
		var err error
		switch sc.name {
		case "DAYS", "MONTHS":
			unit := map[string]string{"DAYS": "day", "MONTHS": "month"}[sc.name]
			rows, err = p.pg.Query(ctx, pgIndexSQL(unit), bench.Tenant, site, from, to)
		default:
			rows, err = p.pg.Query(ctx, pgCurveSQL, bench.Tenant, site, from, from.Add(hoursWindow*time.Hour))
		}
		if err != nil {
			return nil, 0, err
		}
		out, err := pgEnergies(rows)
		return out, time.Since(start), err
	case storeCH:
		rows, err := p.ch.Conn.Query(ctx, sc.sql)
		if err != nil {
			return nil, 0, err
		}
		out, err := chEnergies(rows, p.loc)
		return out, time.Since(start), err
	default:
		status, body, _, err := get(p.client, p.url+sc.path, p.token)
		d := time.Since(start)
		if err != nil {
			return nil, 0, err
		}
		if status != http.StatusOK {
			return nil, 0, fmt.Errorf("%w: %d %s", errBadAnswer, status, body)
		}
		out, err := energydEnergies(body, sc.name == "HOURS", p.dials)
		return out, d, err
	}
}

// hoursWindow is the number of HOURS steps an answer holds at most (the API's window).
const hoursWindow = 1200

// allSites runs the two all-sites monthly scans on both stores, alternating which goes first,
// and compares their answers.
func (p *peers) allSites(ctx context.Context, r *peerReport) error {
	from := time.Date(p.o.year, 1, 1, 0, 0, 0, 0, p.loc)
	to := time.Date(p.o.year+1, 1, 1, 0, 0, 0, 0, p.loc)
	type scanQueries struct {
		label string
		pg    func() (pgx.Rows, error)
		ch    string
	}
	scans := []scanQueries{
		{"all sites × months, load-curve scan", func() (pgx.Rows, error) {
			return p.pg.Query(ctx, pgCurveScanSQL, bench.Tenant, from, to)
		}, chCurveScanSQL(p.o.year)},
		{"all sites × months from indexes (MONTHS semantics)", func() (pgx.Rows, error) {
			return p.pg.Query(ctx, pgIndexScanSQL, bench.Tenant, from, to)
		}, chIndexScanSQL(p.o.year)},
	}
	for _, q := range scans {
		logf("%s: %d runs on each store...", q.label, p.o.scanRuns)
		s := &peerScan{label: q.label, chSQL: q.ch}
		for run := range p.o.scanRuns {
			var answers [2][]energyRow
			for j := range 2 {
				st := store((run + j) % 2)
				start := time.Now()
				var rows []energyRow
				var err error
				if st == storePG {
					var pr pgx.Rows
					if pr, err = q.pg(); err == nil {
						rows, err = pgEnergies(pr)
					}
				} else {
					chRows, qerr := p.ch.Conn.Query(ctx, q.ch)
					if err = qerr; err == nil {
						rows, err = chEnergies(chRows, p.loc)
					}
				}
				if err != nil {
					return fmt.Errorf("%s on %s: %w", q.label, storeNames[st], err)
				}
				s.times[st] = append(s.times[st], time.Since(start))
				answers[st] = rows
			}
			if err := sameEnergies(answers[storePG], answers[storeCH]); err != nil {
				return fmt.Errorf("%s: PostgreSQL and ClickHouse differ: %w", q.label, err)
			}
			s.rows = len(answers[storeCH])
		}
		r.scans = append(r.scans, s)
	}
	return nil
}

// withSetting adds a ClickHouse setting to a DSN (clickhouse-go sends unknown DSN parameters
// as settings of every query).
func withSetting(dsn, name, value string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// logQueries is a context whose ClickHouse queries are written to system.query_log.
func logQueries(ctx context.Context) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"log_queries": 1}))
}
