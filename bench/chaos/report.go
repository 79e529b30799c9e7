package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// report prints the run's lines and keeps them, to write them as a markdown results file.
type report struct {
	buf bytes.Buffer
}

func (r *report) printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	fmt.Print(s)
	r.buf.WriteString(s)
}

// write saves the lines under title in path, in a code block after a line that says where and
// when they were measured.
func (r *report) write(path, title, reproduce string) error {
	if path == "" {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n```\n%s```\n\nReproduce: `%s`.\n", title, machine(), r.buf.String(), reproduce)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// machine says where and when the figures were measured: a shared machine makes times long
// and noisy, so its load is part of the result.
func machine() string {
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	cpus := "?"
	if out, err := exec.Command("nproc").Output(); err == nil {
		cpus = strings.TrimSpace(string(out))
	}
	commit := "?"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("%s UTC, commit %s, %s cores, load average %s when the run ended (1, 5, 15 min).",
		time.Now().UTC().Format("2006-01-02 15:04"), commit, cpus, load)
}
