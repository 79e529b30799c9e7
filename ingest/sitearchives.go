package ingest

import (
	"context"
	"errors"
	"os"
	"slices"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// ArchivesOfSite returns the jobs whose accepted archive is still kept (a spool file, or in
// cluster mode a row of the archives table) and may hold readings of the site: an operation
// naming the site by id, or by customer identifiers that match no site of the tenant (the
// erased site's no longer do); an archive that cannot be read counts too (its bytes are not
// examined further). An erasure waits until none is left: the jobs run as usual, the site is
// unknown to them by then, and each archive is deleted once its job is final.
func (s *Service) ArchivesOfSite(ctx context.Context, tenantID, siteID string) ([]string, error) {
	metas, err := s.spool.committed()
	if err != nil {
		return nil, err
	}
	var jobs []Job
	for _, m := range metas {
		if m.TenantID == tenantID {
			jobs = append(jobs, newJob(m))
		}
	}
	if s.stored != nil {
		unfinished, err := s.jobs.unfinished(ctx)
		if err != nil {
			return nil, err
		}
		for _, j := range unfinished {
			if j.TenantID == tenantID && !slices.ContainsFunc(jobs, func(k Job) bool { return k.ID == j.ID }) {
				jobs = append(jobs, j)
			}
		}
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	known, err := loadTenantSites(ctx, s.cfg.Registry, tenantID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, j := range jobs {
		data, err := s.archive(ctx, j)
		if errors.Is(err, os.ErrNotExist) {
			continue // final meanwhile: its file was deleted
		} else if err != nil {
			return nil, err
		}
		holds, err := archiveNamesSite(ctx, data, s.cfg.Keys, known, siteID)
		if err != nil {
			return nil, err
		}
		if holds {
			out = append(out, j.ID)
		}
	}
	return out, nil
}

// archiveNamesSite decodes the archive's files, noting whether an operation names the site.
func archiveNamesSite(ctx context.Context, data []byte, keys openpgp.EntityList, known *tenantSites, siteID string) (bool, error) {
	members, err := ReadArchive(data, keys)
	if err != nil {
		return true, nil // unreadable: it might, and its job ends in ERROR soon
	}
	finder := &siteFinder{known: known, siteID: siteID}
	for _, m := range members {
		if _, _, err := DecodeFile(ctx, m, finder); err != nil {
			return false, err
		}
		if finder.found {
			return true, nil
		}
	}
	return false, nil
}

// siteFinder is the SiteResolver of a scan: every site is unknown to it, so that decoding
// stops at each operation's identity, and it notes the identities that may be the site's.
// Used by one goroutine at a time.
type siteFinder struct {
	known  *tenantSites
	siteID string
	found  bool
}

func (f *siteFinder) SiteByID(_ context.Context, siteID string) (bool, error) {
	if siteID == f.siteID {
		f.found = true
	}
	return false, nil
}

func (f *siteFinder) SiteByCustomer(ctx context.Context, siteCustomerID, personCustomerID string) (string, bool, error) {
	if _, ok, _ := f.known.SiteByCustomer(ctx, siteCustomerID, personCustomerID); !ok {
		f.found = true
	}
	return "", false, nil
}
