package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

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
