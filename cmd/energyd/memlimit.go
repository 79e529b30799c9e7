package main

import (
	"bufio"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// setMemoryLimit gives the Go collector a soft limit (debug.SetMemoryLimit). In a container
// with a memory limit it is 90% of that limit: the collector works harder as the heap nears
// it instead of the kernel killing the process, and the rest is left to what the collector
// does not count (stacks, the runtime, C memory). Without one it is the result cache's bound
// plus headroomMB for everything else (requests in flight, jobs decoding an archive, the
// runtime): without a limit at all garbage piles up between collections and the RSS grows far
// past the cache bound under steady traffic. GOMEMLIMIT, when set, is the operator's choice
// and wins. It returns the limit in force, in bytes.
func setMemoryLimit(cacheMB, headroomMB int, container containerLimits, log *slog.Logger) int64 {
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		limit := debug.SetMemoryLimit(-1) // reads without changing it
		log.Info("memory limit from GOMEMLIMIT", "GOMEMLIMIT", v, "bytes", limit)
		return limit
	}
	if container.MemoryBytes > 0 {
		limit := container.MemoryBytes / 10 * 9
		debug.SetMemoryLimit(limit)
		log.Info("memory limit from the container's", "MiB", limit>>20, "containerMiB", container.MemoryBytes>>20)
		if need := int64(cacheMB+headroomMB) << 20; need > limit {
			log.Warn("--cache-mb plus --memory-headroom-mb exceed 90% of the container's memory limit: the collector will run often; raise the limit or lower --cache-mb",
				"cacheMiB", cacheMB, "headroomMiB", headroomMB, "limitMiB", limit>>20)
		}
		return limit
	}
	limit := int64(cacheMB+headroomMB) << 20
	debug.SetMemoryLimit(limit)
	log.Info("memory limit", "MiB", cacheMB+headroomMB, "cacheMiB", cacheMB, "headroomMiB", headroomMB)
	return limit
}

// containerLimits are the limits the process's control group sets: zero when it sets none.
// Go's runtime already sizes GOMAXPROCS from the CPU limit (and so the decode slots, one
// fewer than GOMAXPROCS, follow it); the CPUs are read here to log them beside it.
type containerLimits struct {
	MemoryBytes int64
	CPUs        float64
}

// cgroupRoot and selfCgroup are where Linux shows the control groups and this process's.
const (
	cgroupRoot = "/sys/fs/cgroup"
	selfCgroup = "/proc/self/cgroup"
)

// readContainerLimits reads the memory and CPU limits of the control group that selfCgroup
// names, under root: cgroup v2 (memory.max, cpu.max) or v1 (memory.limit_in_bytes,
// cpu.cfs_quota_us over cpu.cfs_period_us). A container with its own cgroup namespace sees its
// group at the root, so the root's files are read when the named group has none.
func readContainerLimits(root, self string) containerLimits {
	v2, memV1, cpuV1 := "/", "/", "/"
	if f, err := os.Open(self); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), ":", 3)
			if len(parts) != 3 {
				continue
			}
			if parts[0] == "0" && parts[1] == "" {
				v2 = parts[2]
			}
			for _, c := range strings.Split(parts[1], ",") {
				switch c {
				case "memory":
					memV1 = parts[2]
				case "cpu":
					cpuV1 = parts[2]
				}
			}
		}
		f.Close()
	}
	var l containerLimits
	if s, ok := firstFile(filepath.Join(root, v2, "memory.max"), filepath.Join(root, "memory.max"),
		filepath.Join(root, "memory", memV1, "memory.limit_in_bytes"), filepath.Join(root, "memory", "memory.limit_in_bytes")); ok {
		// cgroup v1 says "no limit" with a number near 2^63.
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && n < 1<<62 {
			l.MemoryBytes = n
		}
	}
	if s, ok := firstFile(filepath.Join(root, v2, "cpu.max"), filepath.Join(root, "cpu.max")); ok {
		if quota, period, found := strings.Cut(s, " "); found {
			l.CPUs = ratio(quota, period)
		}
	} else if quota, ok := firstFile(filepath.Join(root, "cpu", cpuV1, "cpu.cfs_quota_us"), filepath.Join(root, "cpu", "cpu.cfs_quota_us")); ok {
		if period, ok := firstFile(filepath.Join(root, "cpu", cpuV1, "cpu.cfs_period_us"), filepath.Join(root, "cpu", "cpu.cfs_period_us")); ok {
			l.CPUs = ratio(quota, period)
		}
	}
	return l
}

// ratio is quota/period, 0 for "max" or a negative quota (no limit).
func ratio(quota, period string) float64 {
	q, err1 := strconv.ParseFloat(quota, 64)
	p, err2 := strconv.ParseFloat(period, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return q / p
}

// firstFile is the trimmed content of the first of paths that can be read.
func firstFile(paths ...string) (string, bool) {
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			return strings.TrimSpace(string(b)), true
		}
	}
	return "", false
}

// logProcessors tells the processors Go runs on and where that comes from.
func logProcessors(container containerLimits, log *slog.Logger) {
	log.Info("processors", "GOMAXPROCS", runtime.GOMAXPROCS(0), "machine", runtime.NumCPU(), "containerCPUs", container.CPUs)
}
