package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// The deploy/ examples cannot run here (no Docker engine), so this test keeps them consistent
// with the code: every ENERGY_* variable they set is one that energyd or energyctl reads, and
// every metric the Grafana dashboard queries is one that the code exposes.
func TestDeployExamplesUseRealSettingsAndMetrics(t *testing.T) {
	source := goSource(t, "../..")
	deploy := map[string]string{}
	err := filepath.WalkDir("../../deploy", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		deploy[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"docker-compose.yml", "k8s/deployment.yaml", "k8s/service.yaml", "k8s/configmap.yaml",
		"clickhouse/config.d/remote_servers.xml", "clickhouse/config.d/macros.xml", "clickhouse/config.d/zookeeper.xml",
		"clickhouse/keeper/keeper_config.xml", "prometheus/prometheus.yml", "prometheus/alerts.yml", "grafana/dashboards/energyd.json"} {
		if _, ok := deploy[filepath.Join("../../deploy", want)]; !ok {
			t.Errorf("deploy/%s is missing", want)
		}
	}

	envVar := regexp.MustCompile(`\bENERGY_[A-Z_]+\b`)
	// A secret read through schema.SecretFromEnv has its _FILE variant too.
	fileVariants := map[string]bool{}
	for _, m := range regexp.MustCompile(`SecretFromEnv\([^,]+, "(ENERGY_[A-Z_]+)"\)`).FindAllStringSubmatch(source, -1) {
		fileVariants[m[1]+"_FILE"] = true
	}
	if !fileVariants["ENERGY_CLICKHOUSE_PASSWORD_FILE"] {
		t.Errorf("found the _FILE variants %v only: the search misses SecretFromEnv's calls", fileVariants)
	}
	for p, text := range deploy {
		for _, v := range envVar.FindAllString(text, -1) {
			if !strings.Contains(source, `"`+v+`"`) && !fileVariants[v] {
				t.Errorf("%s sets %s, which no code reads", p, v)
			}
		}
	}

	dash := deploy["../../deploy/grafana/dashboards/energyd.json"]
	metric := regexp.MustCompile(`\b(energy_[a-z_]+|go_[a-z_]+|process_[a-z_]+)`)
	registered := registeredMetrics(t)
	seen := map[string]bool{}
	for _, m := range metric.FindAllString(dash, -1) {
		if seen[m] {
			continue
		}
		seen[m] = true
		if strings.HasPrefix(m, "energy_") {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count"), "_sum")
			if !strings.Contains(source, `"`+base+`"`) && !registered[base] {
				t.Errorf("the dashboard queries %s, which the code does not expose", m)
			}
		}
	}
	if len(seen) < 10 {
		t.Errorf("the dashboard queries only %d metrics", len(seen))
	}
	// The DSNs parse as the driver reads them (k8s placeholders filled in).
	dsn := regexp.MustCompile(`clickhouse://[^\s"]+`)
	for _, p := range []string{"../../deploy/docker-compose.yml", "../../deploy/docker-compose.cluster.yml", "../../deploy/k8s/deployment.yaml"} {
		found := dsn.FindAllString(deploy[p], -1)
		if len(found) == 0 {
			t.Errorf("%s sets no ClickHouse DSN", p)
		}
		for _, d := range found {
			d = strings.NewReplacer("$(CLICKHOUSE_USER)", "energy", "$(CLICKHOUSE_PASSWORD)", "secret").Replace(d)
			opts, err := clickhouse.ParseDSN(d)
			if err != nil || opts.Auth.Database != "energy" || opts.DialTimeout != 3*time.Second {
				t.Errorf("%s: DSN %s: %v (database %q)", p, d, err, opts.Auth.Database)
			}
		}
	}
	// The cluster example and the migrations agree on the cluster name and the macros.
	if !strings.Contains(deploy["../../deploy/clickhouse/config.d/remote_servers.xml"], "<energy>") ||
		!strings.Contains(deploy["../../deploy/k8s/configmap.yaml"], "ENERGY_CLICKHOUSE_CLUSTER: energy") {
		t.Error("the cluster of remote_servers.xml is not the one the ConfigMap names")
	}
	for _, macro := range []string{"<shard>", "<replica>"} {
		if !strings.Contains(deploy["../../deploy/clickhouse/config.d/macros.xml"], macro) {
			t.Errorf("macros.xml lacks %s, which the Replicated engines' paths use", macro)
		}
	}
	// The compose cluster: each node mounts its own macros, which place it where
	// remote_servers.xml lists it (ch-1, ch-2 in shard 01; ch-3, ch-4 in shard 02).
	compose := deploy["../../deploy/docker-compose.cluster.yml"]
	for i, shard := range []string{"01", "01", "02", "02"} {
		node := fmt.Sprintf("ch-%d", i+1)
		m := deploy["../../deploy/clickhouse/macros/"+node+".xml"]
		if !strings.Contains(m, "<shard>"+shard+"</shard>") || !strings.Contains(m, "<replica>"+node+"</replica>") {
			t.Errorf("clickhouse/macros/%s.xml does not place %s in shard %s:\n%s", node, node, shard, m)
		}
		if !strings.Contains(compose, "./clickhouse/macros/"+node+".xml:/etc/clickhouse-server/config.d/macros.xml") {
			t.Errorf("docker-compose.cluster.yml does not give %s its macros", node)
		}
		if !strings.Contains(deploy["../../deploy/clickhouse/config.d/remote_servers.xml"], "<host>"+node+"</host>") {
			t.Errorf("remote_servers.xml does not list %s", node)
		}
	}
}

// registeredMetrics are the names of the series in the default registry: this test binary
// links energyd's packages, which register their series when loaded (a name built from parts,
// as a result cache's, is found here rather than in the source).
func registeredMetrics(t *testing.T) map[string]bool {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	return names
}

// goSource concatenates the module's non-test Go files.
func goSource(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "var" || d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
