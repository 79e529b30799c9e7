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

# The version matrix: the schema and query tests again, each test database also built on
# ClickHouse 26.x in-process (libchdb) and every read replayed on both versions (schema/chtest).
test-compat:
	ENERGY_COMPAT_CHECK=1 TEST_LOG=var/test-compat.log TEST_TIMEOUT=$(TEST_TIMEOUT) bash scripts/test.sh ./schema/... ./query/...
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

# Lints both committed OpenAPI descriptions with Redocly's recommended rules (accepted findings,
# each with its reason, in .redocly.lint-ignore.yaml); needs npx (Debian package npm).
REDOCLY ?= @redocly/cli@2.77.0
.PHONY: lint-openapi
lint-openapi:
	npx --yes $(REDOCLY) lint apidocs/openapi.yaml apidocs/openapi-advice.yaml

# Regenerates the committed OpenAPI descriptions from the code.
openapi:
	$(GO) test ./apidocs -run '^TestOpenAPI' -count=1 -update

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
# clickhouse-client loading the same rows; writes bench/results/ingest.md.
.PHONY: bench-ingest
bench-ingest:
	$(GO) run ./bench/ingest --out bench/results/ingest.md

# Consumption endpoint on 1,000 sites × one year: computed vs cached vs direct SQL latency and
# cached throughput; the data set is generated once under var/bench; writes bench/results/consumption.md.
.PHONY: bench
bench:
	$(GO) run ./bench/cmd/consbench --out bench/results/consumption.md

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
	$(GO) run ./bench/chaos --trials $(TRIALS)

# SOAK (default 5m) of mixed load on a launched energyd (see bench/soak): consumption readers,
# one archive every 2 s, job polls; prints RSS, goroutines, open files and latencies, and fails
# on a 5xx, RSS over --cache-mb + 150 MB, or goroutine/fd growth. Not in make test.
SOAK ?= 5m
.PHONY: soak
soak:
	$(GO) run ./bench/soak --duration $(SOAK)

# Per-site answers against PostgreSQL: the benchmark's data set loaded again into its ClickHouse
# and into a throwaway PostgreSQL (Debian's postgresql package, installed when absent; initdb in
# a temp dir, port 25432-25439, user postgres when run as root; removed at the end); prints the
# table and a closing "pg-ratio ..." line; writes bench/results/postgres.md. Not part of make test.
.PHONY: bench-pg
bench-pg:
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { \
	  echo "installing postgresql"; export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }
	$(GO) run ./bench/cmd/consbench --postgres --regenerate --out bench/results/postgres.md
