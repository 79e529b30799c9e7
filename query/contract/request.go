package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"energy/query/consumption"
	"energy/schema/registry"
)

// Bounds of a simulation request.
const (
	MaxCandidates = 20
	MaxPeriodDays = 366
)

// RequestError is a request that cannot be simulated; Param names the request's part at fault
// (tariffIds, endTs).
type RequestError struct {
	Param, Message string
}

func (e *RequestError) Error() string { return e.Param + ": " + e.Message }

// SplitTariffIDs splits a comma-separated list of tariff ids: blank items ignored, repeats
// dropped (the first kept), 1 to MaxCandidates ids.
func SplitTariffIDs(list string) ([]string, error) {
	var ids []string
	for item := range strings.SplitSeq(list, ",") {
		if item = strings.TrimSpace(item); item != "" && !contains(ids, item) {
			ids = append(ids, item)
		}
	}
	switch {
	case len(ids) == 0:
		return nil, &RequestError{"tariffIds", fmt.Sprintf("name 1 to %d tariff ids, comma-separated", MaxCandidates)}
	case len(ids) > MaxCandidates:
		return nil, &RequestError{"tariffIds", fmt.Sprintf("at most %d tariffs (got %d)", MaxCandidates, len(ids))}
	}
	return ids, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// NewRequest checks a request of the tenant's site over [start, end) (instants in the site's
// zone loc) with the candidates ids, found with tariff (the registry or its directory).
func NewRequest(ctx context.Context, tariff func(ctx context.Context, tenantID, tariffID string) (registry.Tariff, error),
	tenantID string, loc *time.Location, start, end time.Time, ids []string) (Request, error) {
	req := Request{Start: start.In(loc), End: end.In(loc)}
	if !req.End.After(req.Start) {
		return req, &RequestError{"endTs", fmt.Sprintf("%s must be after startTs %s", req.End.Format(time.RFC3339), req.Start.Format(time.RFC3339))}
	}
	if limit := consumption.AddSteps(req.Start, loc, consumption.UnitDays, MaxPeriodDays); req.End.After(limit) {
		return req, &RequestError{"endTs", fmt.Sprintf("the period may last at most %d days, until %s (got %s)",
			MaxPeriodDays, limit.Format(time.RFC3339), req.End.Format(time.RFC3339))}
	}
	for _, id := range ids {
		t, err := tariff(ctx, tenantID, id)
		switch {
		case errors.Is(err, registry.ErrNotFound):
			return req, &RequestError{"tariffIds", fmt.Sprintf("tariff %q does not exist", id)}
		case err != nil:
			return req, err
		case t.Option == registry.OptionGas:
			return req, &RequestError{"tariffIds", fmt.Sprintf("tariff %q is a GAS tariff; only electricity tariffs can be simulated", id)}
		}
		req.Candidates = append(req.Candidates, t)
	}
	return req, nil
}
