package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The largest files the limits allow: 10,000 smart indexes of 2 dials, 1,500 load curves of
// 48 points.
func BenchmarkDecodeFile(b *testing.B) {
	var smart strings.Builder
	smart.WriteString(`{"smartElecIndexes":[`)
	for i := range MaxIndexesPerFile {
		if i > 0 {
			smart.WriteByte(',')
		}
		fmt.Fprintf(&smart, `{"siteId":"S1","podId":"PDL-1","nature":"MKT_SMART_DISTRIBUTOR","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-02T06:00:00Z","value":{"1":%d,"2":%d}}`, i*1000, i*2000)
	}
	smart.WriteString("]}")
	var curves strings.Builder
	curves.WriteString(`{"loadCurves":[`)
	for i := range MaxLoadCurvesPerFile {
		if i > 0 {
			curves.WriteByte(',')
		}
		curves.WriteString(`{"siteCustomerId":"C-1","personCustomerId":"P-1","podId":"PDL-1","meterReadingDate":"2024-01-01","generationTs":"2024-01-02T06:00:00+01:00","step":"PT30M","values":[`)
		for p := range 48 {
			if p > 0 {
				curves.WriteByte(',')
			}
			fmt.Fprintf(&curves, `{"beginTs":"2024-01-01T%02d:%02d:00+01:00","value":%d,"reliability":0}`, p/2, p%2*30, 500+p)
		}
		curves.WriteString("]}")
	}
	curves.WriteString("]}")
	for _, c := range []struct{ name, body string }{{"10000 smart indexes", smart.String()}, {"1500 load curves", curves.String()}} {
		b.Run(c.name, func(b *testing.B) {
			m := Member{Name: "f.json", Data: []byte(c.body), Regular: true}
			b.SetBytes(int64(len(m.Data)))
			for b.Loop() {
				_, rep, err := DecodeFile(context.Background(), m, knownSites())
				if err != nil || rep.NbOperationsKO != 0 {
					b.Fatal(err, failureLines(rep))
				}
			}
		})
	}
}
