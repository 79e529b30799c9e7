package advices

import (
	"encoding/json"
	"errors"
	"time"
)

// Job statuses: CREATED (stored, waiting for a worker) → IN_PROGRESS → DONE | ERROR.
const (
	StatusCreated    = "CREATED"
	StatusInProgress = "IN_PROGRESS"
	StatusDone       = "DONE"
	StatusError      = "ERROR"
)

// ErrJobNotFound: no such job for the tenant (another tenant's job included).
var ErrJobNotFound = errors.New("advice job not found")

// Job is a recommendation job: its inputs and, once DONE, one result per input.
type Job struct {
	ID        string
	TenantID  string
	Status    string
	CreatedTS time.Time
	UpdatedTS time.Time
	Inputs    []Input
	Results   []Result // empty until DONE
	Error     string   // why the job is in ERROR
	// accepted is when this process accepted the job (zero for a recovered job), for the
	// latency metric: CreatedTS keeps whole seconds only.
	accepted time.Time
}

// to returns the job in a new status at ts.
func (j Job) to(status string, ts time.Time) Job {
	j.Status, j.UpdatedTS = status, ts
	return j
}

// storedInput is how an Input is kept with its job: its values and unknown key names.
type storedInput struct {
	Values  map[Key]any `json:"values"`
	Unknown []string    `json:"unknown"`
}

// MarshalJSON keeps an Input with its job.
func (in Input) MarshalJSON() ([]byte, error) {
	return json.Marshal(storedInput{Values: in.values, Unknown: in.unknown})
}

// UnmarshalJSON reads an Input kept with its job (numbers come back as float64, as parsed).
func (in *Input) UnmarshalJSON(b []byte) error {
	var s storedInput
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s.Unknown == nil {
		s.Unknown = []string{}
	}
	in.values, in.unknown = s.Values, s.Unknown
	return nil
}
