package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// TestArchivesAreTheLargestAllowed checks that the two archives sit at the limits (5 files of
// 10,000 indexes, 5 files of 1,500 curves of 48 points, within 2,500,000 bytes) and that the
// JSONEachRow rows are the rows the service stores from them (a row per dial, per point).
func TestArchivesAreTheLargestAllowed(t *testing.T) {
	for _, build := range []func() (benchArchive, error){smartIndexArchive, loadCurveArchive} {
		a, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Data) > maxArchive {
			t.Errorf("%s: %d bytes", a.Name, len(a.Data))
		}
		t.Logf("%s: %d bytes compressed, %d operations, %d rows", a.Name, len(a.Data), a.Operations, a.Rows)
		zr, err := gzip.NewReader(bytes.NewReader(a.Data))
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		files, points, dials, ops := 0, 0, 0, 0
		for {
			_, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			files++
			var body struct {
				SmartElecIndexes []struct{ Value map[string]int64 }
				LoadCurves       []struct{ Values []json.RawMessage }
			}
			if err := json.NewDecoder(tr).Decode(&body); err != nil {
				t.Fatal(err)
			}
			switch {
			case len(body.SmartElecIndexes) > 0:
				if len(body.SmartElecIndexes) != indexesPerFil {
					t.Errorf("%s: %d indexes in a file", a.Name, len(body.SmartElecIndexes))
				}
				for _, x := range body.SmartElecIndexes {
					dials += len(x.Value)
				}
				ops += len(body.SmartElecIndexes)
			default:
				if len(body.LoadCurves) != curvesPerFile {
					t.Errorf("%s: %d curves in a file", a.Name, len(body.LoadCurves))
				}
				for _, c := range body.LoadCurves {
					if len(c.Values) != pointsPerDay {
						t.Fatalf("%s: a curve of %d points", a.Name, len(c.Values))
					}
					points += len(c.Values)
				}
				ops += len(body.LoadCurves)
			}
		}
		if files != filesPerArc || ops != a.Operations {
			t.Errorf("%s: %d files, %d operations", a.Name, files, ops)
		}
		if lines := bytes.Count(a.RowsJSON, []byte("\n")); lines != a.Rows || a.Rows != dials+points {
			t.Errorf("%s: %d JSONEachRow lines, %d rows counted, %d stored rows expected", a.Name, lines, a.Rows, dials+points)
		}
	}
}
