package main

import (
	"fmt"
	"io"
)

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
