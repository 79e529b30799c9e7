package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"energy/schema/registry"
)

// energyctl calendar import: the colours of a day-colour calendar's dates (RTE's Tempo days)
// from a CSV file, through the store, as PUT /v1/day-colour-calendars/{id}/days would.

func calendarImport(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("calendar import")
	id := c.fs.String("calendar", "", "day-colour calendar id (required); created when missing")
	name := c.fs.String("name", "", "name of a calendar created by the import (default: its id)")
	startsAt := c.fs.String("day-starts-at", "06:00", "local time a colour day of a calendar created by the import starts at (RTE's Tempo: 06:00)")
	c.usage(`usage: energyctl calendar import --tenant T --calendar ID [--name N] [--day-starts-at HH:MM] FILE.csv

FILE.csv ("-" for standard input) holds one date a line, date,colour (an optional header line
"date,colour"); colour is BLUE, WHITE or RED, for example
  date,colour
  2025-01-06,BLUE
  2025-01-07,RED
The whole file is checked before anything is stored: a bad line is reported and nothing is
imported. Each date's colour is created or replaced; other dates are kept. A running energyd
drops the answers that depended on the former colours.

flags:`)
	if err := c.fs.Parse(args); err != nil {
		return err
	}
	if err := needTenant(*c.tenant); err != nil {
		return err
	}
	if *id == "" || c.fs.NArg() != 1 {
		c.fs.Usage()
		return errors.New("--calendar and one FILE are required")
	}
	data, err := readInput(c.fs.Arg(0))
	if err != nil {
		return err
	}
	days, err := parseDayColours(data)
	if err != nil {
		return err
	}
	db, err := c.store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := registry.New(db)
	_, err = reg.DayColourCalendar(ctx, *c.tenant, *id)
	if errors.Is(err, registry.ErrNotFound) {
		n := *name
		if n == "" {
			n = *id
		}
		err = reg.PutDayColourCalendar(ctx, registry.DayColourCalendar{TenantID: *c.tenant, CalendarID: *id, Name: n, DayStartsAt: *startsAt})
	}
	if err != nil {
		return err
	}
	for from := 0; from < len(days); from += registry.MaxDayColoursPerPut {
		if err := reg.PutDayColours(ctx, *c.tenant, *id, days[from:min(from+registry.MaxDayColoursPerPut, len(days))]); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(stdout, "imported %d dates into day-colour calendar %s of tenant %s\n", len(days), *id, *c.tenant)
	return err
}

// parseDayColours reads date,colour lines (colours in any case), checking each and naming the
// line of the first bad one.
func parseDayColours(data []byte) ([]registry.DayColour, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	var days []registry.DayColour
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if line == 1 && len(rec) == 2 && strings.EqualFold(strings.TrimSpace(rec[0]), "date") {
			continue // the header
		}
		if len(rec) != 2 {
			return nil, fmt.Errorf("line %d: want date,colour (2 fields), got %d", line, len(rec))
		}
		d := registry.DayColour{Date: strings.TrimSpace(rec[0]), Colour: strings.ToUpper(strings.TrimSpace(rec[1]))}
		var fe *registry.FieldError
		if err := registry.ValidateDayColours([]registry.DayColour{d}); errors.As(err, &fe) {
			return nil, fmt.Errorf("line %d: %s %s", line, strings.TrimPrefix(fe.Field, "[0]."), fe.Message)
		}
		days = append(days, d)
	}
	if len(days) == 0 {
		return nil, errors.New("the file holds no date")
	}
	return days, nil
}
