package ingest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func (e *jobEnv) jobRows() uint64 {
	e.t.Helper()
	var n uint64
	if err := e.db.Conn.QueryRow(context.Background(), "SELECT count() FROM jobs FINAL").Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func TestSubmitSizeBoundary(t *testing.T) {
	env := newJobEnv(t)
	svc := env.service(nil)
	submit := func(n int) (Job, error) {
		ct, body := multipartOf(t, formPart{field: "note", data: []byte("x")},
			formPart{field: "file", filename: "big.tar.gz", data: bytes.Repeat([]byte{7}, n)})
		return svc.Submit(context.Background(), "acme", ct, bytes.NewReader(body))
	}
	if _, err := submit(MaxArchiveBytes + 1); !errors.Is(err, ErrArchiveTooLarge) {
		t.Fatalf("2,500,001 bytes: %v", err)
	}
	if files := env.spoolFiles(); len(files) != 0 {
		t.Fatalf("spool after a refused upload: %v", files)
	}
	if n := env.jobRows(); n != 0 {
		t.Fatalf("%d job rows after a refused upload", n)
	}
	j, err := submit(MaxArchiveBytes)
	if err != nil {
		t.Fatalf("2,500,000 bytes: %v", err)
	}
	_, data, err := svc.spool.read(j.ID)
	if err != nil || len(data) != MaxArchiveBytes || data[0] != 7 || data[len(data)-1] != 7 {
		t.Fatalf("spooled %d bytes: %v", len(data), err)
	}
	if n := env.jobRows(); n != 1 {
		t.Fatalf("%d job rows", n)
	}
}

func TestSubmitPartChoice(t *testing.T) {
	env := newJobEnv(t)
	svc := env.service(nil)
	a, b := []byte("archive A"), []byte("archive B")
	submit := func(parts ...formPart) (Job, error) {
		ct, body := multipartOf(t, parts...)
		return svc.Submit(context.Background(), "acme", ct, bytes.NewReader(body))
	}
	wantArchive := func(j Job, err error, name string, data []byte) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := svc.spool.read(j.ID)
		if err != nil || j.Archive != name || !bytes.Equal(got, data) {
			t.Fatalf("job archive %q = %q (%v), want %q = %q", j.Archive, got, err, name, data)
		}
	}
	wantUploadError := func(err error, mention string) {
		t.Helper()
		var ue *UploadError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, mention) {
			t.Fatalf("error %v, want an UploadError mentioning %q", err, mention)
		}
	}

	// The part named "file" wins, wherever it is.
	j, err := submit(formPart{field: "other", filename: "b.tar.gz", data: b}, formPart{field: "file", filename: "a.tar.gz", data: a})
	wantArchive(j, err, "a.tar.gz", a)
	// No "file" part but exactly one file part: that one.
	j, err = submit(formPart{field: "comment", data: []byte("hello")}, formPart{field: "archive", filename: "b.tar.gz", data: b})
	wantArchive(j, err, "b.tar.gz", b)
	// A directory in the filename is dropped.
	j, err = submit(formPart{field: "file", filename: "../../etc/a.tar.gz", data: a})
	wantArchive(j, err, "a.tar.gz", a)

	// Two file parts, neither named "file"; no file part at all; not multipart.
	_, err = submit(formPart{field: "x", filename: "a.tar.gz", data: a}, formPart{field: "y", filename: "b.tar.gz", data: b})
	wantUploadError(err, `named "file"`)
	_, err = submit(formPart{field: "comment", data: []byte("hello")})
	wantUploadError(err, "no file part")
	_, err = svc.Submit(context.Background(), "acme", "application/json", strings.NewReader(`{}`))
	wantUploadError(err, "multipart/form-data")
	_, err = svc.Submit(context.Background(), "acme", "multipart/form-data; boundary=xyz", strings.NewReader("garbage"))
	wantUploadError(err, "malformed")

	// An oversized file part that is not the archive is refused all the same.
	_, err = submit(formPart{field: "file", filename: "a.tar.gz", data: a}, formPart{field: "y", filename: "big", data: make([]byte, MaxArchiveBytes+1)})
	if !errors.Is(err, ErrArchiveTooLarge) {
		t.Fatalf("oversized second part: %v", err)
	}
	if n := env.jobRows(); n != 3 {
		t.Fatalf("%d job rows, want the 3 accepted", n)
	}
	if files := env.spoolFiles(); len(files) != 3 {
		t.Fatalf("spool: %v", files)
	}
}
