package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// spool keeps accepted archives on disk until their job is final: one file per job,
// <dir>/<jobId>.job, holding a header line (the job's metadata as JSON, so that a spool
// file whose job row was never written can be re-registered) followed by the archive bytes.
// A file is written under a temporary name, fsynced, renamed, and the directory fsynced:
// once commit returns, the archive survives a crash.
type spool struct {
	dir string
}

// spoolMagic starts every spool file (and versions its format).
const spoolMagic = "energy-spool-v1 "

// spoolMeta is what a spool file says about its job.
type spoolMeta struct {
	ID          string    `json:"id"`
	TenantID    string    `json:"tenantId"`
	Archive     string    `json:"archive"`
	SubmittedTS time.Time `json:"submittedTs"`
}

// ErrArchiveTooLarge is returned when an uploaded archive exceeds MaxArchiveBytes.
var ErrArchiveTooLarge = errors.New("the archive file part is larger than 2,500,000 bytes")

// staged is an archive written to a temporary spool file, not yet committed.
type staged struct {
	meta spoolMeta
	path string
	size int64
}

func newSpool(dir string) (*spool, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("archive spool %s: %w", dir, err)
	}
	return &spool{dir: dir}, nil
}

func (s *spool) path(id string) string { return filepath.Join(s.dir, id+".job") }

// stage copies at most limit bytes of r into a temporary file after the metadata header,
// and syncs it. More than limit bytes → ErrArchiveTooLarge and nothing is left on disk.
func (s *spool) stage(meta spoolMeta, r io.Reader, limit int64) (*staged, error) {
	f, err := os.CreateTemp(s.dir, ".upload-*.tmp")
	if err != nil {
		return nil, err
	}
	st := &staged{meta: meta, path: f.Name()}
	fail := func(err error) (*staged, error) {
		f.Close()
		os.Remove(st.path)
		return nil, err
	}
	header, err := json.Marshal(meta)
	if err != nil {
		return fail(err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	if _, err := w.WriteString(spoolMagic + string(header) + "\n"); err != nil {
		return fail(err)
	}
	n, err := io.Copy(w, io.LimitReader(r, limit+1))
	if err != nil {
		return fail(err)
	}
	if n > limit {
		return fail(ErrArchiveTooLarge)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(st.path)
		return nil, err
	}
	st.size = n
	return st, nil
}

// discard removes a staged file that will not become a job.
func (s *spool) discard(st *staged) {
	if st != nil {
		os.Remove(st.path)
	}
}

// commit gives a staged file its job's name and makes the rename durable.
func (s *spool) commit(st *staged) error {
	if err := os.Rename(st.path, s.path(st.meta.ID)); err != nil {
		os.Remove(st.path)
		return err
	}
	return s.syncDir()
}

func (s *spool) syncDir() error {
	d, err := os.Open(s.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// read returns a spool file's metadata and archive bytes.
func (s *spool) read(id string) (spoolMeta, []byte, error) {
	b, err := os.ReadFile(s.path(id))
	if err != nil {
		return spoolMeta{}, nil, err
	}
	return parseSpool(b)
}

func parseSpool(b []byte) (spoolMeta, []byte, error) {
	var meta spoolMeta
	line, data, ok := bytes.Cut(b, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, []byte(spoolMagic)) {
		return meta, nil, errors.New("not a spool file")
	}
	if err := json.Unmarshal(line[len(spoolMagic):], &meta); err != nil {
		return meta, nil, fmt.Errorf("spool header: %w", err)
	}
	return meta, data, nil
}

// remove deletes a final job's spool file.
func (s *spool) remove(id string) error {
	err := os.Remove(s.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// exists tells whether the job's archive is in the spool.
func (s *spool) exists(id string) bool {
	_, err := os.Stat(s.path(id))
	return err == nil
}

// scan returns the metadata of every committed spool file and the names of files whose
// header cannot be read (left in place for an operator), and deletes leftover temporary
// files (uploads interrupted before their 200, which were never accepted).
func (s *spool) scan() (out []spoolMeta, bad []string, err error) {
	return s.walk(true)
}

// committed returns the metadata of every committed spool file, leaving the rest alone (a
// temporary file may be an upload under way).
func (s *spool) committed() ([]spoolMeta, error) {
	out, _, err := s.walk(false)
	return out, err
}

// walk reads the headers of the committed files, and with removeTemps deletes temporary ones.
func (s *spool) walk(removeTemps bool) (out []spoolMeta, bad []string, err error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".upload-") && strings.HasSuffix(name, ".tmp"):
			if removeTemps {
				os.Remove(filepath.Join(s.dir, name))
			}
		case strings.HasSuffix(name, ".job") && e.Type().IsRegular():
			meta, err := readSpoolHeader(filepath.Join(s.dir, name))
			if err != nil || meta.ID+".job" != name || meta.TenantID == "" {
				bad = append(bad, name)
				continue
			}
			out = append(out, meta)
		}
	}
	return out, bad, nil
}

func readSpoolHeader(path string) (spoolMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return spoolMeta{}, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil {
		return spoolMeta{}, err
	}
	meta, _, err := parseSpool(line)
	return meta, err
}
