package ingest

import (
	"context"
	"strings"
)

// SiteResolver maps a record's identity to a site id of the job's tenant.
type SiteResolver interface {
	SiteByID(ctx context.Context, siteID string) (ok bool, err error)
	SiteByCustomer(ctx context.Context, siteCustomerID, personCustomerID string) (siteID string, ok bool, err error)
}

// DecodeFile validates every element of one archive member and returns the rows of the valid
// ones and the file's report. err is only for resolver (storage) failures.
func DecodeFile(ctx context.Context, m Member, sites SiteResolver) (Rows, FileReport, error) {
	rep := FileReport{Name: m.Name, FailedOperations: []FailedOperation{}}
	if !m.Regular {
		rep.Error = &ErrorInfo{Code: CodeInvalidFileFormat, Message: m.Name + " is not a regular file (links, devices and other special entries are not processed)"}
		return Rows{}, rep, nil
	}
	if !strings.HasSuffix(strings.ToLower(m.Name), ".json") {
		rep.Error = &ErrorInfo{Code: CodeInvalidFileFormat, Message: m.Name + " is not a .json file"}
		return Rows{}, rep, nil
	}
	rep.Error = &ErrorInfo{Code: CodeInvalidJSON, Message: "decoder not implemented yet"}
	return Rows{}, rep, nil
}
