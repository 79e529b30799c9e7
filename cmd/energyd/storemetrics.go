package main

import (
	"context"
	"sync/atomic"
	"time"

	"energy/cmd/internal/buildinfo"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"
)

// storeProbe is energy_store_up: at each scrape, 1 when the store answers a ping within
// storePingTimeout, else 0 (also while energyd still waits for it), so that an alert tells a
// store that stopped answering from an energyd that is down.
type storeProbe struct {
	ping atomic.Pointer[func(context.Context) error]
}

// storePingTimeout bounds a scrape's ping, well under Prometheus's scrape timeout.
const storePingTimeout = 2 * time.Second

// watch makes the probe ping through ping from now on.
func (p *storeProbe) watch(ping func(context.Context) error) { p.ping.Store(&ping) }

func (p *storeProbe) up() float64 {
	ping := p.ping.Load()
	if ping == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), storePingTimeout)
	defer cancel()
	if (*ping)(ctx) != nil {
		return 0
	}
	return 1
}

func (p *storeProbe) gauge() prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "energy_store_up",
		Help: "1 when ClickHouse answered a ping at this scrape, 0 when it did not (or is still awaited).",
	}, p.up)
}

// dataDirUsage exposes the file system of the data directory (archive spool, embedded
// ClickHouse): energy_data_dir_size_bytes and energy_data_dir_free_bytes (what a non-root
// process may still write), read at each scrape; nothing when the directory cannot be read.
type dataDirUsage struct {
	dir        string
	size, free *prometheus.Desc
}

func newDataDirUsage(dir string) dataDirUsage {
	return dataDirUsage{dir: dir,
		size: prometheus.NewDesc("energy_data_dir_size_bytes", "Size of the file system holding the data directory.", nil, nil),
		free: prometheus.NewDesc("energy_data_dir_free_bytes", "Bytes energyd may still write on the file system holding the data directory.", nil, nil),
	}
}

func (d dataDirUsage) Describe(ch chan<- *prometheus.Desc) { ch <- d.size; ch <- d.free }

func (d dataDirUsage) Collect(ch chan<- prometheus.Metric) {
	var st unix.Statfs_t
	if err := unix.Statfs(d.dir, &st); err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(d.size, prometheus.GaugeValue, float64(st.Blocks)*float64(st.Bsize))
	ch <- prometheus.MustNewConstMetric(d.free, prometheus.GaugeValue, float64(st.Bavail)*float64(st.Bsize))
}

// exposeServiceMetrics registers energy_build_info, energy_store_up and the data directory's
// usage on /metrics; the returned probe pings the store once it is opened.
func exposeServiceMetrics(dataDir string, build buildinfo.Info) *storeProbe {
	buildinfo.Register(prometheus.DefaultRegisterer, build)
	store := &storeProbe{}
	prometheus.MustRegister(store.gauge(), newDataDirUsage(dataDir))
	return store
}
