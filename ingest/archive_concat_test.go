package ingest

import (
	"bytes"
	"fmt"
	"testing"
)

// cat a.tar.gz b.tar.gz is read whole: both archives' members come out, in order, and the
// limits count the members of both.
func TestReadArchiveConcatenated(t *testing.T) {
	a := tarGzOf(t, regFile("a1.json", `{"a":1}`), regFile("a2.json", `{"a":2}`))
	b := tarGzOf(t, regFile("b1.json", `{"b":1}`))
	names := func(ms []Member) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name+"="+string(m.Data))
		}
		return fmt.Sprint(out)
	}
	want := `[a1.json={"a":1} a2.json={"a":2} b1.json={"b":1}]`
	members, err := ReadArchive(append(append([]byte{}, a...), b...), nil)
	if err != nil || names(members) != want {
		t.Fatalf("two gzip files one after the other: %s, %v; want %s", names(members), err, want)
	}
	// Two tar archives inside one gzip stream (tar files concatenated, then compressed).
	members, err = ReadArchive(gzipOf(t, append(tarOf(t, regFile("a1.json", `{"a":1}`), regFile("a2.json", `{"a":2}`)), tarOf(t, regFile("b1.json", `{"b":1}`))...)), nil)
	if err != nil || names(members) != want {
		t.Fatalf("two tar archives in one gzip: %s, %v; want %s", names(members), err, want)
	}
	// Zero padding after the last archive is still fine, and a third archive is read too.
	c := tarGzOf(t, regFile("c1.json", `{}`))
	data := bytes.Join([][]byte{a, b, c, make([]byte, 1024)}, nil)
	if members, err := ReadArchive(data, nil); err != nil || len(members) != 4 {
		t.Fatalf("three archives and padding: %d members, %v", len(members), err)
	}
	// 3 + 3 regular files: more than 5 in all.
	three := func(p string) []byte {
		return tarGzOf(t, regFile(p+"1.json", "{}"), regFile(p+"2.json", "{}"), regFile(p+"3.json", "{}"))
	}
	wantArchiveError(t, archiveErr(ReadArchive(append(three("a"), three("b")...), nil)), CodeInvalidFileCount)
	// What follows the first archive must be an archive: anything else refuses the whole.
	junk := gzipOf(t, append(tarOf(t, regFile("a1.json", "{}")), bytes.Repeat([]byte("not a tar header "), 64)...))
	wantArchiveError(t, archiveErr(ReadArchive(junk, nil)), CodeInvalidArchiveFormat)
}

// Through a job: the members of both concatenated archives are processed and stored, and the
// report lists each file.
func TestConcatenatedArchiveJobStoresBothMembers(t *testing.T) {
	env := newJobEnv(t)
	svc := env.service(nil)
	second := `{"cyclicGasIndexes": [{"siteId": "S1", "podId": "GAS-1", "nature": "MKT_CYCLIC_DISTRIBUTOR", "ts": "2024-02-29T23:00:00Z",
	  "generationTs": "2024-03-01T06:00:00Z", "value": 12845, "unit": "m3", "conversionFactors": {"kWh": 11.2}}]}`
	archive := append(jobArchive(t, jobFile{"readings.json", readingsFile}), jobArchive(t, jobFile{"march.json", second})...)
	j := submitArchive(t, svc, "appended.tar.gz", archive)
	env.start(svc)
	done := waitState(t, svc, "acme", j.ID, StateDone, StateError, StateTimeout)
	if done.State != StateDone || len(done.Files) != 2 || done.Files[0].Name != "readings.json" || done.Files[1].Name != "march.json" ||
		done.Files[1].NbOperationsOK != 1 || done.Overview != (Overview{Total: 6, OK: 5, KO: 1}) {
		t.Fatalf("job %s, overview %+v, files %+v", done.State, done.Overview, done.Files)
	}
	want := map[string]uint64{}
	for k, v := range readingsRows {
		want[k] = v
	}
	want["gas_indexes"]++
	env.wantCounts(want)
}
