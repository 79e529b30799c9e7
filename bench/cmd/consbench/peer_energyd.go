package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"energy/bench/daemon"
)

// energydProcess is energyd run as its own process over the benchmark's ClickHouse, as
// dashboards meet it: the binary built from this checkout, the result cache off, no rate limit
// (the rounds send more than a token's default 50 a second), its CPU profile served on loopback.
type energydProcess struct {
	url      string // http://127.0.0.1:PORT
	pprofURL string // http://127.0.0.1:PORT/debug/pprof/
	proc     *daemon.Process
	logPath  string
}

// startEnergyd builds and starts energyd on dsn (its queries logged to system.query_log) and
// waits for /readyz. stop ends it and removes its directory (data dir and log).
func startEnergyd(ctx context.Context, dsn string) (e *energydProcess, stop func(), err error) {
	pprofPort, err := daemon.FreePort()
	if err != nil {
		return nil, nil, err
	}
	pprofAddr := "127.0.0.1:" + strconv.Itoa(pprofPort)
	d, cleanup, err := daemon.New(ctx, daemon.Setup{Name: "consbench-energyd", Extra: []string{
		"--clickhouse-dsn", withSetting(dsn, "log_queries", "1"),
		"--cache-entries", "0",
		"--rate-limit", "off",
		"--pprof-listen", pprofAddr,
	}})
	if err != nil {
		return nil, nil, err
	}
	proc, err := d.Start()
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	stop = func() { proc.Stop(); cleanup() }
	if _, err := d.WaitReady(ctx, proc, 5*time.Minute); err != nil {
		stop()
		return nil, nil, err
	}
	return &energydProcess{url: d.API, pprofURL: "http://" + pprofAddr + "/debug/pprof/", proc: proc, logPath: d.LogPath}, stop, nil
}

// cpu is the CPU time (user + system) energyd's process has used so far, from /proc: ticks of
// 10 ms, enough for batches of requests.
func (e *energydProcess) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.proc.Pid()))
	if err != nil {
		return 0, err
	}
	// The fields after the command name (which may hold spaces) in its parentheses: utime and
	// stime are the 14th and 15th of the line, the 12th and 13th after ")".
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", e.proc.Pid(), len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", e.proc.Pid(), fields[11], fields[12])
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// clockTicks is the kernel's USER_HZ, the unit of /proc's CPU times (100 on Linux's every
// architecture Go supports).
const clockTicks = 100
