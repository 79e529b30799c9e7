// Package buildinfo tells which build of energyd or energyctl runs: the module version and
// the commit Go stamped into the binary (runtime/debug build information), for --version and
// the energy_build_info series.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// stampedVersion and stampedRevision are set with -ldflags -X by a build that has no version
// control information for Go to read (the Dockerfile's, whose context leaves .git out):
//
//	-X energy/cmd/internal/buildinfo.stampedRevision=$(git rev-parse HEAD)
var stampedVersion, stampedRevision string

// Info is what a binary knows of its build.
type Info struct {
	// Version is the main module's version: a tag, a pseudo-version Go derived from the
	// commit, or "(devel)" when built without version control information.
	Version string
	// Revision is the commit the binary was built from, "+dirty" when the work tree had
	// uncommitted changes; "unknown" without version control information.
	Revision  string
	GoVersion string
}

// Read returns this binary's build information: Go's, else what the build stamped.
func Read() Info {
	info := Info{Version: "(devel)", Revision: "unknown", GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info = fromBuildInfo(bi)
	}
	return info.orStamped(stampedVersion, stampedRevision)
}

// orStamped fills what Go's build information lacks with the stamped values.
func (i Info) orStamped(version, revision string) Info {
	if i.Version == "(devel)" && version != "" {
		i.Version = version
	}
	if i.Revision == "unknown" && revision != "" {
		i.Revision = revision
	}
	return i
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Version: "(devel)", Revision: "unknown", GoVersion: bi.GoVersion}
	if bi.Main.Version != "" {
		info.Version = bi.Main.Version
	}
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && info.Revision != "unknown" {
		info.Revision += "+dirty"
	}
	return info
}

// String is the line --version prints: program, version, revision and Go release.
func (i Info) String(program string) string {
	return fmt.Sprintf("%s %s (revision %s, %s)", program, i.Version, i.Revision, i.GoVersion)
}

// Register adds energy_build_info{version, revision, goversion} = 1 to the registry, so that
// a dashboard or an alert tells which build each instance runs.
func Register(reg prometheus.Registerer, i Info) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "energy_build_info",
		Help:        "Always 1; its labels name the running build: module version, VCS revision, Go release.",
		ConstLabels: prometheus.Labels{"version": i.Version, "revision": i.Revision, "goversion": i.GoVersion},
	})
	g.Set(1)
	reg.MustRegister(g)
}
