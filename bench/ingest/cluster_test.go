package main

import (
	"testing"
	"time"
)

func TestClusterTablePerNodeRateAndRatio(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	replay := func(rows int, took time.Duration) *replayStats {
		r := &replayStats{first: start}
		r.record(&benchArchive{Rows: rows}, took, start.Add(took), nil)
		return r
	}
	single := &storeResult{name: "single node", nodes: 1, copies: 1,
		ingest:  []ingestRun{{replicas: 1, replay: replay(400_000, 2*time.Second)}},
		latency: []*latencyRun{{name: "DAYS", cold: ms(10, 12, 14), cached: ms(0.3)}, {name: "HOURS", cold: ms(8), cached: ms(0.6)}}}
	cluster := &storeResult{name: "cluster 2 × 2", nodes: 4, copies: 2,
		ingest:  []ingestRun{{replicas: 1, replay: replay(400_000, 4*time.Second)}, {replicas: 2, replay: replay(400_000, 2500*time.Millisecond)}},
		latency: []*latencyRun{{name: "DAYS", cold: ms(15, 18, 30), cached: ms(0.4)}, {name: "HOURS", cold: ms(12), cached: ms(0.7)}}}
	md := clusterMarkdown("- Machine: test\n", options{}, nil, single, cluster)
	wantLines(t, md,
		"| single node | 1 | 1 | 400,000 | 2.00 s | 200,000 | 200,000 | 0.50 | 2.00 s | 2.00 s |",
		"| cluster 2 × 2 | 1 | 1 | 400,000 | 4.00 s | 100,000 | 50,000 | 0.25 | 4.00 s | 4.00 s |",
		"| cluster 2 × 2 | 2 | 1 | 400,000 | 2.50 s | 160,000 | 80,000 | 0.40 | 2.50 s | 2.50 s |",
		"| DAYS, 1 year | 12.0 ms / 14.0 ms | 18.0 ms / 30.0 ms | 1.50× | 0.30 ms / 0.30 ms | 0.40 ms / 0.40 ms |",
		"| HOURS, 1 year (window of 1,200) | 8.00 ms / 8.00 ms | 12.0 ms / 12.0 ms | 1.50× |",
	)
}
