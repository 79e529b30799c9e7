# The two commands: `make run` (a demo service with its embedded ClickHouse) and `make test`.
GO        ?= go
TEST_TIMEOUT ?= 10m
PKGS      ?= ./...

.PHONY: build test test-compat fuzz libchdb lint openapi run stop clean cluster cluster-stop test-cluster

build:
	$(GO) build -o bin/ ./cmd/...

# Every test against a real ClickHouse (see schema/chtest); prints go test's per-package lines,
# the failures and a closing "N passed, N failed, N skipped" line.
test:
	TEST_TIMEOUT=$(TEST_TIMEOUT) bash scripts/test.sh $(PKGS)

# The version matrix: the schema, ingest and query tests again, each test database also built on
# ClickHouse 26.x in-process (libchdb) and every read replayed on both versions (schema/chtest);
# consbench's tests too, whose benchmark data (a year of hourly decimal temperatures) the query
# tests' small cases do not match.
test-compat:
	ENERGY_COMPAT_CHECK=1 TEST_LOG=var/test-compat.log TEST_TIMEOUT=$(TEST_TIMEOUT) bash scripts/test.sh ./schema/... ./ingest/... ./query/... ./bench/cmd/consbench
	@grep -h '^ClickHouse 18.16 vs 26.x' var/test-compat.log || true

# Every fuzz target for FUZZTIME each (found by name, so a new target is fuzzed too); see
# scripts/fuzz.sh for what counts as a failure.
FUZZTIME ?= 10s
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash scripts/fuzz.sh

# Unpacks libchdb (ClickHouse 26.x as a library, ~560 MB) under /var/cache/energy-chdb once.
libchdb:
	bash scripts/libchdb.sh

lint:
	@out="$$(gofmt -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff
	$(GO) tool staticcheck ./...

# The deployment examples, offline: the alerting rules load and pass their promtool unit tests
# (each alert fires and stays silent where it should), the scrape configuration loads, and
# every Kubernetes manifest under deploy/k8s (energyd, monitoring, the ClickHouse operator's
# resources, the example Secrets) validates strictly against the schemas kept in deploy/schemas
# (kubeconform, pinned in go.mod). Needs promtool (Debian package prometheus).
KUBECONFORM_SCHEMAS = deploy/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json
.PHONY: lint-deploy
lint-deploy:
	promtool check rules deploy/prometheus/alerts.yml
	cd deploy/prometheus && promtool test rules alerts_test.yml
	promtool check config deploy/prometheus/prometheus.yml
	$(GO) tool kubeconform -strict -summary -skip Kustomization -schema-location '$(KUBECONFORM_SCHEMAS)' deploy/k8s

# Lints both committed OpenAPI descriptions with Redocly's recommended rules (accepted findings,
# each with its reason, in .redocly.lint-ignore.yaml); needs npx (Debian package npm).
REDOCLY ?= @redocly/cli@2.77.0
.PHONY: lint-openapi
lint-openapi:
	npx --yes $(REDOCLY) lint apidocs/openapi.yaml apidocs/openapi-advice.yaml

# Regenerates the committed OpenAPI descriptions from the code, then the Go clients from them
# (apidocs/client, apidocs/adviceclient: oapi-codegen, pinned as a tool in go.mod).
openapi:
	$(GO) test ./apidocs -run '^TestOpenAPI' -count=1 -update
	$(GO) generate ./apidocs/client ./apidocs/adviceclient

# Rewrites the golden consumption answers (query/consumption/testdata/answers) from the code:
# only when an answer is meant to change; review the diff before committing.
.PHONY: golden
golden:
	$(GO) test ./query/consumption -run '^TestAnswersUnchangedOnBenchData$$' -count=1 -update

# Installs what is missing, starts energyd with its embedded ClickHouse under ./var and creates
# a demo tenant, token, tariff, station and site (see scripts/run.sh).
run:
	bash scripts/run.sh

stop:
	bash scripts/run.sh stop

# End-to-end time of the two largest allowed archives through a launched energyd, against
# clickhouse-client loading the same rows, and against a second energyd whose database has no
# by-site copy of the indexes (what the copy costs ingest); about 2 minutes; writes
# bench/results/ingest.md.
.PHONY: bench-ingest
bench-ingest:
	$(GO) run ./bench/ingest --runs 5 --out bench/results/ingest.md

# Reads during ingest: dashboards poll computed (cache off) and cached consumption answers of a
# 200-site data set, 60 s idle, then 60 s while 4 uploaders replay the two largest archives;
# read p50/p99 idle vs under ingest, ingest rows/s, failed requests (about 3 minutes in all);
# writes bench/results/mixed.md.
.PHONY: bench-mixed
bench-mixed:
	$(GO) run ./bench/ingest --mixed --out bench/results/mixed.md

# Cluster against single node: one ClickHouse, then a local cluster (2 shards x 2 replicas and
# ZooKeeper on ports 29101-29114 and 29182, so that it does not meet `make cluster`'s), each
# launched by the benchmark: 16 concurrent archives through 1 energyd (and 2 on the cluster),
# then consumption latency (DAYS/MONTHS/HOURS of a year, computed and cached) on 200 sites;
# writes bench/results/cluster.md. Needs Debian's zookeeper (like make cluster).
.PHONY: bench-cluster
bench-cluster:
	$(GO) run ./bench/ingest --cluster --out bench/results/cluster.md

# Consumption endpoint on 1,000 sites × one year: computed vs cached vs direct SQL latency and
# cached throughput (a Go generator, and Debian's wrk, installed when absent and run as root);
# the data set is generated once under var/bench; writes bench/results/consumption.md.
.PHONY: bench wrk
bench: wrk clickhouse-server
	$(GO) run ./bench/cmd/consbench --out bench/results/consumption.md

wrk:
	@command -v wrk >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then echo "installing wrk"; export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq wrk >/dev/null; \
	  else echo "wrk is not installed (apt-get install wrk): cached throughput by the Go generator only"; fi; }

# Tariff simulation: 10 candidates over one site-year of 30-minute load curve, computed and
# cached, on a ClickHouse the benchmark launches under var/bench-simulation (about a minute);
# writes bench/results/simulation.md.
.PHONY: bench-simulation
bench-simulation: clickhouse-server
	$(GO) run ./bench/cmd/simbench --out bench/results/simulation.md

# The yearly comparison's row of make bench alone (computed with the stations' daily means cached
# and after a weather change, against MONTHS, and cached; about 20 s on the reused data set);
# writes bench/results/comparison.md.
.PHONY: bench-comparison
bench-comparison:
	$(GO) run ./bench/cmd/consbench --comparison-only --out bench/results/comparison.md

# energyd's CPU per computed DAYS and MONTHS year answer from the daily table, through the whole
# serving chain (cache off, as make bench-pg asks): BenchmarkDailyPathAnswer in apidocs, 20 sites
# on a ClickHouse of its own, 500 answers each; prints ns/op, cpu-ns/op (this process only),
# B/op, allocs/op and writes no file. About a minute.
.PHONY: bench-daily-answer
bench-daily-answer:
	$(GO) test -count=1 -run '^$$' -bench BenchmarkDailyPathAnswer -benchtime 500x ./apidocs

# energyd's CPU per computed HOURS answer (the 1,200-hour window of one benchmark site, 2,400
# points) through the whole serving chain, cache off, collector paced as energyd paces it:
# BenchmarkHoursAnswerComputed in apidocs on a ClickHouse of its own, 300 answers; prints ns/op,
# cpu-ns/op (this process only), B/op, allocs/op and writes no file. About 20 s.
.PHONY: bench-hours-answer
bench-hours-answer:
	$(GO) test -count=1 -run '^$$' -bench BenchmarkHoursAnswerComputed -benchtime 300x ./apidocs

# What one site's read costs ClickHouse whatever its size (SELECT 1, 4 rows, the engine's DAYS-year
# read, the year flat, a pre-computed daily energy table built for the run): server time and read
# rows from system.query_log, client time through clickhouse-go; about a minute on the reused data
# set. Writes bench/results/read-floor.md.
.PHONY: bench-read-floor
bench-read-floor: clickhouse-server
	$(GO) run ./bench/cmd/consbench --read-floor --runs 60 --out bench/results/read-floor.md

# The consumption requests at SCALE_SITES fleet sizes (one year each): computed p50/p99, cached
# p50 and ClickHouse's read rows/bytes per request (system.query_log), and how they grow with
# the fleet. Each size's data set is generated once under var/bench-scale/<sites> and reused
# (10,000 sites: 176 M load-curve points, about 0.8 GB on disk). Writes bench/results/scale.md.
SCALE_SITES ?= 100,1000,10000
.PHONY: bench-scale
bench-scale: clickhouse-server
	$(GO) run ./bench/cmd/consbench --scale $(SCALE_SITES) --runs 200 --log-requests 20 --out bench/results/scale.md

# Budget matrix of one heating site-year of the same data set: computed vs cached latency beside
# the model's two reads as direct SQL; writes bench/results/budget.md.
.PHONY: bench-budget
bench-budget:
	$(GO) run ./bench/cmd/consbench --budget --out bench/results/budget.md

# A local ClickHouse cluster on loopback for --clickhouse-cluster energy: ZooKeeper on 29181 and
# four ClickHouse 18.16 nodes (2 shards x 2 replicas) on 29001-29004, data under var/cluster;
# prints the DSNs (also in var/cluster/dsn). cluster-stop stops it.
cluster: build
	bash scripts/cluster.sh start

cluster-stop:
	bash scripts/cluster.sh stop

# The tests again with a launched local cluster as the store (ENERGY_TEST_CLUSTER=1), including
# the cluster-only tests; log in var/test-cluster.log.
CLUSTER_PKGS ?= ./schema/... ./ingest/... ./query/... ./cmd/energyd
test-cluster:
	ENERGY_TEST_CLUSTER=1 TEST_LOG=var/test-cluster.log TEST_TIMEOUT=$(TEST_TIMEOUT) bash scripts/test.sh $(CLUSTER_PKGS)

clean:
	rm -rf bin

# Crash trials on loopback (see bench/chaos): TRIALS kill -9 of energyd at random instants
# during continuous submission, then its embedded ClickHouse frozen and killed under load;
# prints the statuses seen, the times to recover and accepted / lost / duplicated archives
# (exit 1 when anything is lost or duplicated). About 3 minutes for 20 trials; not in make test.
TRIALS ?= 20
.PHONY: chaos
chaos:
	$(GO) run ./bench/chaos --trials $(TRIALS) --out bench/results/chaos.md

# energyd's start after kill -9 as jobs accumulate (10, 100, 1,000; three restarts each, with the
# part directories ClickHouse loads); writes bench/results/restart.md. Not in make test.
.PHONY: bench-restart
bench-restart:
	$(GO) run ./bench/chaos --restart-after 10,100,1000 --out bench/results/restart.md

# SOAK (default 5m) of mixed load on a launched energyd (see bench/soak): consumption readers,
# one archive every 2 s, job polls; prints RSS, goroutines, open files and latencies, and fails
# on a 5xx, RSS over --cache-mb + 150 MB, or goroutine/fd growth. Not in make test.
SOAK ?= 5m
.PHONY: soak
soak:
	$(GO) run ./bench/soak --duration $(SOAK)

# Per-site answers against PostgreSQL: the benchmark's data set loaded again into its ClickHouse
# and into a throwaway PostgreSQL (Debian's postgresql package, installed when absent; initdb in
# a temp dir, port 25432-25439, user postgres when run as root; removed at the end), energyd
# built from the checkout and run as its own process on it (cache off); prints the
# table and a closing "pg-ratio ..." line; writes bench/results/postgres.md. Not part of make test.
# PG_SITES / PG_DIR choose the data set: `make bench-pg PG_SITES=10000 PG_DIR=var/bench-scale/10000
# PG_LOAD= PG_OUT=bench/results/postgres-10000.md` reuses bench-scale's 10,000 sites (PG_LOAD empty:
# no ClickHouse reload; the recorded load time is shown).
# Debian's clickhouse-server, installed when absent (as make run and .ci/run do): the benchmarks
# launch their own server under their data directory.
.PHONY: clickhouse-server
clickhouse-server:
	@command -v clickhouse-server >/dev/null 2>&1 || [ -x /usr/sbin/clickhouse-server ] || { \
	  echo "installing clickhouse-server"; export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq clickhouse-server >/dev/null; }

PG_SITES ?= 1000
PG_DIR   ?= ./var/bench
PG_LOAD  ?= --regenerate
PG_OUT   ?= bench/results/postgres.md
.PHONY: bench-pg
bench-pg: clickhouse-server
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { \
	  echo "installing postgresql"; export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }
	$(GO) run ./bench/cmd/consbench --postgres --sites $(PG_SITES) --dir $(PG_DIR) $(PG_LOAD) --out $(PG_OUT)
