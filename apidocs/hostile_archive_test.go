package apidocs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"energy/ingest"
)

// hostileTar writes tar members into a gzip stream, keeping nothing but the compressed bytes.
type hostileTar struct {
	buf bytes.Buffer
	zw  *gzip.Writer
	tw  *tar.Writer
}

func newHostileTar() *hostileTar {
	h := &hostileTar{}
	h.zw, _ = gzip.NewWriterLevel(&h.buf, gzip.BestCompression)
	h.tw = tar.NewWriter(h.zw)
	return h
}

// add writes a member of size bytes read from r (typ 0: a regular file).
func (h *hostileTar) add(t *testing.T, name string, typ byte, r io.Reader, size int64, linkname string) *hostileTar {
	t.Helper()
	if typ == 0 {
		typ = tar.TypeReg
	}
	if err := h.tw.WriteHeader(&tar.Header{Name: name, Typeflag: typ, Mode: 0o644, Size: size, Linkname: linkname, ModTime: time.Unix(1700000000, 0)}); err != nil {
		t.Fatal(err)
	}
	if r != nil {
		if _, err := io.CopyN(h.tw, r, size); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *hostileTar) file(t *testing.T, name, body string) *hostileTar {
	return h.add(t, name, 0, strings.NewReader(body), int64(len(body)), "")
}

// gz closes the tar and gzip streams; extra is written into the gzip stream after the tar.
func (h *hostileTar) gz(t *testing.T, extra ...[]byte) []byte {
	t.Helper()
	if err := h.tw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, e := range extra {
		h.zw.Write(e)
	}
	if err := h.zw.Close(); err != nil {
		t.Fatal(err)
	}
	return h.buf.Bytes()
}

// repeatReader yields pattern over and over.
type repeatReader struct {
	pattern []byte
	off     int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.pattern[r.off]
		r.off = (r.off + 1) % len(r.pattern)
	}
	return len(p), nil
}

// framed is prefix, size-len(prefix)-len(suffix) bytes of fill, then suffix.
func framed(prefix string, fill []byte, size int64, suffix string) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), io.LimitReader(&repeatReader{pattern: fill}, size-int64(len(prefix)+len(suffix))), strings.NewReader(suffix))
}

// heapPeak samples the live heap every few milliseconds until stopped, and returns its peak.
type heapPeak struct {
	stop chan struct{}
	done chan uint64
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func watchHeap() *heapPeak {
	p := &heapPeak{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		peak := liveHeap()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.done <- peak
				return
			case <-t.C:
				peak = max(peak, liveHeap())
			}
		}
	}()
	return p
}

func (p *heapPeak) peak() uint64 {
	close(p.stop)
	return <-p.done
}

// hostileOutcome is what a hostile archive must end in: an HTTP status other than 200 (with
// no job), or a job state with its archive error code, or a DONE job whose first file carries
// fileCode. mention is a word the error message must hold; rows the readings stored.
type hostileOutcome struct {
	status   int
	state    string
	code     string
	fileCode string
	opCode   string
	mention  string
	rows     uint64
}

// Every hostile archive gets a clear answer naming its problem, stores nothing it should not,
// writes nothing outside the spool, and the process's live heap stays bounded by the
// decompressed-size limit whatever the compressed archive expands to.
func TestHostileArchives(t *testing.T) {
	const mib = 1 << 20
	h := newJobsHarness(t, "", true, nil)
	token := h.token("acme", "collect,read")
	valid := `{"maxPowers":[{"siteId":"S1","podId":"P1","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-02T00:00:00Z","value":6000}]}`
	maxPower := func(value string) string {
		return `{"maxPowers":[{"siteId":"S1","podId":"P1","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-02T00:00:00Z","value":` + value + `}]}`
	}
	maxPowerAt := func(ts string) string {
		return `{"maxPowers":[{"siteId":"S1","podId":"P1","ts":"` + ts + `","generationTs":"2024-01-02T00:00:00Z","value":6000}]}`
	}
	zeros := []byte{0}
	traversal := filepath.Join(h.spool, "..", "..", "escaped.json")

	many := newHostileTar()
	for i := range 20000 {
		many.file(t, fmt.Sprintf("f%05d.json", i), "")
	}
	manyDirs := newHostileTar()
	for i := range 20000 {
		manyDirs.add(t, fmt.Sprintf("d%05d/", i), tar.TypeDir, nil, 0, "")
	}
	manyDirs.file(t, "a.json", valid)
	tooMany := `{"maxPowers":[` + strings.Repeat(`{"siteId":"S1","podId":"P1","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-02T00:00:00Z","value":1},`, 10000) +
		`{"siteId":"S1","podId":"P1","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-02T00:00:00Z","value":1}]}`
	truncated := newHostileTar().file(t, "a.json", valid).gz(t)
	truncated = truncated[:len(truncated)-12]
	plainTar := func() []byte {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		tw.WriteHeader(&tar.Header{Name: "a.json", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(valid))})
		tw.Write([]byte(valid))
		tw.Close()
		return b.Bytes()
	}()
	bigPart := bytes.Repeat([]byte{0x1f}, ingest.MaxArchiveBytes+1)

	cases := []struct {
		name    string
		archive []byte
		want    hostileOutcome
	}{
		// Decompression bombs: refused by the decompressed-size limit, never held whole.
		{"bomb: one member of 256 MiB of zeros", newHostileTar().add(t, "a.json", 0, &repeatReader{pattern: zeros}, 256*mib, "").gz(t),
			hostileOutcome{state: "ERROR", code: ingest.CodeArchiveTooLarge, mention: "64 MiB"}},
		{"bomb: five members of 15 MiB", func() []byte {
			b := newHostileTar()
			for i := range 5 {
				b.add(t, fmt.Sprintf("f%d.json", i), 0, &repeatReader{pattern: []byte(" ")}, 15*mib, "")
			}
			return b.gz(t)
		}(), hostileOutcome{state: "ERROR", code: ingest.CodeArchiveTooLarge, mention: "64 MiB"}},
		{"bomb: 200 MiB of zeros after a valid archive", newHostileTar().file(t, "a.json", valid).gz(t, bytes.Repeat(zeros, 200*mib)),
			hostileOutcome{state: "ERROR", code: ingest.CodeArchiveTooLarge, mention: "64 MiB"}},
		// Member counts.
		{"20,000 empty members", many.gz(t), hostileOutcome{state: "ERROR", code: ingest.CodeInvalidFileCount, mention: "files"}},
		{"20,000 directories and one file", manyDirs.gz(t), hostileOutcome{state: "DONE", rows: 1}},
		{"no member", newHostileTar().gz(t), hostileOutcome{state: "ERROR", code: ingest.CodeInvalidFileCount, mention: "files", rows: 1}},
		// Damaged or foreign containers.
		{"truncated gzip", truncated, hostileOutcome{state: "ERROR", code: ingest.CodeInvalidArchiveFormat, mention: "truncated", rows: 1}},
		{"tar without gzip", plainTar, hostileOutcome{state: "ERROR", code: ingest.CodeInvalidArchiveFormat, mention: "gzip", rows: 1}},
		{"zip file", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00" + strings.Repeat("\x00", 40)), hostileOutcome{state: "ERROR", code: ingest.CodeInvalidArchiveFormat, mention: "gzip", rows: 1}},
		{"bzip2 stream", []byte("BZh91AY&SY" + strings.Repeat("\x00", 40)), hostileOutcome{state: "ERROR", code: ingest.CodeInvalidArchiveFormat, mention: "gzip", rows: 1}},
		{"xz stream", []byte("\xfd7zXZ\x00\x00\x04" + strings.Repeat("\x00", 40)), hostileOutcome{state: "ERROR", code: ingest.CodeInvalidArchiveFormat, mention: "gzip", rows: 1}},
		{"gzip of something that is not tar", gzipOfBytes(t, []byte(strings.Repeat("not a tar archive ", 100))), hostileOutcome{state: "ERROR", code: ingest.CodeInvalidArchiveFormat, mention: "tar", rows: 1}},
		{"garbage after the archive", newHostileTar().file(t, "a.json", valid).gz(t, []byte(strings.Repeat("garbage!", 200))), hostileOutcome{state: "ERROR", code: ingest.CodeInvalidArchiveFormat, mention: "not a valid tar archive", rows: 1}},
		{"armored OpenPGP that is not a message", []byte("-----BEGIN PGP MESSAGE-----\n\nnot base64 at all\n-----END PGP MESSAGE-----\n"), hostileOutcome{state: "ERROR", code: ingest.CodeDecryptionFailed, mention: "key", rows: 1}},
		// Names and member kinds: labels only, nothing touches the disk.
		{"path traversal name", newHostileTar().file(t, "../../escaped.json", valid).gz(t), hostileOutcome{state: "DONE", rows: 1}},
		{"absolute name", newHostileTar().file(t, "/etc/cron.d/escaped.json", maxPowerAt("2024-01-02T00:00:00Z")).gz(t), hostileOutcome{state: "DONE", rows: 2}},
		{"symbolic link", newHostileTar().add(t, "link.json", tar.TypeSymlink, nil, 0, "/etc/passwd").file(t, "a.json", valid).gz(t), hostileOutcome{state: "DONE", fileCode: ingest.CodeInvalidFileFormat, mention: "regular", rows: 2}},
		{"hard link", newHostileTar().add(t, "hard.json", tar.TypeLink, nil, 0, "/etc/shadow").file(t, "a.json", valid).gz(t), hostileOutcome{state: "DONE", fileCode: ingest.CodeInvalidFileFormat, mention: "regular", rows: 2}},
		{"character device", newHostileTar().add(t, "zero.json", tar.TypeChar, nil, 0, "").file(t, "a.json", valid).gz(t), hostileOutcome{state: "DONE", fileCode: ingest.CodeInvalidFileFormat, mention: "regular", rows: 2}},
		{"fifo", newHostileTar().add(t, "pipe.json", tar.TypeFifo, nil, 0, "").file(t, "a.json", valid).gz(t), hostileOutcome{state: "DONE", fileCode: ingest.CodeInvalidFileFormat, mention: "regular", rows: 2}},
		// Hostile JSON.
		{"deep nesting", newHostileTar().file(t, "deep.json", `{"maxPowers":`+strings.Repeat("[", 200000)+strings.Repeat("]", 200000)+`}`).gz(t),
			hostileOutcome{state: "DONE", fileCode: ingest.CodeInvalidJSON, mention: "depth", rows: 2}},
		{"one line of 60 MiB", newHostileTar().add(t, "line.json", 0, framed(`{"maxPowers":[{"siteId":"`, []byte("S"), 60*mib, `"}]}`), 60*mib, "").gz(t),
			hostileOutcome{state: "DONE", opCode: ingest.CodeInvalidField, mention: "siteId is longer than 1024 bytes", rows: 2}},
		{"huge integer", newHostileTar().file(t, "big.json", maxPower(strings.Repeat("9", 5000))).gz(t),
			hostileOutcome{state: "DONE", opCode: ingest.CodeInvalidField, mention: "value", rows: 2}},
		{"exponent overflow", newHostileTar().file(t, "exp.json", maxPower("1e400")).gz(t),
			hostileOutcome{state: "DONE", opCode: ingest.CodeInvalidField, mention: "value", rows: 2}},
		{"invalid UTF-8", newHostileTar().file(t, "utf8.json", `{"maxPowers":[{"siteId":"S`+"\xff\xfe"+`","podId":"P1","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-02T00:00:00Z","value":1}]}`).gz(t),
			hostileOutcome{state: "DONE", opCode: ingest.CodeInvalidField, mention: "siteId is not valid UTF-8", rows: 2}},
		{"array given twice", newHostileTar().file(t, "twice.json", `{"maxPowers":[],"maxPowers":[]}`).gz(t),
			hostileOutcome{state: "DONE", fileCode: ingest.CodeInvalidJSON, mention: "maxPowers", rows: 2}},
		{"10,001 records", newHostileTar().file(t, "many.json", tooMany).gz(t),
			hostileOutcome{state: "DONE", fileCode: ingest.CodeTooManyRecords, mention: "10000", rows: 2}},
		// The upload itself.
		{"file part over 2,500,000 bytes", bigPart, hostileOutcome{status: http.StatusRequestEntityTooLarge, rows: 2}},
	}

	var worst struct {
		name   string
		growth int64
	}
	for _, c := range cases {
		runtime.GC()
		base := liveHeap()
		watch := watchHeap()
		ct, body := formBody(t, "file", "hostile.tar.gz", c.archive)
		st, b, hdr := h.post(token, ct, body)
		w := c.want
		if w.status != 0 {
			if st != w.status || len(b) != 0 {
				t.Errorf("%s: %d %q, want %d with no body", c.name, st, b, w.status)
			}
		} else {
			if st != http.StatusOK {
				t.Errorf("%s: submission answered %d %s %v", c.name, st, b, hdr)
				continue
			}
			var link struct {
				Links struct{ Self struct{ Href string } } `json:"_links"`
			}
			if err := json.Unmarshal(b, &link); err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(link.Links.Self.Href)
			j := h.waitFinal(token, jobIDOf(t, u.Path))
			var msg, code string
			switch {
			case w.code != "":
				if j.Report.Error != nil {
					code, msg = j.Report.Error.Code, j.Report.Error.Message
				}
			case w.fileCode != "" && len(j.Report.Files) > 0 && j.Report.Files[0].Error != nil:
				code, msg = j.Report.Files[0].Error.Code, j.Report.Files[0].Error.Message
			case w.opCode != "" && len(j.Report.Files) > 0 && len(j.Report.Files[0].FailedOperations) > 0:
				e := j.Report.Files[0].FailedOperations[0].Errors[0]
				code, msg = e.Code, e.Field+": "+e.Message
			}
			want := w.code + w.fileCode + w.opCode
			if j.State.Current != w.state || code != want || !strings.Contains(msg, w.mention) {
				t.Errorf("%s: job %s %s %q, want %s %s mentioning %q (report %+v)", c.name, j.State.Current, code, msg, w.state, want, w.mention, j.Report)
			}
			if w.state == "ERROR" && (j.Report.Overview.Total != 0 || len(j.Report.Files) != 0) {
				t.Errorf("%s: an ERROR job reports %+v", c.name, j.Report.Overview)
			}
		}
		growth := int64(watch.peak()) - int64(base)
		t.Logf("%s: live heap +%d MiB", c.name, growth/mib)
		if growth > worst.growth {
			worst.name, worst.growth = c.name, growth
		}
		if n := h.rows("max_powers"); n != w.rows {
			t.Errorf("%s: %d max powers stored, want %d", c.name, n, w.rows)
		}
	}
	h.wantSpoolEmpty()
	if _, err := os.Stat(traversal); !os.IsNotExist(err) {
		t.Errorf("a member name wrote outside the spool: %s (%v)", traversal, err)
	}
	for _, table := range []string{"elec_indexes", "gas_indexes", "load_curve_points"} {
		if n := h.rows(table); n != 0 {
			t.Errorf("%d rows stored in %s", n, table)
		}
	}
	// One archive is processed at a time here, and what is kept of it is bounded by 64 MiB;
	// the rest is the workers', the server's and the test's own buffers.
	t.Logf("largest live heap growth: +%d MiB (%s)", worst.growth/mib, worst.name)
	if limit := int64(ingest.MaxArchiveStream + 16*mib); worst.growth > limit {
		t.Errorf("live heap grew by %d MiB (%s), more than %d MiB", worst.growth/mib, worst.name, limit/mib)
	}
}

func gzipOfBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
