package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The version and revision come from the build information; a modified work tree is told.
func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "energy", Version: "v0.0.0-20261207101500-0123456789ab"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	got := fromBuildInfo(bi)
	want := Info{Version: "v0.0.0-20261207101500-0123456789ab", Revision: "0123456789abcdef+dirty", GoVersion: "go1.26.8"}
	if got != want {
		t.Fatalf("%+v, want %+v", got, want)
	}
	if line := got.String("energyd"); line != "energyd v0.0.0-20261207101500-0123456789ab (revision 0123456789abcdef+dirty, go1.26.8)" {
		t.Errorf("version line %q", line)
	}
	// Without version control information, unless the build stamped it.
	bare := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8"})
	if bare.Version != "(devel)" || bare.Revision != "unknown" {
		t.Errorf("without VCS: %+v", bare)
	}
	if s := bare.orStamped("v1.4.0", "fedcba"); s.Version != "v1.4.0" || s.Revision != "fedcba" {
		t.Errorf("stamped: %+v", s)
	}
	if s := got.orStamped("v1.4.0", "fedcba"); s != got {
		t.Errorf("Go's build information gave way to the stamped values: %+v", s)
	}
}

func TestBuildInfoSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	Register(reg, Info{Version: "v1.2.3", Revision: "abc", GoVersion: "go1.26.8"})
	want := `# HELP energy_build_info Always 1; its labels name the running build: module version, VCS revision, Go release.
# TYPE energy_build_info gauge
energy_build_info{goversion="go1.26.8",revision="abc",version="v1.2.3"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "energy_build_info"); err != nil {
		t.Fatal(err)
	}
}
