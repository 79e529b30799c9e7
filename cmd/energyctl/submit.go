package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// energyctl submit sends archives to POST /v2/indexes-collect-jobs, prints each job link, then
// polls the jobs with a progress display on stderr until they are final and prints their
// reports. It talks to the service over HTTP only: the archive format and the job resource are
// the contract.

func runSubmit(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("submit", flag.ContinueOnError)
	var af apiFlags
	af.register(fs)
	noWait := fs.Bool("no-wait", false, "print the job links and exit without waiting for the jobs")
	setUsage(fs, "usage: energyctl submit [--api URL] [--token T] [--no-wait] FILE...\n\nSubmits each .tar.gz archive (plain or OpenPGP-encrypted) and, unless --no-wait, waits for\nits job and prints the report. Exits non-zero if a submission fails or a job ends ERROR or TIMEOUT.")
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
	length := int64(head.Len()) + size + int64(len(tail))
	withLength := func(_ context.Context, req *http.Request) error {
		req.ContentLength = length
		return nil
	}
	resp, err := c.api.SubmitArchiveWithBodyWithResponse(ctx, mw.FormDataContentType(), io.MultiReader(&head, content, strings.NewReader(tail)), withLength)
	if err := c.outcome(ctx, resp, err, "collect"); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusRequestEntityTooLarge {
			return "", fmt.Errorf("%s is %d bytes: the service accepts archives of at most 2,500,000 bytes (HTTP 413); split its files into smaller archives", src.Name, size)
		}
		return "", err
	}
	if resp.JSON200 == nil || resp.JSON200.UnderscoreLinks.Self.Href == "" {
		return "", fmt.Errorf("the service accepted %s but its answer has no _links.self.href (HTTP %d)", src.Name, resp.StatusCode())
	}
	return resp.JSON200.UnderscoreLinks.Self.Href, nil
}

// job reads a job under --api by the id its link ends with (the link itself may carry a public
// URL the client cannot reach).
func (c *apiClient) job(ctx context.Context, j *submittedJob) (jobView, error) {
	var v jobView
	resp, err := c.api.GetJobWithResponse(ctx, j.ID)
	if err := c.decode(ctx, resp, err, "collect", &v); err != nil {
		return jobView{}, err
	}
	return v, nil
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
