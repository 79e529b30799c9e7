package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// energyctl advices submits a recommendation job (POST /v1/jobs/advices on the advice
// listener), waits for it with a progress display on stderr and prints each element's advices
// as a table. It talks to the service over HTTP only.

const defaultAdviceURL = "http://127.0.0.1:8081"

func runAdvices(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("advices", flag.ContinueOnError)
	api := os.Getenv("ENERGY_ADVICE_API_URL")
	if api == "" {
		api = defaultAdviceURL
	}
	fs.StringVar(&api, "api", api, "base URL of the energyd recommendation API (env ENERGY_ADVICE_API_URL)")
	token := fs.String("token", os.Getenv("ENERGY_TOKEN"), "bearer token with the advices scope (env ENERGY_TOKEN)")
	asJSON := fs.Bool("json", false, "print the finished job as JSON instead of tables")
	setUsage(fs, "usage: energyctl advices [--api URL] [--token T] [--json] FILE.json\n\nFILE.json (- for standard input) is the job's body: a JSON array of 1 to 100 elements\n{\"input\": {\"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION\": 12000, ...}}. Waits for the job and\nprints, per element, the advices given with their savings and the advices ignored with why.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("give one JSON file")
	}
	body, err := readInput(fs.Arg(0))
	if err != nil {
		return err
	}
	c, err := newAPIClient(api, *token)
	if err != nil {
		return fmt.Errorf("%s (the recommendation API, default %s)", err, defaultAdviceURL)
	}
	job, err := c.runAdviceJob(ctx, body, newProgress(os.Stderr))
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(job)
	}
	printAdviceJob(os.Stdout, job)
	if job.Status != "DONE" {
		return fmt.Errorf("advice job %s ended %s", job.JobID, job.Status)
	}
	return nil
}

// adviceJobView is a recommendation job as the service returns it.
type adviceJobView struct {
	JobID     string         `json:"jobId"`
	Status    string         `json:"status"`
	CreatedTs string         `json:"createdTs,omitempty"`
	UpdatedTs string         `json:"updatedTs,omitempty"`
	Result    []adviceResult `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type adviceResult struct {
	Context map[string]any           `json:"context"`
	Advices map[string]adviceSavings `json:"advices"`
	Ignored map[string]string        `json:"ignored"`
}

type adviceSavings struct {
	SavingsKwh float64 `json:"savingsKwh"`
	SavingsEur float64 `json:"savingsEur"`
	Rate       float64 `json:"rate"`
	Basis      float64 `json:"basis"`
}

// runAdviceJob submits the body and polls the job until DONE or ERROR, showing its status.
func (c *apiClient) runAdviceJob(ctx context.Context, body []byte, prog *progress) (adviceJobView, error) {
	var job adviceJobView
	submitted, err := c.advice.SubmitAdviceJobWithBodyWithResponse(ctx, "application/json", bytes.NewReader(body))
	if err := c.decode(ctx, submitted, err, "advices", &job); err != nil {
		return job, err
	}
	prog.println(fmt.Sprintf("advice job %s %s", job.JobID, job.Status))
	start, pause := time.Now(), c.poll
	var failingSince time.Time
	for job.Status != "DONE" && job.Status != "ERROR" {
		select {
		case <-ctx.Done():
			prog.done()
			return job, fmt.Errorf("stopped waiting; job %s goes on in the service", job.JobID)
		case <-time.After(pause):
		}
		pause = min(c.pollMax, pause*3/2)
		var next adviceJobView
		read, err := c.advice.GetAdviceJobWithResponse(ctx, job.JobID)
		if err := c.decode(ctx, read, err, "advices", &next); err != nil {
			if !retryable(err) {
				prog.done()
				return job, err
			}
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if time.Since(failingSince) > c.retryFor {
				prog.done()
				return job, fmt.Errorf("gave up waiting after %s of failures: %w", c.retryFor, err)
			}
			prog.warn(err.Error())
			continue
		}
		failingSince = time.Time{}
		if next.Status != job.Status && !prog.tty {
			prog.println(fmt.Sprintf("advice job %s %s after %s", next.JobID, next.Status, roundDuration(time.Since(start))))
		}
		job = next
		if prog.tty {
			prog.frame = (prog.frame + 1) % len(spinner)
			fmt.Fprintf(prog.w, "\r\033[K%s advice job %s %s · %s", spinner[prog.frame], job.JobID, job.Status, roundDuration(time.Since(start)))
			prog.drawn = true
		}
	}
	prog.done()
	return job, nil
}

// decode reads the JSON answer of a generated client's call into v (energyctl's own view of
// it); scope is what the operation needs.
func (c *apiClient) decode(ctx context.Context, a answer, err error, scope string, v any) error {
	if err := c.outcome(ctx, a, err, scope); err != nil {
		return err
	}
	if err := json.Unmarshal(a.GetBody(), v); err != nil {
		return fmt.Errorf("unreadable answer from %s: %w", c.base, err)
	}
	return nil
}

// printAdviceJob writes each element's advices as a table, then what was ignored and why.
func printAdviceJob(out io.Writer, job adviceJobView) {
	fmt.Fprintf(out, "advice job %s: %s\n", job.JobID, job.Status)
	if job.Error != nil {
		fmt.Fprintf(out, "error: %s\n", job.Error.Message)
	}
	for i, r := range job.Result {
		fmt.Fprintf(out, "\n[%d] %s\n", i, describeHome(r.Context))
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ADVICE\tRATE\tBASIS kWh\tSAVES kWh\tSAVES EUR")
		for _, code := range sortedKeys(r.Advices) {
			a := r.Advices[code]
			fmt.Fprintf(tw, "%s\t%.4g\t%.2f\t%.2f\t%.2f\n", code, a.Rate, a.Basis, a.SavingsKwh, a.SavingsEur)
		}
		fmt.Fprintf(tw, "TOTAL\t\t\t%.2f\t%.2f\n", number(r.Context["totalSavingsKwh"]), number(r.Context["totalSavingsEur"]))
		_ = tw.Flush()
		for _, code := range sortedKeys(r.Ignored) {
			fmt.Fprintf(out, "  not advised: %s (%s)\n", code, r.Ignored[code])
		}
		if unknown, ok := r.Context["unknownInputs"].([]any); ok && len(unknown) > 0 {
			fmt.Fprintf(out, "  unknown inputs: %s\n", strings.Trim(fmt.Sprint(unknown), "[]"))
		}
	}
}

// describeHome sums up the derived values: heating fluid and consumption, energy class.
func describeHome(ctx map[string]any) string {
	var parts []string
	if fluid, ok := ctx["heatingFluid"].(string); ok {
		s := fluid + " heating"
		if kwh, ok := ctx["heatingKwh"].(float64); ok {
			s += fmt.Sprintf(" %.0f kWh/year", kwh)
		}
		if price, ok := ctx["heatingPriceEurPerKwh"].(float64); ok {
			s += fmt.Sprintf(" at %.4f EUR/kWh", price)
		}
		parts = append(parts, s)
	}
	if class, ok := ctx["energyClass"].(string); ok {
		parts = append(parts, fmt.Sprintf("energy class %s (%.2f kWh primary/m²)", class, number(ctx["primaryEnergyKwhPerM2"])))
	}
	if len(parts) == 0 {
		return "heating unknown"
	}
	return strings.Join(parts, ", ")
}

func number(v any) float64 { f, _ := v.(float64); return f }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
