package ingest

import (
	"errors"
	"time"
)

// Job states (apidocs/README.md, "Jobs"): SUBMITTED → IN_PROGRESS → DONE | ERROR | TIMEOUT, and
// SUBMITTED → TIMEOUT when a job waits past the deadline.
const (
	StateSubmitted  = "SUBMITTED"
	StateInProgress = "IN_PROGRESS"
	StateDone       = "DONE"
	StateError      = "ERROR"
	StateTimeout    = "TIMEOUT"
)

// States lists every job state, in documentation order.
var States = []string{StateSubmitted, StateInProgress, StateDone, StateError, StateTimeout}

// CodeTimeout is report.error.code of a TIMEOUT job (the message says which deadline passed).
const CodeTimeout = "TIMEOUT"

// Final tells whether a job in state never changes again.
func Final(state string) bool {
	return state == StateDone || state == StateError || state == StateTimeout
}

// ErrJobNotFound is returned for an unknown job and for another tenant's job alike.
var ErrJobNotFound = errors.New("job not found")

// Transition is one entry of a job's state history.
type Transition struct {
	State string
	TS    time.Time
}

// Overview counts a job's operations: Total = OK + KO.
type Overview struct {
	Total, OK, KO int
}

// Job is an archive collection job as stored. Times are UTC, whole seconds (the column type).
type Job struct {
	ID          string
	TenantID    string
	Archive     string // the file name of the uploaded part
	State       string
	StateTS     time.Time
	SubmittedTS time.Time
	History     []Transition
	Overview    Overview
	Error       *ErrorInfo   // set in ERROR and TIMEOUT
	Files       []FileReport // set in DONE; not loaded by listings
}

// newJob is the SUBMITTED job of a spooled archive: made when the archive is accepted, and
// again at start for an archive whose job row was never written.
func newJob(m spoolMeta) Job {
	j := Job{ID: m.ID, TenantID: m.TenantID, Archive: m.Archive, SubmittedTS: stamp(m.SubmittedTS)}
	return j.to(StateSubmitted, j.SubmittedTS)
}

// to returns the job moved to state at ts, with the transition appended to its history.
func (j Job) to(state string, ts time.Time) Job {
	j.State, j.StateTS = state, ts
	j.History = append(append([]Transition(nil), j.History...), Transition{State: state, TS: ts})
	return j
}

// stamp is the stored form of an instant: UTC, whole seconds.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
