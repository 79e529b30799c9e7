package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

var composeFiles = []string{"docker-compose.yml", "docker-compose.cluster.yml"}

// loadCompose reads a compose file as `docker compose` does (the compose-spec loader: schema
// validation, anchors and merges, interpolation, consistency of volumes, secrets and
// dependencies), with an empty environment.
func loadCompose(t *testing.T, file string) *types.Project {
	t.Helper()
	dir, err := filepath.Abs("../../deploy")
	if err != nil {
		t.Fatal(err)
	}
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, file)}},
		Environment: types.Mapping{},
	})
	if err != nil {
		t.Fatalf("deploy/%s does not load: %v", file, err)
	}
	return p
}

// chdbRelease is the ClickHouse release CI runs the version matrix on (scripts/libchdb.sh's
// libchdb version, as major.minor).
func chdbRelease(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../scripts/libchdb.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version=(\d+\.\d+)\.\d+$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("scripts/libchdb.sh sets no version=X.Y.Z")
	}
	return string(m[1])
}

// composeClickHouseRelease is the ClickHouse release both compose files run (checked by
// TestComposeFiles).
func composeClickHouseRelease(t *testing.T) string {
	t.Helper()
	return chdbRelease(t)
}

// statefulPaths are where each kind of stateful service keeps its data, by image.
var statefulPaths = map[string]string{
	"clickhouse/clickhouse-server": "/var/lib/clickhouse",
	"clickhouse/clickhouse-keeper": "/var/lib/clickhouse",
	"energy":                       "/var/lib/energy",
	"prom/prometheus":              "/prometheus",
	"grafana/grafana":              "/var/lib/grafana",
}

// localServerPorts are the ports a ClickHouse, ClickHouse Keeper or ZooKeeper on the host
// listens on by default: the compose files publish none of them.
var localServerPorts = map[uint32]string{9000: "native", 8123: "HTTP", 9009: "interserver", 9004: "MySQL", 9005: "PostgreSQL",
	9440: "native TLS", 8443: "HTTPS", 9181: "Keeper", 9234: "Keeper Raft", 2181: "ZooKeeper"}

// The compose files, loaded as docker compose loads them (no Docker engine is here to run
// them): one ClickHouse release, the one CI checks, in both; ClickHouse Keeper rather than
// ZooKeeper; every stateful service on a named volume; every service restarted; secrets only
// as files; no published port a local ClickHouse holds.
func TestComposeFiles(t *testing.T) {
	release := chdbRelease(t)
	for _, file := range composeFiles {
		p := loadCompose(t, file)
		servers, keepers := 0, 0
		hostPorts := map[string]string{}
		for name, s := range p.Services {
			image, tag, _ := strings.Cut(s.Image, ":")
			switch image {
			case "clickhouse/clickhouse-server":
				servers++
			case "clickhouse/clickhouse-keeper":
				keepers++
			}
			if strings.HasPrefix(image, "clickhouse/") && tag != release {
				t.Errorf("%s: %s runs %s, want the release CI checks, %s", file, name, s.Image, release)
			}
			if strings.Contains(image, "zookeeper") {
				t.Errorf("%s: %s runs %s: coordinate with ClickHouse Keeper", file, name, s.Image)
			}
			if s.Restart != "unless-stopped" && s.Restart != "always" {
				t.Errorf("%s: %s restarts %q, want unless-stopped", file, name, s.Restart)
			}
			if path, stateful := statefulPaths[image]; stateful {
				onVolume := false
				for _, v := range s.Volumes {
					if v.Target == path && v.Type == types.VolumeTypeVolume {
						if _, declared := p.Volumes[v.Source]; !declared {
							t.Errorf("%s: %s's volume %s is not declared", file, name, v.Source)
						}
						onVolume = true
					}
				}
				if !onVolume {
					t.Errorf("%s: %s keeps %s on no named volume: docker compose down loses it", file, name, path)
				}
			}
			// Secrets only by file: a variable that names a password, token or secret is a
			// _FILE variable pointing at a mounted secret, and no DSN carries a password.
			for k, v := range s.Environment {
				value := ""
				if v != nil {
					value = *v
				}
				if regexp.MustCompile(`PASSWORD|TOKEN|SECRET`).MatchString(k) {
					if !strings.HasSuffix(k, "_FILE") || !strings.HasPrefix(value, "/run/secrets/") {
						t.Errorf("%s: %s sets %s=%q: give a _FILE variable naming a secret under /run/secrets", file, name, k, value)
					}
					secret := strings.TrimPrefix(value, "/run/secrets/")
					mounted := false
					for _, ref := range s.Secrets {
						mounted = mounted || ref.Source == secret
					}
					if !mounted {
						t.Errorf("%s: %s reads %s but does not mount the secret %s", file, name, value, secret)
					}
				}
				if regexp.MustCompile(`://[^/@\s]*:[^/@\s]*@`).MatchString(value) {
					t.Errorf("%s: %s's %s carries credentials in a URL", file, name, k)
				}
			}
			for _, port := range s.Ports {
				if port.Published == "" {
					continue
				}
				published, err := strconv.ParseUint(port.Published, 10, 32)
				if err != nil {
					t.Errorf("%s: %s publishes %q", file, name, port.Published)
					continue
				}
				if what, clash := localServerPorts[uint32(published)]; clash {
					t.Errorf("%s: %s publishes port %d, a local ClickHouse's %s port", file, name, published, what)
				}
				if other, dup := hostPorts[port.Published]; dup {
					t.Errorf("%s: %s and %s both publish %s", file, name, other, port.Published)
				}
				hostPorts[port.Published] = name
				if strings.HasPrefix(image, "clickhouse/") && port.HostIP != "127.0.0.1" {
					t.Errorf("%s: %s publishes %s on every interface, want 127.0.0.1", file, name, port.Published)
				}
			}
		}
		for name, secret := range p.Secrets {
			rel, err := filepath.Rel(filepath.Join(p.WorkingDir, "secrets"), secret.File)
			if secret.File == "" || err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: secret %s is not a file under deploy/secrets (%q)", file, name, secret.File)
			}
		}
		if servers == 0 {
			t.Errorf("%s runs no ClickHouse server", file)
		}
		if file == "docker-compose.cluster.yml" && (servers != 4 || keepers != 3) {
			t.Errorf("%s: %d ClickHouse servers and %d Keepers, want 4 and 3", file, servers, keepers)
		}
	}
	// deploy/secrets holds the secret files: ignored by git, so that none is committed.
	b, err := os.ReadFile("../../deploy/secrets/.gitignore")
	if err != nil || !strings.Contains(string(b), "*\n") {
		t.Errorf("deploy/secrets/.gitignore does not ignore the secret files: %v", err)
	}
}
