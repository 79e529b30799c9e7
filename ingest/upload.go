package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"energy/schema"
)

// MaxArchiveBytes is the largest archive file part accepted (apidocs/README.md, "Archives"): one byte more is a 413.
const MaxArchiveBytes = 2_500_000

// ArchivePart is the name of the multipart part that carries the archive.
const ArchivePart = "file"

// maxArchiveName bounds the archive name kept in job records.
const maxArchiveName = 255

// UploadError is a request that carries no usable archive (400 INVALID_PARAMETER). Err, when
// set, is the read error behind it (an *http.MaxBytesError means the body was too large).
type UploadError struct {
	Msg string
	Err error
}

func (e *UploadError) Error() string { return e.Msg }
func (e *UploadError) Unwrap() error { return e.Err }

// Submit reads a multipart/form-data body, stores its archive durably and writes its SUBMITTED
// job. The archive is the part named "file"; when there is none, the only file part (a part
// with a filename) is used. Every file part is counted while it streams to disk: one larger
// than MaxArchiveBytes gives ErrArchiveTooLarge and leaves nothing stored. A body that is not
// multipart or has no usable part gives an *UploadError.
func (s *Service) Submit(ctx context.Context, tenantID, contentType string, body io.Reader) (Job, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return Job{}, &UploadError{Msg: fmt.Sprintf("the body must be multipart/form-data with the archive in the part named %q (got Content-Type %q)", ArchivePart, contentType)}
	}
	submitted := s.now()
	meta := spoolMeta{ID: uuid.NewString(), TenantID: tenantID, SubmittedTS: submitted.UTC()}
	st, err := s.receive(multipart.NewReader(body, params["boundary"]), meta)
	if err != nil {
		return Job{}, err
	}
	if s.stored != nil {
		return s.acceptStored(ctx, st)
	}
	if err := s.spool.commit(st); err != nil {
		return Job{}, fmt.Errorf("store the archive: %w", err)
	}
	j := newJob(st.meta)
	// The client waits for this row: bound it like a read, not like a bulk insert.
	unrecorded := false
	if err := s.jobs.putWithin(ctx, s.cfg.DB.Timeouts.Read, j); err != nil {
		if !schema.IsUnavailable(err) || ctx.Err() != nil {
			// Not accepted: the client gets an error and sends again.
			_ = s.spool.remove(j.ID)
			return Job{}, err
		}
		// The archive is durable in the spool, so it is accepted: the job's row is written by
		// its worker once the store answers, as recovery does after a crash.
		s.log.Warn("archive accepted while the store does not answer; its job row follows", "job", j.ID, "error", err)
		unrecorded = true
	}
	jobsSubmitted.Inc()
	s.addNew(j, submitted.Add(s.cfg.Deadline), unrecorded)
	return j, nil
}

// receive streams the parts: the chosen archive part into a staged spool file, every other
// file part counted and dropped, other fields dropped.
func (s *Service) receive(mr *multipart.Reader, meta spoolMeta) (*staged, error) {
	var named, single *staged // the "file" part; the first other file part
	others := 0               // file parts not named "file"
	fail := func(err error) (*staged, error) {
		s.spool.discard(named)
		s.spool.discard(single)
		return nil, err
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(&UploadError{Msg: "the multipart body is malformed: " + err.Error(), Err: err})
		}
		isFile := p.FormName() == ArchivePart || p.FileName() != ""
		if !isFile {
			if _, err := io.Copy(io.Discard, p); err != nil {
				return fail(readError(err))
			}
			continue
		}
		if p.FormName() != ArchivePart {
			others++
		}
		m := meta
		m.Archive = archiveName(p.FileName())
		switch {
		case p.FormName() == ArchivePart && named == nil:
			named, err = s.spool.stage(m, p, MaxArchiveBytes)
			if err == nil {
				s.spool.discard(single)
				single = nil
			}
		case p.FormName() != ArchivePart && named == nil && others == 1:
			single, err = s.spool.stage(m, p, MaxArchiveBytes)
		default:
			var n int64
			n, err = io.Copy(io.Discard, io.LimitReader(p, MaxArchiveBytes+1))
			if err == nil && n > MaxArchiveBytes {
				err = ErrArchiveTooLarge
			}
		}
		if err != nil {
			if errors.Is(err, ErrArchiveTooLarge) {
				return fail(err)
			}
			return fail(readError(err))
		}
	}
	switch {
	case named != nil:
		return named, nil
	case single != nil && others == 1:
		return single, nil
	case others > 1:
		return fail(&UploadError{Msg: fmt.Sprintf("the body has %d file parts and none is named %q: send the archive in the part named %q", others, ArchivePart, ArchivePart)})
	}
	return fail(&UploadError{Msg: fmt.Sprintf("the body has no file part: send the archive in the multipart part named %q", ArchivePart)})
}

func readError(err error) error {
	return &UploadError{Msg: "the request body could not be read: " + err.Error(), Err: err}
}

// archiveName keeps the part's file name (already stripped of directories by mime/multipart),
// printable and bounded.
func archiveName(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if len(name) > maxArchiveName {
		cut := maxArchiveName
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	return name
}
