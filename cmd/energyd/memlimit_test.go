package main

import (
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// Without a container limit the soft memory limit is the cache bound plus the headroom; with
// one it is 90% of the container's; GOMEMLIMIT wins over both.
func TestMemoryLimitFollowsTheContainer(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	log := slog.New(slog.DiscardHandler)
	unsetenv(t, "GOMEMLIMIT")
	if got := setMemoryLimit(256, 128, containerLimits{}, log); got != 384<<20 || debug.SetMemoryLimit(-1) != 384<<20 {
		t.Fatalf("no container limit: limit %d (in force %d), want %d", got, debug.SetMemoryLimit(-1), 384<<20)
	}
	if got := setMemoryLimit(256, 128, containerLimits{MemoryBytes: 1 << 30}, log); got != 966367638 || debug.SetMemoryLimit(-1) != got {
		t.Fatalf("1 GiB container: limit %d (in force %d), want 90%% of 1 GiB, 966367638", got, debug.SetMemoryLimit(-1))
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30) // what the runtime read from GOMEMLIMIT at start
	if got := setMemoryLimit(256, 128, containerLimits{MemoryBytes: 512 << 20}, log); got != 1<<30 {
		t.Fatalf("with GOMEMLIMIT=1GiB the limit is %d, want %d", got, 1<<30)
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The limits are read from a fake cgroup tree as Linux lays it out: v2 in a container (its
// group at the root), v2 on a host (the process's group below the root), v1, and none.
func TestContainerLimitsFromCgroups(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  containerLimits
	}{
		{"v2 container", map[string]string{"self": "0::/\n", "fs/memory.max": "1073741824\n", "fs/cpu.max": "200000 100000\n"},
			containerLimits{MemoryBytes: 1 << 30, CPUs: 2}},
		{"v2 host group", map[string]string{"self": "0::/system.slice/energyd.service\n",
			"fs/memory.max": "max\n", "fs/cpu.max": "max 100000\n",
			"fs/system.slice/energyd.service/memory.max": "536870912\n", "fs/system.slice/energyd.service/cpu.max": "150000 100000\n"},
			containerLimits{MemoryBytes: 512 << 20, CPUs: 1.5}},
		{"v2 unlimited", map[string]string{"self": "0::/\n", "fs/memory.max": "max\n", "fs/cpu.max": "max 100000\n"},
			containerLimits{}},
		{"v1", map[string]string{"self": "4:memory:/kubepods/pod1/c1\n1:cpu,cpuacct:/kubepods/pod1/c1\n0::/\n",
			"fs/memory/kubepods/pod1/c1/memory.limit_in_bytes": "2147483648\n",
			"fs/cpu/kubepods/pod1/c1/cpu.cfs_quota_us":         "50000\n", "fs/cpu/kubepods/pod1/c1/cpu.cfs_period_us": "100000\n"},
			containerLimits{MemoryBytes: 2 << 30, CPUs: 0.5}},
		{"v1 unlimited", map[string]string{"self": "4:memory:/\n1:cpu:/\n",
			"fs/memory/memory.limit_in_bytes": "9223372036854771712\n", "fs/cpu/cpu.cfs_quota_us": "-1\n", "fs/cpu/cpu.cfs_period_us": "100000\n"},
			containerLimits{}},
		{"no cgroup file system", map[string]string{}, containerLimits{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			if got := readContainerLimits(filepath.Join(dir, "fs"), filepath.Join(dir, "self")); got != c.want {
				t.Errorf("%+v, want %+v", got, c.want)
			}
		})
	}
}

// Under a soft memory limit the collector lets the heap grow to five times what is live (GOGC
// 400), the limit bounding it; without a limit Go's default 100 stays; GOGC, when set, wins.
func TestGCPercentFollowsTheMemoryLimit(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	log := slog.New(slog.DiscardHandler)
	unsetenv(t, "GOGC")
	if got := setGCPercent(384<<20, log); got != 400 || readGCPercent() != 400 {
		t.Fatalf("384 MiB limit: GOGC %d (in force %d), want 400", got, readGCPercent())
	}
	if got := setGCPercent(math.MaxInt64, log); got != 100 || readGCPercent() != 100 {
		t.Fatalf("no limit: GOGC %d (in force %d), want 100", got, readGCPercent())
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50) // what the runtime read from GOGC at start
	if got := setGCPercent(384<<20, log); got != 50 || readGCPercent() != 50 {
		t.Fatalf("GOGC=50: GOGC %d (in force %d), want 50", got, readGCPercent())
	}
}

func readGCPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}
