package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// energyctl submit sends archives to POST /v2/indexes-collect-jobs, prints each job link, then
// polls the jobs with a progress display on stderr until they are final and prints their
// reports. It talks to the service over HTTP only: the archive format and the job resource are
// the contract.

func init() {
	commands["submit"] = command{
		summary: "submit archives for collection, wait for their jobs and print the reports",
		run:     runSubmit,
	}
}

const (
	defaultAPIURL  = "http://127.0.0.1:8080"
	collectJobPath = "/v2/indexes-collect-jobs"
)

// apiFlags are the flags of commands that talk to a running service.
type apiFlags struct {
	api   string
	token string
}

func (a *apiFlags) register(fs *flag.FlagSet) {
	api := os.Getenv("ENERGY_API_URL")
	if api == "" {
		api = defaultAPIURL
	}
	fs.StringVar(&a.api, "api", api, "base URL of the energyd main API (env ENERGY_API_URL)")
	fs.StringVar(&a.token, "token", os.Getenv("ENERGY_TOKEN"), "bearer token (env ENERGY_TOKEN)")
}

func runSubmit(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("submit", flag.ContinueOnError)
	var af apiFlags
	af.register(fs)
	noWait := fs.Bool("no-wait", false, "print the job links and exit without waiting for the jobs")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: energyctl submit [--api URL] [--token T] [--no-wait] FILE...\n\nSubmits each .tar.gz archive (plain or OpenPGP-encrypted) and, unless --no-wait, waits for\nits job and prints the report. Exits non-zero if a submission fails or a job ends ERROR or TIMEOUT.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no archive given")
	}
	c, err := newAPIClient(af.api, af.token)
	if err != nil {
		return err
	}
	var files []archiveSource
	for _, name := range fs.Args() {
		files = append(files, fileSource(name))
	}
	return submitAndWait(ctx, c, files, !*noWait, os.Stdout, newProgress(os.Stderr))
}

// archiveSource is an archive to submit: a file, or bytes built in memory (the demo).
type archiveSource struct {
	Name string // shown in messages and sent as the part's file name
	Path string // read from disk when Data is nil
	Data []byte
}

func fileSource(path string) archiveSource {
	return archiveSource{Name: filepath.Base(path), Path: path}
}

// submittedJob is an accepted archive and what the client knows of its job.
type submittedJob struct {
	Source  archiveSource
	Href    string
	ID      string
	Start   time.Time
	Elapsed time.Duration // submission to the first poll that saw a final state
	Job     jobView
}

// submitAndWait submits every archive (a rejected one does not stop the others, an
// unreachable service does), prints the links on out, then waits and prints the reports.
func submitAndWait(ctx context.Context, c *apiClient, files []archiveSource, wait bool, out io.Writer, prog *progress) error {
	var jobs []*submittedJob
	var failed []string
	for _, f := range files {
		start := time.Now()
		href, err := c.submit(ctx, f)
		if err != nil {
			if ctx.Err() != nil || fatalForAll(err) {
				return err
			}
			prog.println(fmt.Sprintf("%s: not submitted: %v", f.Name, err))
			failed = append(failed, f.Name)
			continue
		}
		j := &submittedJob{Source: f, Href: href, ID: jobIDOf(href), Start: start}
		jobs = append(jobs, j)
		fmt.Fprintln(out, href)
	}
	if wait && len(jobs) > 0 {
		if err := c.waitJobs(ctx, jobs, prog); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("stopped waiting; the jobs go on in the service (GET their links above to follow them)")
			}
			return err
		}
		for _, j := range jobs {
			printJobReport(out, j)
		}
	}
	var notDone []string
	for _, j := range jobs {
		if wait && j.Job.State.Current != "DONE" {
			notDone = append(notDone, fmt.Sprintf("%s ended %s", j.Source.Name, j.Job.State.Current))
		}
	}
	switch {
	case len(failed) > 0 && len(notDone) > 0:
		return fmt.Errorf("%d archive(s) not submitted (%s); %s", len(failed), strings.Join(failed, ", "), strings.Join(notDone, ", "))
	case len(failed) > 0:
		return fmt.Errorf("%d of %d archive(s) not submitted: %s", len(failed), len(files), strings.Join(failed, ", "))
	case len(notDone) > 0:
		return fmt.Errorf("%d of %d job(s) did not end DONE: %s", len(notDone), len(jobs), strings.Join(notDone, ", "))
	}
	return nil
}

// fatalForAll tells whether a submission failure would fail every other archive the same
// way: the service is unreachable, the token is refused, or --api is not the service.
func fatalForAll(err error) bool {
	var ue *unreachableError
	var ae *apiError
	if errors.As(err, &ue) {
		return true
	}
	return errors.As(err, &ae) && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden ||
		(ae.Status == http.StatusNotFound && (ae.Code == "" || ae.Code == "NOT_FOUND")))
}

// jobIDOf is the last path segment of a job link.
func jobIDOf(href string) string {
	if u, err := url.Parse(href); err == nil {
		href = u.Path
	}
	return href[strings.LastIndex(href, "/")+1:]
}

// apiClient calls the main API with a bearer token.
type apiClient struct {
	base  *url.URL // without a trailing slash
	token string
	hc    *http.Client
	// poll is the first pause between two job polls; it grows to pollMax.
	poll, pollMax time.Duration
	// retryFor bounds how long polling goes on through an unreachable service or 5xx answers
	// (energyd restarting recovers the jobs).
	retryFor time.Duration
}

func newAPIClient(api, token string) (*apiClient, error) {
	u, err := url.Parse(strings.TrimRight(api, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--api %q is not an http(s) URL such as %s", api, defaultAPIURL)
	}
	return &apiClient{base: u, token: token, hc: &http.Client{Timeout: 2 * time.Minute},
		poll: 100 * time.Millisecond, pollMax: time.Second, retryFor: 2 * time.Minute}, nil
}

func (c *apiClient) url(path string) string { return c.base.String() + path }

// apiError is an error answer of the service, with advice on what to do about it.
type apiError struct {
	Status      int
	Code        string
	Description string
	Advice      string
}

func (e *apiError) Error() string {
	msg := fmt.Sprintf("HTTP %d", e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	if e.Advice != "" {
		msg += " — " + e.Advice
	}
	return msg
}

// unreachableError is a request that got no HTTP answer.
type unreachableError struct {
	URL string
	Err error
}

func (e *unreachableError) Error() string {
	if errors.Is(e.Err, syscall.ECONNREFUSED) {
		return fmt.Sprintf("cannot reach the service at %s: connection refused — is energyd running there? (set --api or ENERGY_API_URL)", e.URL)
	}
	var dns *net.DNSError
	if errors.As(e.Err, &dns) {
		return fmt.Sprintf("cannot reach the service at %s: unknown host %q (check --api or ENERGY_API_URL)", e.URL, dns.Name)
	}
	return fmt.Sprintf("cannot reach the service at %s: %v", e.URL, e.Err)
}

func (e *unreachableError) Unwrap() error { return e.Err }

// send performs a request; scope names what the operation needs, for the advice on 401/403.
func (c *apiClient) send(ctx context.Context, req *http.Request, scope string) (*http.Response, error) {
	req = req.WithContext(ctx)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &unreachableError{URL: c.base.String(), Err: err}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &apiError{Status: resp.StatusCode}
	var eb struct {
		ErrorCode        string `json:"errorCode"`
		ErrorDescription string `json:"errorDescription"`
	}
	if json.Unmarshal(body, &eb) == nil {
		e.Code, e.Description = eb.ErrorCode, eb.ErrorDescription
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		if c.token == "" {
			e.Advice = "no token given: pass --token or set ENERGY_TOKEN (create one with: energyctl token create --tenant TENANT --scopes " + scope + ")"
		} else {
			e.Advice = "check --token or ENERGY_TOKEN, or create a new token with: energyctl token create --tenant TENANT --scopes " + scope
		}
	case http.StatusForbidden:
		e.Advice = "the token lacks the scope this needs: use a token with the " + scope + " scope (or admin)"
	case http.StatusNotFound:
		if e.Code == "" || e.Code == "NOT_FOUND" {
			e.Advice = fmt.Sprintf("is %s the base URL of energyd's main API?", c.base)
		}
	case http.StatusServiceUnavailable:
		e.Advice = "the service's storage is unavailable; try again shortly"
	}
	if e.Code == "" && e.Description == "" && len(body) > 0 && resp.StatusCode != http.StatusRequestEntityTooLarge {
		e.Description = strings.TrimSpace(string(body[:min(len(body), 200)]))
	}
	return nil, e
}

// submit posts one archive as the multipart part "file" and returns its job link. The body
// streams from the file with its exact length, so the service can refuse an oversized
// archive from Content-Length alone.
func (c *apiClient) submit(ctx context.Context, src archiveSource) (string, error) {
	var content io.Reader
	var size int64
	if src.Data != nil {
		content, size = bytes.NewReader(src.Data), int64(len(src.Data))
	} else {
		f, err := os.Open(src.Path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return "", err
		}
		if !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", src.Path)
		}
		content, size = f, st.Size()
	}
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	if _, err := mw.CreateFormFile("file", src.Name); err != nil {
		return "", err
	}
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	req, err := http.NewRequest(http.MethodPost, c.url(collectJobPath), io.MultiReader(&head, content, strings.NewReader(tail)))
	if err != nil {
		return "", err
	}
	req.ContentLength = int64(head.Len()) + size + int64(len(tail))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.send(ctx, req, "collect")
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusRequestEntityTooLarge {
			return "", fmt.Errorf("%s is %d bytes: the service accepts archives of at most 2,500,000 bytes (HTTP 413); split its files into smaller archives", src.Name, size)
		}
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Links struct {
			Self struct {
				Href string `json:"href"`
			} `json:"self"`
		} `json:"_links"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Links.Self.Href == "" {
		return "", fmt.Errorf("the service accepted %s but its answer has no _links.self.href (HTTP %d)", src.Name, resp.StatusCode)
	}
	return out.Links.Self.Href, nil
}

// jobView is the job detail resource (apidocs/README.md, "Jobs").
type jobView struct {
	ID          string `json:"id"`
	Archive     string `json:"archive"`
	SubmittedTS string `json:"submittedTs"`
	State       struct {
		Current string `json:"current"`
		TS      string `json:"ts"`
	} `json:"state"`
	Report struct {
		Error    *jobError `json:"error"`
		Overview struct {
			Total int `json:"nbOperationsTotal"`
			OK    int `json:"nbOperationsOK"`
			KO    int `json:"nbOperationsKO"`
		} `json:"overview"`
		Files []jobFileReport `json:"files"`
	} `json:"report"`
}

type jobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type jobFileReport struct {
	Name             string    `json:"name"`
	Total            int       `json:"nbOperationsTotal"`
	OK               int       `json:"nbOperationsOK"`
	KO               int       `json:"nbOperationsKO"`
	Error            *jobError `json:"error"`
	FailedOperations []struct {
		Array  string `json:"array"`
		Index  int    `json:"index"`
		Errors []struct {
			Code    string `json:"code"`
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"errors"`
	} `json:"failedOperations"`
	Truncated bool `json:"failedOperationsTruncated"`
}

func finalState(s string) bool { return s == "DONE" || s == "ERROR" || s == "TIMEOUT" }

// job reads a job. The link the service returned is used when it points at the same host as
// --api; otherwise (a public URL the client cannot reach) the job is read under --api.
func (c *apiClient) job(ctx context.Context, j *submittedJob) (jobView, error) {
	target := c.url(collectJobPath + "/" + url.PathEscape(j.ID))
	if u, err := url.Parse(j.Href); err == nil && u.Host == c.base.Host && u.Scheme == c.base.Scheme {
		target = j.Href
	}
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		return jobView{}, err
	}
	resp, err := c.send(ctx, req, "collect")
	if err != nil {
		return jobView{}, err
	}
	defer resp.Body.Close()
	var v jobView
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return jobView{}, fmt.Errorf("job %s: unreadable answer: %w", j.ID, err)
	}
	return v, nil
}

// retryable tells whether polling should go on after err: the service is unreachable or
// answered 5xx (it may be restarting; it recovers its jobs).
func retryable(err error) bool {
	var ue *unreachableError
	var ae *apiError
	return errors.As(err, &ue) || (errors.As(err, &ae) && ae.Status >= 500)
}

// waitJobs polls every job until it is final, showing progress.
func (c *apiClient) waitJobs(ctx context.Context, jobs []*submittedJob, prog *progress) error {
	pause := c.poll
	var failingSince time.Time
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	nextPoll := time.Now()
	for {
		if !time.Now().Before(nextPoll) {
			for _, j := range jobs {
				if finalState(j.Job.State.Current) {
					continue
				}
				v, err := c.job(ctx, j)
				if err != nil {
					if ctx.Err() != nil {
						prog.done()
						return ctx.Err()
					}
					if !retryable(err) {
						prog.done()
						return fmt.Errorf("job %s (%s): %w", j.ID, j.Source.Name, err)
					}
					if failingSince.IsZero() {
						failingSince = time.Now()
					}
					if time.Since(failingSince) > c.retryFor {
						prog.done()
						return fmt.Errorf("gave up waiting after %s of failures: %w", c.retryFor, err)
					}
					prog.warn(err.Error())
					break
				}
				failingSince = time.Time{}
				prog.warn("")
				if v.State.Current != j.Job.State.Current {
					prog.stateChanged(j, v.State.Current)
				}
				j.Job = v
				if finalState(v.State.Current) {
					j.Elapsed = time.Since(j.Start)
				}
			}
			if allFinal(jobs) {
				prog.done()
				return nil
			}
			nextPoll = time.Now().Add(pause)
			pause = min(c.pollMax, pause*3/2)
		}
		prog.update(jobs)
		select {
		case <-ctx.Done():
			prog.done()
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func allFinal(jobs []*submittedJob) bool {
	for _, j := range jobs {
		if !finalState(j.Job.State.Current) {
			return false
		}
	}
	return true
}

// progress shows the waiting on stderr: on a terminal one line redrawn in place with a
// spinner; otherwise a plain line per state change and a reminder every 30 s.
type progress struct {
	w        io.Writer
	tty      bool
	start    time.Time
	frame    int
	drawn    bool
	problem  string
	lastNote time.Time
}

func newProgress(f *os.File) *progress {
	p := &progress{w: f, start: time.Now(), lastNote: time.Now()}
	if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb" {
		p.tty = true
	}
	return p
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (p *progress) clear() {
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// println writes a message line, above the progress line on a terminal.
func (p *progress) println(msg string) {
	p.clear()
	fmt.Fprintln(p.w, msg)
}

func (p *progress) warn(msg string) {
	if msg != "" && msg != p.problem && !p.tty {
		fmt.Fprintf(p.w, "retrying: %s\n", msg)
	}
	p.problem = msg
}

func (p *progress) stateChanged(j *submittedJob, state string) {
	if !p.tty {
		fmt.Fprintf(p.w, "%s: job %s %s after %s\n", j.Source.Name, j.ID, state, roundDuration(time.Since(j.Start)))
	}
}

func (p *progress) update(jobs []*submittedJob) {
	elapsed := roundDuration(time.Since(p.start))
	if !p.tty {
		if time.Since(p.lastNote) >= 30*time.Second {
			p.lastNote = time.Now()
			fmt.Fprintf(p.w, "waiting: %s after %s\n", summarize(jobs), elapsed)
		}
		return
	}
	p.frame = (p.frame + 1) % len(spinner)
	line := fmt.Sprintf("%s %s · %s", spinner[p.frame], summarize(jobs), elapsed)
	if p.problem != "" {
		line += " · retrying: " + p.problem
	}
	fmt.Fprint(p.w, "\r\033[K"+line)
	p.drawn = true
}

func (p *progress) done() { p.clear() }

// summarize counts jobs by state: "job 1a2b… IN_PROGRESS" or "4 jobs: 2 DONE, 1 IN_PROGRESS, 1 SUBMITTED".
func summarize(jobs []*submittedJob) string {
	state := func(j *submittedJob) string {
		if j.Job.State.Current == "" {
			return "SUBMITTED"
		}
		return j.Job.State.Current
	}
	if len(jobs) == 1 {
		return fmt.Sprintf("%s: job %s %s", jobs[0].Source.Name, shortID(jobs[0].ID), state(jobs[0]))
	}
	counts := map[string]int{}
	for _, j := range jobs {
		counts[state(j)]++
	}
	var parts []string
	for _, s := range []string{"DONE", "ERROR", "TIMEOUT", "IN_PROGRESS", "SUBMITTED"} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	return fmt.Sprintf("%d jobs: %s", len(jobs), strings.Join(parts, ", "))
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// maxShownFailures is how many failed operations of a file the report prints.
const maxShownFailures = 5

// printJobReport prints a final job: state, overview, each file's counts and error, and its
// first failed operations.
func printJobReport(w io.Writer, j *submittedJob) {
	v := j.Job
	fmt.Fprintf(w, "\n%s: %s in %s (job %s)\n", j.Source.Name, v.State.Current, roundDuration(j.Elapsed), j.ID)
	if e := v.Report.Error; e != nil {
		fmt.Fprintf(w, "  error %s: %s\n", e.Code, e.Message)
	}
	o := v.Report.Overview
	fmt.Fprintf(w, "  %d operations: %d OK, %d KO\n", o.Total, o.OK, o.KO)
	width := 0
	for _, f := range v.Report.Files {
		width = max(width, len(f.Name))
	}
	for _, f := range v.Report.Files {
		fmt.Fprintf(w, "  %-*s  %d operations: %d OK, %d KO\n", width, f.Name, f.Total, f.OK, f.KO)
		if f.Error != nil {
			fmt.Fprintf(w, "    error %s: %s\n", f.Error.Code, f.Error.Message)
		}
		for i, op := range f.FailedOperations {
			if i == maxShownFailures {
				break
			}
			for _, e := range op.Errors {
				field := ""
				if e.Field != "" {
					field = "." + e.Field
				}
				fmt.Fprintf(w, "    %s[%d]%s: %s: %s\n", op.Array, op.Index, field, e.Code, e.Message)
			}
		}
		if more := f.KO - min(len(f.FailedOperations), maxShownFailures); more > 0 && f.Error == nil {
			fmt.Fprintf(w, "    … and %d more failed operations (GET %s for the list)\n", more, j.Href)
		}
	}
}
