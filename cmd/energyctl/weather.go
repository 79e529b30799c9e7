package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"energy/query/weather"
	"energy/schema"
	"energy/schema/registry"
)

// weatherImportBatch is the number of rows per insert.
const weatherImportBatch = 10_000

func runWeatherImport(ctx context.Context, args []string) error {
	fs, store := newStoreFlagSet("weather import")
	tenant := tenantFlag(fs)
	station := fs.String("station", "", "weather station id; the station must exist (required)")
	format := fs.String("format", "", "csv or json; default: from the file name, else from the content")
	setUsage(fs, `usage: energyctl weather import --tenant T --station ID [--format csv|json] FILE

FILE ("-" for standard input) is either
  CSV with a header line naming the columns date,temperature,wind,cloudiness[,picto] (any order), or
  JSON: the body of PUT /v1/weather-stations/{stationId}/observations,
        [{"date":"2024-01-01T12:00:00+01:00","temperature":3.2,"wind":12.5,"cloudiness":6,"picto":"P7"}].
date is RFC 3339 with offset (whole seconds), temperature °C, wind km/h, cloudiness okta 0..8;
picto is optional (default P1 + okta rounded: P1 clear sky .. P9 overcast).
The whole file is validated before anything is stored: a bad value is reported with its line
and nothing is imported. For one date, the value imported last wins; other dates are kept.

flags:`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tenant == "" || *station == "" || fs.NArg() != 1 {
		fs.Usage()
		return errors.New("--tenant, --station and one FILE are required")
	}
	name := fs.Arg(0)
	data, err := readInput(name)
	if err != nil {
		return err
	}
	obs, err := parseObservations(data, name, *format)
	if err != nil {
		return err
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := importObservations(ctx, db, *tenant, *station, obs, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "imported %d observations into station %s of tenant %s\n", n, *station, *tenant)
	return nil
}

func readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(bufio.NewReader(os.Stdin))
	}
	return os.ReadFile(name)
}

// importObservations checks the station, then inserts obs (already validated) in batches,
// writing "rows done / total" to progress after each batch. Like a weather PUT, it then records
// a change of the tenant's reference data, so that a running energyd drops the answers and
// daily means it computed from the station's former weather.
func importObservations(ctx context.Context, db *schema.DB, tenantID, stationID string, obs []weather.Observation, progress io.Writer) (int, error) {
	reg := registry.New(db)
	if _, err := reg.Station(ctx, tenantID, stationID); errors.Is(err, registry.ErrNotFound) {
		return 0, fmt.Errorf("weather station %q does not exist in tenant %q (create it with PUT /v1/weather-stations/%s)", stationID, tenantID, stationID)
	} else if err != nil {
		return 0, err
	}
	w := weather.NewStore(db)
	for done := 0; done < len(obs); {
		end := min(done+weatherImportBatch, len(obs))
		if err := w.Put(ctx, tenantID, stationID, obs[done:end]); err != nil {
			return done, fmt.Errorf("after %d of %d rows: %w", done, len(obs), err)
		}
		done = end
		fmt.Fprintf(progress, "weather import: %d / %d rows\n", done, len(obs))
	}
	reg.Versions.Bump(tenantID, "")
	return len(obs), nil
}

// parseObservations reads a whole CSV or JSON file and validates every row; errors name the
// file's line. format is "csv", "json" or "" (by extension, else by the first character).
func parseObservations(data []byte, name, format string) ([]weather.Observation, error) {
	if format == "" {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".csv":
			format = "csv"
		case ".json":
			format = "json"
		default:
			if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '[' {
				format = "json"
			} else {
				format = "csv"
			}
		}
	}
	var obs []weather.Observation
	var lines []int // file line of each observation
	var err error
	switch format {
	case "csv":
		obs, lines, err = parseObservationsCSV(data)
	case "json":
		obs, lines, err = parseObservationsJSON(data)
	default:
		return nil, fmt.Errorf("--format: %q is neither csv nor json", format)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(obs) == 0 {
		return nil, fmt.Errorf("%s: no observation in the file", name)
	}
	if err := weather.ValidateObservations(obs); err != nil {
		var oe *weather.ObservationError
		if errors.As(err, &oe) {
			return nil, fmt.Errorf("%s: line %d: %s: %s (nothing imported)", name, lines[oe.Index], oe.Field, oe.Message)
		}
		return nil, err
	}
	return obs, nil
}

var observationColumns = []string{"date", "temperature", "wind", "cloudiness", "picto"}

func parseObservationsCSV(data []byte) ([]weather.Observation, []int, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("line 1: a header line date,temperature,wind,cloudiness[,picto] is required: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		known := false
		for _, c := range observationColumns {
			known = known || c == h
		}
		if !known {
			return nil, nil, fmt.Errorf("line 1: unknown column %q (columns: date, temperature, wind, cloudiness, picto)", header[i])
		}
		if _, dup := col[h]; dup {
			return nil, nil, fmt.Errorf("line 1: column %q appears twice", h)
		}
		col[h] = i
	}
	for _, c := range observationColumns[:4] {
		if _, ok := col[c]; !ok {
			return nil, nil, fmt.Errorf("line 1: the header lacks the column %q", c)
		}
	}
	var obs []weather.Observation
	var lines []int
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, nil, err // csv errors carry their line
		}
		number := func(c string) (float64, error) {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[col[c]]), 64)
			if err != nil {
				return 0, fmt.Errorf("line %d: %s: %q is not a number", line, c, rec[col[c]])
			}
			return v, nil
		}
		var o weather.Observation
		if o.Date, err = time.Parse(time.RFC3339, strings.TrimSpace(rec[col["date"]])); err != nil {
			return nil, nil, fmt.Errorf("line %d: date: %q is not RFC 3339 with offset (for example 2024-01-01T12:00:00+01:00)", line, rec[col["date"]])
		}
		if o.Temperature, err = number("temperature"); err != nil {
			return nil, nil, err
		}
		if o.Wind, err = number("wind"); err != nil {
			return nil, nil, err
		}
		if o.Cloudiness, err = number("cloudiness"); err != nil {
			return nil, nil, err
		}
		if i, ok := col["picto"]; ok {
			o.Picto = strings.TrimSpace(rec[i])
		}
		obs = append(obs, o)
		lines = append(lines, line)
	}
	return obs, lines, nil
}

// observationJSON is one item of the JSON file; pointers tell a missing field from 0.
type observationJSON struct {
	Date        *time.Time `json:"date"`
	Temperature *float64   `json:"temperature"`
	Wind        *float64   `json:"wind"`
	Cloudiness  *float64   `json:"cloudiness"`
	Picto       string     `json:"picto"`
}

func parseObservationsJSON(data []byte) ([]weather.Observation, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	lineAt := func(offset int64) int { return 1 + bytes.Count(data[:offset], []byte("\n")) }
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, nil, errors.New("line 1: the file must hold a JSON array of observations")
	}
	var obs []weather.Observation
	var lines []int
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		start := dec.InputOffset()
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, fmt.Errorf("line %d: item %d: %w", lineAt(dec.InputOffset()), i, err)
		}
		for start < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[start]) >= 0 {
			start++ // the item begins after the separator that precedes it
		}
		line := lineAt(start)
		var it observationJSON
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&it); err != nil {
			return nil, nil, fmt.Errorf("line %d: item %d: %w", line, i, err)
		}
		for _, f := range []struct {
			name    string
			missing bool
		}{{"date", it.Date == nil}, {"temperature", it.Temperature == nil}, {"wind", it.Wind == nil}, {"cloudiness", it.Cloudiness == nil}} {
			if f.missing {
				return nil, nil, fmt.Errorf("line %d: item %d: %s is required", line, i, f.name)
			}
		}
		obs = append(obs, weather.Observation{Date: *it.Date, Temperature: *it.Temperature, Wind: *it.Wind, Cloudiness: *it.Cloudiness, Picto: it.Picto})
		lines = append(lines, line)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("line %d: %w", lineAt(dec.InputOffset()), err)
	}
	return obs, lines, nil
}
