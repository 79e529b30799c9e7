package main

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

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

// over counts the observations above bound (a bucket's upper bound).
func (h histogram) over(bound float64) uint64 {
	for i, u := range h.upper {
		if u >= bound {
			return h.total() - h.counts[i]
		}
	}
	return 0
}

// edgeNear is the finite bucket bound nearest b by ratio (the runtime's histograms on
// /metrics have about one bucket per factor of 10, with uneven bounds); ok is false if none.
func (h histogram) edgeNear(b float64) (edge float64, ok bool) {
	for _, u := range h.upper {
		if u > 0 && !math.IsInf(u, 1) && (!ok || math.Abs(math.Log(u/b)) < math.Abs(math.Log(edge/b))) {
			edge, ok = u, true
		}
	}
	return edge, ok
}

// since is what r counted after earlier.
func (r goRuntime) since(earlier goRuntime) goRuntime {
	return goRuntime{waits: r.waits.since(earlier.waits), gcPauses: r.gcPauses.since(earlier.gcPauses)}
}

// runtimeMarkdown is the table of the uploads' energyd's runtime in each phase: how many
// goroutine waits and stop-the-world pauses, and how many lasted longer than the bucket bounds
// nearest 1, 10 and 100 ms (each bound once).
func runtimeMarkdown(idle, loaded goRuntime) string {
	var b strings.Builder
	b.WriteString("| energyd taking the uploads and the cached reads: Go runtime | idle | under ingest |\n|---|---:|---:|\n")
	for _, h := range []struct {
		name string
		of   func(goRuntime) histogram
	}{
		{"goroutine waits for a processor", func(r goRuntime) histogram { return r.waits }},
		{"collector's stop-the-world pauses", func(r goRuntime) histogram { return r.gcPauses }},
	} {
		i, l := h.of(idle), h.of(loaded)
		fmt.Fprintf(&b, "| %s | %s | %s |\n", h.name, thousandsInt(int(i.total())), thousandsInt(int(l.total())))
		last := 0.0
		for _, near := range []float64{0.001, 0.01, 0.1} {
			edge, ok := l.edgeNear(near)
			if !ok || edge == last {
				continue
			}
			last = edge
			fmt.Fprintf(&b, "| … longer than %s ms | %s | %s |\n", strconv.FormatFloat(edge*1e3, 'g', 3, 64),
				thousandsInt(int(i.over(edge))), thousandsInt(int(l.over(edge))))
		}
	}
	return b.String()
}
