package apidocs

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/ingest"
	"energy/schema/registry"
)

// Archive collection: submission, job detail and job listing.

const (
	submitPath = "/v2/indexes-collect-jobs"
	jobsPath   = "/v2/smt-jobs"
	// maxListPeriod is the widest listing range (apidocs/README.md, "Jobs").
	maxListPeriod = 30 * 24 * time.Hour
	// defaultListPeriod is the listing range when beginTs is not given.
	defaultListPeriod = 7 * 24 * time.Hour
)

// Link is a HAL link.
type Link struct {
	Href string `json:"href" doc:"Absolute URL" example:"https://energy.example.com/v2/indexes-collect-jobs/0b6f3c1e-8a54-4c1b-9d2e-1f0a7c3b5e42"`
}

// SelfLinks holds the link to the resource itself.
type SelfLinks struct {
	Self Link `json:"self"`
}

// SubmitBody is the answer to an archive submission.
type SubmitBody struct {
	Links SelfLinks `json:"_links" doc:"self: the job of the archive, to poll for its report"`
}

// JobStateBody is a job's current state.
type JobStateBody struct {
	Current string `json:"current" enum:"SUBMITTED,IN_PROGRESS,DONE,ERROR,TIMEOUT" doc:"Current state" example:"DONE"`
	TS      string `json:"ts" doc:"Time of the last transition (Timestamp-Z, UTC)" example:"2024-05-02T08:15:03Z"`
}

// JobTransitionBody is one entry of a job's state history.
type JobTransitionBody struct {
	Current string `json:"current" enum:"SUBMITTED,IN_PROGRESS,DONE,ERROR,TIMEOUT" example:"IN_PROGRESS"`
	TS      string `json:"ts" doc:"Time of the transition (Timestamp-Z, UTC)" example:"2024-05-02T08:15:02Z"`
}

// JobStateDetail is a job's current state with its history.
type JobStateDetail struct {
	Current string              `json:"current" enum:"SUBMITTED,IN_PROGRESS,DONE,ERROR,TIMEOUT" doc:"Current state" example:"DONE"`
	TS      string              `json:"ts" doc:"Time of the last transition (Timestamp-Z, UTC)" example:"2024-05-02T08:15:03Z"`
	History []JobTransitionBody `json:"history" doc:"Every state the job went through, oldest first (the last one is current)"`
}

// OverviewBody counts a job's operations (elements of the four arrays of its files).
type OverviewBody struct {
	NbOperationsTotal int `json:"nbOperationsTotal" doc:"nbOperationsOK + nbOperationsKO" example:"1200"`
	NbOperationsOK    int `json:"nbOperationsOK" example:"1198"`
	NbOperationsKO    int `json:"nbOperationsKO" example:"2"`
}

// JobErrorBody is why a job ended in ERROR or TIMEOUT.
type JobErrorBody struct {
	Code    string `json:"code" doc:"ERROR: INVALID_ARCHIVE_FORMAT, DECRYPTION_FAILED, INVALID_FILE_COUNT or ARCHIVE_TOO_LARGE; TIMEOUT: TIMEOUT" example:"INVALID_FILE_COUNT"`
	Message string `json:"message" doc:"What is wrong with the archive" example:"the archive holds more than 5 regular files (at most 5 allowed)"`
}

// JobReportSummary is the report of a listed job.
type JobReportSummary struct {
	Error    *JobErrorBody `json:"error,omitempty" doc:"Present when the job ended in ERROR or TIMEOUT"`
	Overview OverviewBody  `json:"overview" doc:"Operation counts (zero until the job is DONE)"`
}

// JobReportDetail is the detailed report of a job.
type JobReportDetail struct {
	Error    *JobErrorBody       `json:"error,omitempty" doc:"Present when the job ended in ERROR or TIMEOUT"`
	Overview OverviewBody        `json:"overview" doc:"Operation counts over every file (zero until the job is DONE)"`
	Files    []ingest.FileReport `json:"files" doc:"One entry per archive member other than directories, in archive order (empty until the job is DONE)"`
}

// JobSummary is a job as listed by GET /v2/smt-jobs.
type JobSummary struct {
	ID      string           `json:"id" doc:"Job id (UUID)" example:"0b6f3c1e-8a54-4c1b-9d2e-1f0a7c3b5e42"`
	Archive string           `json:"archive" doc:"File name of the submitted archive part" example:"indexes-2024-05.tar.gz"`
	State   JobStateBody     `json:"state"`
	Report  JobReportSummary `json:"report"`
	Links   SelfLinks        `json:"_links"`
}

// JobDetail is a job with its detailed report.
type JobDetail struct {
	ID          string          `json:"id" doc:"Job id (UUID)" example:"0b6f3c1e-8a54-4c1b-9d2e-1f0a7c3b5e42"`
	Archive     string          `json:"archive" doc:"File name of the submitted archive part" example:"indexes-2024-05.tar.gz"`
	SubmittedTs string          `json:"submittedTs" doc:"When the archive was accepted (Timestamp-Z, UTC)" example:"2024-05-02T08:15:02Z"`
	State       JobStateDetail  `json:"state"`
	Report      JobReportDetail `json:"report"`
	Links       SelfLinks       `json:"_links"`
}

// PageLinks are the HAL links of a job page: absolute, keeping the request's filters.
type PageLinks struct {
	First Link  `json:"first"`
	Prev  *Link `json:"prev,omitempty" doc:"Absent on the first page"`
	Self  Link  `json:"self"`
	Next  *Link `json:"next,omitempty" doc:"Absent on the last page"`
	Last  Link  `json:"last"`
}

// PageInfo describes a page.
type PageInfo struct {
	TotalElements int `json:"totalElements" doc:"Jobs matching the filters" example:"250"`
	TotalPages    int `json:"totalPages" doc:"Pages of this size (0 when no job matches)" example:"3"`
	Number        int `json:"number" doc:"This page's number, from 0" example:"0"`
	Size          int `json:"size" doc:"Page size asked" example:"100"`
}

// JobsEmbedded holds a page's jobs.
type JobsEmbedded struct {
	Jobs []JobSummary `json:"jobs" doc:"Newest state.ts first"`
}

// JobPage is the answer of GET /v2/smt-jobs.
type JobPage struct {
	Links    PageLinks    `json:"_links"`
	Page     PageInfo     `json:"page"`
	Embedded JobsEmbedded `json:"_embedded"`
}

// csvItems makes the page's jobs the rows of its CSV (the page's links and counts are left out).
func (p JobPage) csvItems() any { return p.Embedded.Jobs }

// requestOrigin captures where a request was addressed, for absolute links when no public
// URL is configured: the Host header and X-Forwarded-Proto (else the connection's scheme).
type requestOrigin struct {
	scheme, host string
}

func (o *requestOrigin) Resolve(ctx huma.Context) []error {
	o.scheme = "http"
	if ctx.TLS() != nil {
		o.scheme = "https"
	}
	if p := strings.ToLower(strings.TrimSpace(strings.Split(ctx.Header("X-Forwarded-Proto"), ",")[0])); p == "http" || p == "https" {
		o.scheme = p
	}
	o.host = ctx.Host()
	return nil
}

// base is the public base URL of links (no trailing slash).
func (o *requestOrigin) base(public string) string {
	if public != "" {
		return strings.TrimRight(public, "/")
	}
	return o.scheme + "://" + o.host
}

// submitInput takes the raw body: the archive is streamed to the spool, never buffered whole.
type submitInput struct {
	requestOrigin
	contentType   string
	contentLength int64
	body          io.Reader
}

func (in *submitInput) Resolve(ctx huma.Context) []error {
	in.requestOrigin.Resolve(ctx)
	in.contentType = ctx.Header("Content-Type")
	in.contentLength = -1
	if v := ctx.Header("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			in.contentLength = n
		}
	}
	in.body = ctx.BodyReader()
	return nil
}

type submitOutput struct {
	Body SubmitBody
}

type jobInput struct {
	requestOrigin
	JobID string `path:"jobId" doc:"Job id, as returned by the submission" example:"0b6f3c1e-8a54-4c1b-9d2e-1f0a7c3b5e42"`
}

type jobOutput struct {
	Body JobDetail
}

type listInput struct {
	requestOrigin
	Page    int    `query:"page" default:"0" minimum:"0" maximum:"100000000" doc:"Page number, from 0" example:"0"`
	Size    int    `query:"size" default:"100" minimum:"1" maximum:"100" doc:"Page size" example:"100"`
	State   string `query:"state" enum:"SUBMITTED,IN_PROGRESS,DONE,ERROR,TIMEOUT" doc:"Only jobs in this state"`
	BeginTs string `query:"beginTs" doc:"Timestamp-Z; jobs whose state.ts is at or after it. Default: endTs minus 7 days (now minus 7 days when endTs is not given)" example:"2024-05-01T00:00:00Z"`
	EndTs   string `query:"endTs" doc:"Timestamp-Z; jobs whose state.ts is at or before it. Default: now" example:"2024-05-08T00:00:00Z"`
}

type listOutput struct {
	Body JobPage
}

const submitDescription = `Send one .tar.gz archive (plain, or an OpenPGP message encrypted to the service's key, binary or ASCII-armored) as multipart/form-data.

The archive is the part named **file**; when no part has that name and the body holds exactly one file part (a part with a filename), that part is used. The job's ` + "`archive`" + ` is the part's filename.

The archive is durably stored and a SUBMITTED job written before the answer: 200 with ` + "`_links.self.href`" + `, the job to poll. Everything about the archive's content is reported in the job, never through the HTTP status.

**Errors.** No file part, or a body that is not multipart/form-data: 400 INVALID_PARAMETER. A file part larger than 2,500,000 bytes (or a body larger than that plus 1 MiB of multipart overhead): 413 with an empty body, and nothing is stored.`

const jobDescription = `The job of a submitted archive and its detailed report.

States: SUBMITTED (stored, queued) → IN_PROGRESS → DONE | ERROR | TIMEOUT; a job not finished within the processing deadline after its submission (default 10 minutes) ends in TIMEOUT, from SUBMITTED or IN_PROGRESS, with ` + "`report.error.code`" + ` TIMEOUT. A job that reached IN_PROGRESS and was interrupted (restart) is processed again from the start.

` + "`report.files`" + ` has one entry per archive member (directories excepted) once the job is DONE; ` + "`report.overview`" + ` sums them. ERROR jobs carry ` + "`report.error`" + ` (INVALID_ARCHIVE_FORMAT, DECRYPTION_FAILED, INVALID_FILE_COUNT, ARCHIVE_TOO_LARGE) and stored nothing.

**Errors.** An unknown job, a job of another tenant, or an id that is not a UUID: 404 JOB_NOT_FOUND.`

const listDescription = `The caller's jobs whose state.ts lies in [beginTs, endTs], newest state.ts first (ties: latest transition first).

HAL links are absolute and keep the request's filters (page and size always given): ` + "`prev`" + ` is absent on the first page, ` + "`next`" + ` on the last; with no matching job the page still has first, self and last (page 0) and totalPages 0.

**Errors.** page below 0, size outside 1..100, an unknown state, a timestamp not in Timestamp-Z format (2024-05-01T00:00:00Z), or beginTs after endTs: 400 INVALID_PARAMETER. beginTs and endTs more than 30 days apart: 400 PERIOD_TOO_LONG.`

// jobHandler serves archive submission and the jobs (scopes collect and read).
type jobHandler struct {
	svc       *ingest.Service
	publicURL string
}

func registerJobs(api huma.API, cfg Config) {
	h := &jobHandler{svc: cfg.Jobs, publicURL: cfg.PublicURL}
	huma.Register(api, huma.Operation{
		OperationID: "submit-archive", Method: http.MethodPost, Path: submitPath, Tags: []string{"Collection"},
		Summary: "Submit an archive", Description: submitDescription,
		Security: requireScopes(registry.ScopeCollect),
		// The schema is set after registration: given here, Huma would read and decode the body itself.
		RequestBody: &huma.RequestBody{
			Required:    true,
			Description: "multipart/form-data holding the archive",
			Content:     map[string]*huma.MediaType{"multipart/form-data": {}},
		},
		Responses: map[string]*huma.Response{
			"413": {Description: "The archive file part is larger than 2,500,000 bytes; the response has no body and nothing is stored"},
		},
	}, h.submit)
	if item := api.OpenAPI().Paths[submitPath]; item != nil && item.Post != nil {
		item.Post.RequestBody.Content["multipart/form-data"].Schema = &huma.Schema{
			Type:     "object",
			Required: []string{ingest.ArchivePart},
			Properties: map[string]*huma.Schema{ingest.ArchivePart: {
				Type: "string", Format: "binary",
				Description: "The .tar.gz archive (1 to 5 JSON files), or that archive encrypted as an OpenPGP message; at most 2,500,000 bytes",
			}},
		}
	}

	readers := requireScopes(registry.ScopeCollect, registry.ScopeRead)
	huma.Register(api, huma.Operation{
		OperationID: "get-job", Method: http.MethodGet, Path: submitPath + "/{jobId}", Tags: []string{"Collection"},
		Summary: "Job of an archive, with its detailed report", Description: jobDescription, Security: readers,
	}, h.get)
	huma.Register(api, huma.Operation{
		OperationID: "list-jobs", Method: http.MethodGet, Path: jobsPath, Tags: []string{"Collection"},
		Summary: "List jobs", Description: listDescription, Security: readers,
	}, h.list)
	documentCSV(api, jobsPath, "One row per job of the page (the page's links and counts are left out): id, archive, state_current, state_ts, "+
		"report_error_code, report_error_message, report_overview_nbOperationsTotal/OK/KO, _links_self_href.")
}

func (h *jobHandler) submit(ctx context.Context, in *submitInput) (*submitOutput, error) {
	if in.contentLength > ingest.MaxArchiveBytes+uploadOverhead {
		return nil, tooLarge()
	}
	j, err := h.svc.Submit(ctx, Caller(ctx).TenantID, in.contentType, in.body)
	var upload *ingest.UploadError
	var maxBytes *http.MaxBytesError
	switch {
	case errors.Is(err, ingest.ErrArchiveTooLarge), errors.As(err, &maxBytes):
		return nil, tooLarge()
	case errors.As(err, &upload):
		return nil, BadParam("%s", upload.Msg)
	case errors.Is(err, ingest.ErrNoQuorum):
		return nil, unavailable(ctx, err, "the archive could not be stored on two replicas of the data store, so it was not accepted: send it again")
	case err != nil:
		return nil, err
	}
	return &submitOutput{Body: SubmitBody{Links: SelfLinks{Self: Link{Href: jobHref(in.base(h.publicURL), j.ID)}}}}, nil
}

func (h *jobHandler) get(ctx context.Context, in *jobInput) (*jobOutput, error) {
	j, err := h.svc.Job(ctx, Caller(ctx).TenantID, in.JobID)
	if errors.Is(err, ingest.ErrJobNotFound) {
		return nil, Fail(http.StatusNotFound, CodeJobNotFound, "job %q does not exist", in.JobID)
	}
	if err != nil {
		return nil, err
	}
	return &jobOutput{Body: jobDetail(j, in.base(h.publicURL))}, nil
}

func (h *jobHandler) list(ctx context.Context, in *listInput) (*listOutput, error) {
	f, err := listFilter(in, time.Now())
	if err != nil {
		return nil, err
	}
	jobs, total, err := h.svc.List(ctx, Caller(ctx).TenantID, f)
	if err != nil {
		return nil, err
	}
	return &listOutput{Body: jobPage(in, f, jobs, total, in.base(h.publicURL))}, nil
}

func jobHref(base, id string) string { return base + submitPath + "/" + id }

// parseTimestampZ reads a Timestamp-Z query parameter with the archive records' parser.
func parseTimestampZ(name, v string) (time.Time, error) {
	t, err := ingest.ParseTimestampZ(v)
	if err != nil {
		return time.Time{}, BadParam("query parameter %s: %q %s", name, v, err)
	}
	return t, nil
}

// listFilter checks the listing range: beginTs ≤ endTs, at most 30 days apart.
func listFilter(in *listInput, now time.Time) (ingest.ListFilter, error) {
	f := ingest.ListFilter{State: in.State, Page: in.Page, Size: in.Size, End: now.UTC()}
	var err error
	if in.EndTs != "" {
		if f.End, err = parseTimestampZ("endTs", in.EndTs); err != nil {
			return f, err
		}
	}
	f.Begin = f.End.Add(-defaultListPeriod)
	if in.BeginTs != "" {
		if f.Begin, err = parseTimestampZ("beginTs", in.BeginTs); err != nil {
			return f, err
		}
	}
	if f.Begin.After(f.End) {
		return f, BadParam("query parameter beginTs: %s is after endTs %s", f.Begin.Format(time.RFC3339), f.End.Format(time.RFC3339))
	}
	if f.End.Sub(f.Begin) > maxListPeriod {
		return f, Fail(http.StatusBadRequest, CodePeriodTooLong, "query parameters beginTs and endTs: %s to %s is %.2f days; the period may not exceed 30 days",
			f.Begin.Format(time.RFC3339), f.End.Format(time.RFC3339), f.End.Sub(f.Begin).Hours()/24)
	}
	return f, nil
}

func formatTS(t time.Time) string { return ingest.FormatTimestampZ(t) }

func errorBody(e *ingest.ErrorInfo) *JobErrorBody {
	if e == nil {
		return nil
	}
	return &JobErrorBody{Code: e.Code, Message: e.Message}
}

func overviewBody(o ingest.Overview) OverviewBody {
	return OverviewBody{NbOperationsTotal: o.Total, NbOperationsOK: o.OK, NbOperationsKO: o.KO}
}

func jobDetail(j ingest.Job, base string) JobDetail {
	history := make([]JobTransitionBody, len(j.History))
	for i, h := range j.History {
		history[i] = JobTransitionBody{Current: h.State, TS: formatTS(h.TS)}
	}
	files := j.Files
	if files == nil {
		files = []ingest.FileReport{}
	}
	return JobDetail{
		ID: j.ID, Archive: j.Archive, SubmittedTs: formatTS(j.SubmittedTS),
		State:  JobStateDetail{Current: j.State, TS: formatTS(j.StateTS), History: history},
		Report: JobReportDetail{Error: errorBody(j.Error), Overview: overviewBody(j.Overview), Files: files},
		Links:  SelfLinks{Self: Link{Href: jobHref(base, j.ID)}},
	}
}

func jobPage(in *listInput, f ingest.ListFilter, jobs []ingest.Job, total int, base string) JobPage {
	totalPages := (total + f.Size - 1) / f.Size
	last := max(totalPages-1, 0)
	link := func(page int) Link {
		q := url.Values{}
		q.Set("page", strconv.Itoa(page))
		q.Set("size", strconv.Itoa(f.Size))
		if in.State != "" {
			q.Set("state", in.State)
		}
		if in.BeginTs != "" {
			q.Set("beginTs", in.BeginTs)
		}
		if in.EndTs != "" {
			q.Set("endTs", in.EndTs)
		}
		return Link{Href: base + jobsPath + "?" + q.Encode()}
	}
	links := PageLinks{First: link(0), Self: link(f.Page), Last: link(last)}
	if f.Page > 0 {
		prev := link(min(f.Page-1, last))
		links.Prev = &prev
	}
	if f.Page < totalPages-1 {
		next := link(f.Page + 1)
		links.Next = &next
	}
	items := make([]JobSummary, len(jobs))
	for i, j := range jobs {
		items[i] = JobSummary{
			ID: j.ID, Archive: j.Archive,
			State:  JobStateBody{Current: j.State, TS: formatTS(j.StateTS)},
			Report: JobReportSummary{Error: errorBody(j.Error), Overview: overviewBody(j.Overview)},
			Links:  SelfLinks{Self: Link{Href: jobHref(base, j.ID)}},
		}
	}
	return JobPage{
		Links:    links,
		Page:     PageInfo{TotalElements: total, TotalPages: totalPages, Number: f.Page, Size: f.Size},
		Embedded: JobsEmbedded{Jobs: items},
	}
}
