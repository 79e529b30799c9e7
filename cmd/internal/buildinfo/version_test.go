package buildinfo

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Both binaries, built from a clone of the repository (as CI's checkout is), print their
// version and the commit they were built from. A clone, because Go reads no version control
// information in a git worktree (its .git is a file), and with -buildvcs=true, because a
// machine's GOFLAGS may turn it off. Without -trimpath, so that only the module's own
// packages are compiled again (the dependencies' paths, in the module cache, are the same).
func TestVersionFlagOfBothBinaries(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "src")
	if out, err := exec.Command("git", "clone", "-q", "--shared", strings.TrimSpace(string(root)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", clone, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	revision := strings.TrimSpace(string(head))
	line := regexp.MustCompile(`^(energyd|energyctl) (\S+) \(revision ([0-9a-f]{40}), go1\.[0-9.]+\)\n$`)
	for _, program := range []string{"energyd", "energyctl"} {
		bin := filepath.Join(t.TempDir(), program)
		build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/"+program)
		build.Dir = clone
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", program, err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", program, err)
		}
		m := line.FindStringSubmatch(string(out))
		if m == nil || m[1] != program {
			t.Fatalf("%s --version printed %q, want %q", program, out, program+" VERSION (revision COMMIT, goX.Y)")
		}
		if m[3] != revision {
			t.Errorf("%s --version names revision %s, the clone is at %s", program, m[3], revision)
		}
		// Go derives a pseudo-version from the commit (or takes the tag on it).
		if !strings.HasPrefix(m[2], "v") || !strings.Contains(m[2], revision[:12]) && strings.Contains(m[2], "-") {
			t.Errorf("%s --version: version %q, want the module version Go derives from commit %s", program, m[2], revision[:12])
		}
	}
}
