package ingest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// tarEntry is one tar member to write; typ 0 means a regular file.
type tarEntry struct {
	name     string
	typ      byte
	data     []byte
	linkname string
}

func regFile(name, body string) tarEntry {
	return tarEntry{name: name, typ: tar.TypeReg, data: []byte(body)}
}

// tarOf writes the entries as a tar stream.
func tarOf(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.data)), Linkname: e.linkname, ModTime: time.Unix(1700000000, 0)}
		if e.typ != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			if _, err := tw.Write(e.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarGzOf(t testing.TB, entries ...tarEntry) []byte { return gzipOf(t, tarOf(t, entries...)) }

func wantArchiveError(t *testing.T, err error, code string) *ArchiveError {
	t.Helper()
	var ae *ArchiveError
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	if ae.Message == "" {
		t.Fatalf("%s without a message", code)
	}
	return ae
}

func TestReadArchiveMembers(t *testing.T) {
	data := tarGzOf(t,
		tarEntry{name: "dir/", typ: tar.TypeDir},
		regFile("dir/a.json", `{"maxPowers":[]}`),
		regFile("../../etc/passwd.json", `{}`),
		tarEntry{name: "link.json", typ: tar.TypeSymlink, linkname: "/etc/passwd"},
		tarEntry{name: "hard.json", typ: tar.TypeLink, linkname: "dir/a.json"},
		tarEntry{name: "fifo", typ: tar.TypeFifo},
		tarEntry{name: "dev", typ: tar.TypeChar},
		regFile("notes.txt", "hello"),
		regFile("empty.json", ""),
	)
	members, err := ReadArchive(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Member{
		{Name: "dir/a.json", Data: []byte(`{"maxPowers":[]}`), Regular: true},
		{Name: "../../etc/passwd.json", Data: []byte(`{}`), Regular: true},
		{Name: "link.json"},
		{Name: "hard.json"},
		{Name: "fifo"},
		{Name: "dev"},
		{Name: "notes.txt", Data: []byte("hello"), Regular: true},
		{Name: "empty.json", Data: []byte{}, Regular: true},
	}
	if !reflect.DeepEqual(members, want) {
		t.Fatalf("members\n got  %+v\n want %+v", members, want)
	}
}

func TestReadArchivePathTraversalAndSymlinkAreHarmless(t *testing.T) {
	// Names are labels: nothing is written anywhere, and the decoder reports them as they are.
	members, err := ReadArchive(tarGzOf(t,
		regFile("../../etc/passwd.json", `{"maxPowers":[{"siteId":"S1","podId":"P","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00Z","value":1}]}`),
		tarEntry{name: "/etc/shadow.json", typ: tar.TypeSymlink, linkname: "/etc/shadow"},
	), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, rep := decodeMember(t, members[0])
	if rep.Name != "../../etc/passwd.json" || rep.NbOperationsOK != 1 || len(rows.MaxPowers) != 1 {
		t.Fatalf("%+v", rep)
	}
	_, rep = decodeMember(t, members[1])
	if rep.Name != "/etc/shadow.json" || rep.Error == nil || rep.Error.Code != CodeInvalidFileFormat || rep.NbOperationsTotal != 0 {
		t.Fatalf("%+v", rep)
	}
}

func decodeMember(t *testing.T, m Member) (Rows, FileReport) {
	t.Helper()
	rows, rep, err := DecodeFile(context.Background(), m, knownSites())
	if err != nil {
		t.Fatal(err)
	}
	return rows, rep
}

func TestReadArchiveFormatErrors(t *testing.T) {
	valid := tarGzOf(t, regFile("a.json", "{}"))
	corrupt := append([]byte(nil), valid...)
	corrupt[len(corrupt)-8] ^= 0xff // CRC-32 of the gzip trailer
	cases := map[string][]byte{
		"empty":             nil,
		"plain tar":         tarOf(t, regFile("a.json", "{}")),
		"zip":               []byte("PK\x03\x04 not a tar.gz"),
		"json":              []byte(`{"maxPowers": []}`),
		"gzip of json":      gzipOf(t, []byte(`{"maxPowers": []}`)),
		"gzip of nothing":   gzipOf(t, nil),
		"gzip of garbage":   gzipOf(t, bytes.Repeat([]byte("garbage!"), 200)),
		"truncated gzip":    valid[:len(valid)/2],
		"bad gzip checksum": corrupt,
		// The tar is whole but the gzip stream's end (checksum and length) is cut off.
		"gzip trailer cut off": valid[:len(valid)-8],
		"gzip end cut off":     valid[:len(valid)-12],
		"truncated tar":        gzipOf(t, tarOf(t, regFile("a.json", string(bytes.Repeat([]byte("x"), 5000))))[:1024]),
		"armored public key":   []byte("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nxx\n-----END PGP PUBLIC KEY BLOCK-----\n"),
		// Bytes whose first one is an OpenPGP packet tag but which are no OpenPGP packet.
		"pkesk tag then garbage":          append([]byte{0x85, 0x01, 0x0c, 0x07}, bytes.Repeat([]byte{0xa5}, 4000)...),
		"new-format tag then short":       {0xc1, 0xff},
		"literal tag claiming more bytes": {0xcb, 0x40, 'b', 0x00},
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadArchive(data, nil)
			wantArchiveError(t, err, CodeInvalidArchiveFormat)
		})
	}
}

func TestReadArchiveTolerantOfBytesAfterTheGzipStream(t *testing.T) {
	data := append(tarGzOf(t, regFile("a.json", "{}")), make([]byte, 512)...)
	if _, err := ReadArchive(data, nil); err != nil {
		t.Fatal(err)
	}
}

func TestReadArchiveFileCount(t *testing.T) {
	var five []tarEntry
	for i := range 5 {
		five = append(five, regFile(fmt.Sprintf("f%d.json", i), "{}"), tarEntry{name: fmt.Sprintf("d%d/", i), typ: tar.TypeDir})
	}
	five = append(five, tarEntry{name: "l", typ: tar.TypeSymlink, linkname: "f0.json"})
	members, err := ReadArchive(tarGzOf(t, five...), nil)
	if err != nil || len(members) != 6 {
		t.Fatalf("5 files and a link: %d members, %v", len(members), err)
	}
	six := append(five, regFile("f5.json", "{}"))
	wantArchiveError(t, archiveErr(ReadArchive(tarGzOf(t, six...), nil)), CodeInvalidFileCount)
	// A regular file that is not JSON still counts.
	wantArchiveError(t, archiveErr(ReadArchive(tarGzOf(t, append(five, regFile("readme.txt", "x"))...), nil)), CodeInvalidFileCount)
	// No regular file at all.
	wantArchiveError(t, archiveErr(ReadArchive(tarGzOf(t), nil)), CodeInvalidFileCount)
	wantArchiveError(t, archiveErr(ReadArchive(tarGzOf(t, tarEntry{name: "d/", typ: tar.TypeDir}, tarEntry{name: "l.json", typ: tar.TypeSymlink, linkname: "x"}), nil)), CodeInvalidFileCount)
	// Thousands of links are refused rather than reported one by one.
	var links []tarEntry
	for i := range MaxArchiveMembers + 1 {
		links = append(links, tarEntry{name: fmt.Sprintf("l%d", i), typ: tar.TypeSymlink, linkname: "x"})
	}
	wantArchiveError(t, archiveErr(ReadArchive(tarGzOf(t, append(links, regFile("a.json", "{}"))...), nil)), CodeInvalidFileCount)
}

func archiveErr(_ []Member, err error) error { return err }

// zeroTar streams a tar with one member of n zero bytes into w without holding it in memory.
func zeroTar(t testing.TB, w io.Writer, name string, n int64) {
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: n}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(tw, zeroReader{}, n); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// bomb gzips the output of write.
func gzipBomb(t testing.TB, write func(w io.Writer)) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	write(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocated runs f and returns the bytes it allocated.
func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestReadArchiveDecompressionBombs(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name     string
		data     []byte
		maxAlloc uint64
	}{
		// One member of 100 MiB of zeros: refused from its header, before reading it.
		{"one huge member", gzipBomb(t, func(w io.Writer) { zeroTar(t, w, "a.json", 100*mib) }), 2 * mib},
		// A small archive followed by 100 MiB of zeros: the padding is read, never kept.
		{"padding after the archive", gzipBomb(t, func(w io.Writer) {
			zeroTar(t, w, "a.json", 10)
			io.CopyN(w, zeroReader{}, 100*mib)
		}), 2 * mib},
		// Five members of 14 MiB each, 70 MiB in all: refused when the stream passes 64 MiB;
		// what is kept never exceeds the limit.
		{"members adding up", gzipBomb(t, func(w io.Writer) {
			tw := tar.NewWriter(w)
			for i := range 5 {
				tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%d.json", i), Typeflag: tar.TypeReg, Size: 14 * mib})
				io.CopyN(tw, zeroReader{}, 14*mib)
			}
			tw.Close()
		}), MaxArchiveStream + 8*mib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.data) > 1*mib {
				t.Fatalf("bomb of %d bytes is not a bomb", len(c.data))
			}
			var err error
			start := time.Now()
			alloc := bytesAllocated(func() { _, err = ReadArchive(c.data, nil) })
			wantArchiveError(t, err, CodeArchiveTooLarge)
			if alloc > c.maxAlloc {
				t.Errorf("allocated %d MiB", alloc/mib)
			}
			t.Logf("%d KiB compressed: refused in %v, %d KiB allocated", len(c.data)>>10, time.Since(start), alloc>>10)
		})
	}
}

func TestReadArchiveExactlyAtTheLimit(t *testing.T) {
	// A tar stream of exactly 64 MiB is accepted; one more block is not.
	const header, trailer = 512, 1024
	size := int64(MaxArchiveStream - header - trailer)
	data := gzipBomb(t, func(w io.Writer) { zeroTar(t, w, "a.json", size) })
	members, err := ReadArchive(data, nil)
	if err != nil || len(members) != 1 || int64(len(members[0].Data)) != size {
		t.Fatalf("at the limit: %v", err)
	}
	data = gzipBomb(t, func(w io.Writer) { zeroTar(t, w, "a.json", size+512) })
	wantArchiveError(t, archiveErr(ReadArchive(data, nil)), CodeArchiveTooLarge)
}

// Random bytes are a corrupt archive, not an undecryptable one, even when their first byte
// reads as an OpenPGP packet tag (about 1 in 20 do).
func TestRandomBytesAreAnInvalidArchive(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := range 2000 {
		data := make([]byte, 4096)
		r.Read(data)
		if _, err := ReadArchive(data, nil); err == nil || err.(*ArchiveError).Code != CodeInvalidArchiveFormat {
			t.Fatalf("random buffer %d (first byte %#x): %v, want %s", i, data[0], err, CodeInvalidArchiveFormat)
		}
	}
}
