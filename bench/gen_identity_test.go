package bench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"testing"
	"time"
)

// The generator's rows never change: scale data sets kept under var/ are reused and only
// counted (Present), so a faster generator must write the same bytes. Every column of two
// ranges is hashed: the first batch of the 1,000-site set in 2024 and the last batch of the
// 10,000-site set in 2023 (other DST dates, a non-leap year).
func TestGeneratedRowsNeverChange(t *testing.T) {
	for _, c := range []struct {
		first, last, year int
		want              string
	}{
		{0, 50, 2024, "01a6b824f655cd136e7badcafd8b63b4e7b7721bea7805ee91aa5d52b70994d1"},
		{9950, 10000, 2023, "a233c3103892ebd546666c234671e72c10b6fd4fe0609bf78a4cbfec903b2e4a"},
	} {
		curve, idx, err := GenerateSites(c.first, c.last, c.year)
		if err != nil {
			t.Fatal(err)
		}
		if got := columnsHash(curve, idx); got != c.want {
			t.Errorf("sites %d-%d of %d: columns hash %s, want %s", c.first, c.last-1, c.year, got, c.want)
		}
	}
}

// A batch generated into the columns of a released one holds the same rows as one generated
// into new columns (nothing of the earlier batch is left).
func TestReusedBatchesHoldTheSameRows(t *testing.T) {
	ctx := context.Background()
	out := make(chan *Batch)
	errs := make(chan error, 1)
	go func() { errs <- GenerateBatches(ctx, Spec{Sites: SitesPerBatch + 3, Year: 2024}, 1, out) }()
	var curves []*CurveColumns
	var got []string
	for b := range out {
		curves = append(curves, b.Curve)
		got = append(got, columnsHash(b.Curve, b.Indexes))
		b.Release()
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || curves[0] != curves[1] {
		t.Fatalf("%d batches, columns reused: %v", len(got), len(curves) == 2 && curves[0] == curves[1])
	}
	for i, r := range [][2]int{{0, SitesPerBatch}, {SitesPerBatch, SitesPerBatch + 3}} {
		curve, idx, err := GenerateSites(r[0], r[1], 2024)
		if err != nil {
			t.Fatal(err)
		}
		if want := columnsHash(curve, idx); got[i] != want {
			t.Errorf("batch %d (sites %d-%d): hash %s, new columns give %s", i, r[0], r[1]-1, got[i], want)
		}
	}
}

// columnsHash is the SHA-256 of every column in order, each value with its length or as
// fixed-width bytes, instants as Unix seconds, nanoseconds and zone name.
func columnsHash(c *CurveColumns, x *IndexColumns) string {
	h := sha256.New()
	for _, col := range [][]string{c.Tenant, c.Site, c.Pod, c.Job, x.Tenant, x.Site, x.Pod, x.Nature, x.Dial, x.Job} {
		hashStrings(h, col)
	}
	for _, col := range [][]time.Time{c.Begin, c.End, c.Generation, c.Day, x.TS, x.Generation} {
		hashInt(h, int64(len(col)))
		for _, v := range col {
			hashInt(h, v.Unix())
			hashInt(h, int64(v.Nanosecond()))
			hashStrings(h, []string{v.Location().String()})
		}
	}
	for _, col := range [][]int64{c.Value, x.Value} {
		hashInt(h, int64(len(col)))
		for _, v := range col {
			hashInt(h, v)
		}
	}
	for _, col := range [][]uint8{c.Reliability, x.IndexBeforeChange} {
		hashInt(h, int64(len(col)))
		h.Write(col)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func hashStrings(h hash.Hash, col []string) {
	hashInt(h, int64(len(col)))
	for _, s := range col {
		hashInt(h, int64(len(s)))
		h.Write([]byte(s))
	}
}

func hashInt(h hash.Hash, v int64) {
	h.Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
}

func BenchmarkGenerateSites(b *testing.B) {
	for b.Loop() {
		if _, _, err := GenerateSites(0, SitesPerBatch, 2024); err != nil {
			b.Fatal(err)
		}
	}
}
