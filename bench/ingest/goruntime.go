package main

import (
	"fmt"
	"math"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// goRuntime is what an energyd's Go runtime has counted since it started, read from its
// /metrics: how long runnable goroutines waited for a processor, and how long the collector
// stopped every goroutine. Two readings a phase apart tell whether slow requests waited for a
// processor or for the collector.
type goRuntime struct {
	waits, gcPauses histogram
}

// The runtime's histograms on /metrics (energyd exports the scheduler's).
const (
	schedWaitsFamily = "go_sched_latencies_seconds"
	gcPausesFamily   = "go_sched_pauses_total_gc_seconds"
)

// histogram is a cumulative Prometheus histogram: counts[i] observations ≤ upper[i].
type histogram struct {
	upper  []float64
	counts []uint64
}

func readGoRuntime(client *http.Client, api string) (goRuntime, error) {
	resp, err := client.Get(api + "/metrics")
	if err != nil {
		return goRuntime{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return goRuntime{}, fmt.Errorf("%s/metrics: %s", api, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return goRuntime{}, fmt.Errorf("%s/metrics: %w", api, err)
	}
	var r goRuntime
	for name, into := range map[string]*histogram{schedWaitsFamily: &r.waits, gcPausesFamily: &r.gcPauses} {
		f := families[name]
		if f == nil || len(f.GetMetric()) != 1 || f.GetMetric()[0].GetHistogram() == nil {
			return goRuntime{}, fmt.Errorf("%s/metrics has no histogram %s", api, name)
		}
		*into = histogramOf(f.GetMetric()[0].GetHistogram())
	}
	return r, nil
}

func histogramOf(h *dto.Histogram) histogram {
	var out histogram
	for _, b := range h.GetBucket() {
		out.upper = append(out.upper, b.GetUpperBound())
		out.counts = append(out.counts, b.GetCumulativeCount())
	}
	return out
}

// since is what h counted after earlier (a reading of the same histogram).
func (h histogram) since(earlier histogram) histogram {
	out := histogram{upper: h.upper, counts: make([]uint64, len(h.counts))}
	for i := range h.counts {
		out.counts[i] = h.counts[i]
		if i < len(earlier.counts) {
			out.counts[i] -= earlier.counts[i]
		}
	}
	return out
}

func (h histogram) total() uint64 {
	if len(h.counts) == 0 {
		return 0
	}
	return h.counts[len(h.counts)-1]
}

// quantile is the upper bound of the bucket holding the q-th quantile (0 < q ≤ 1); 0 when
// nothing was counted.
func (h histogram) quantile(q float64) float64 {
	n := h.total()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	for i, c := range h.counts {
		if c >= rank {
			return h.upper[i]
		}
	}
	return math.Inf(1)
}

// over counts the observations above bound (a bucket's upper bound).
func (h histogram) over(bound float64) uint64 {
	for i, u := range h.upper {
		if u >= bound {
			return h.total() - h.counts[i]
		}
	}
	return 0
}

// boundMs writes a bucket's upper bound in milliseconds.
func boundMs(s float64) string {
	switch {
	case s == 0:
		return "0.00 ms"
	case math.IsInf(s, 1):
		return "> the last bucket"
	case s >= 0.01:
		return fmt.Sprintf("≤ %.0f ms", s*1e3)
	default:
		return fmt.Sprintf("≤ %.2f ms", s*1e3)
	}
}

// since is what r counted after earlier.
func (r goRuntime) since(earlier goRuntime) goRuntime {
	return goRuntime{waits: r.waits.since(earlier.waits), gcPauses: r.gcPauses.since(earlier.gcPauses)}
}

// runtimeMarkdown is the table of the uploads' energyd's runtime in each phase.
func runtimeMarkdown(idle, loaded goRuntime) string {
	rows := []struct {
		name string
		of   func(goRuntime) string
	}{
		{"goroutines that waited for a processor", func(r goRuntime) string { return thousandsInt(int(r.waits.total())) }},
		{"wait p99", func(r goRuntime) string { return boundMs(r.waits.quantile(0.99)) }},
		{"wait p99.9", func(r goRuntime) string { return boundMs(r.waits.quantile(0.999)) }},
		{"longest wait", func(r goRuntime) string { return boundMs(r.waits.quantile(1)) }},
		{"waits over 10 ms", func(r goRuntime) string { return thousandsInt(int(r.waits.over(0.01))) }},
		{"collector's stop-the-world pauses", func(r goRuntime) string { return thousandsInt(int(r.gcPauses.total())) }},
		{"pause p99", func(r goRuntime) string { return boundMs(r.gcPauses.quantile(0.99)) }},
		{"longest pause", func(r goRuntime) string { return boundMs(r.gcPauses.quantile(1)) }},
	}
	s := "| energyd taking the uploads and the cached reads: Go runtime | idle | under ingest |\n|---|---:|---:|\n"
	for _, r := range rows {
		s += fmt.Sprintf("| %s | %s | %s |\n", r.name, r.of(idle), r.of(loaded))
	}
	return s
}
