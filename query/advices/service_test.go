package advices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
)

// waitFinal polls a job until DONE or ERROR.
func waitFinal(t *testing.T, s *Service, tenant, id string) Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		j, err := s.Get(context.Background(), tenant, id)
		if err != nil {
			t.Fatalf("get job %s: %v", id, err)
		}
		if j.Status == StatusDone || j.Status == StatusError {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s after 20 s", id, j.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func startService(t *testing.T, db *schema.DB, cfg Config) *Service {
	t.Helper()
	s := NewService(db, cfg)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

// TestHundredElements: one job of 100 elements ends DONE with result[i] answering input[i].
func TestHundredElements(t *testing.T) {
	db := chtest.DB(t)
	s := startService(t, db, Config{Workers: 2})
	var elems []string
	for i := range 100 {
		elems = append(elems, fmt.Sprintf(`{"input": {"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": %d, "HOUSING_HEATING_SETPOINT": 21}}`, 1000*(i+1)))
	}
	j, err := s.Submit(context.Background(), "t1", []byte("["+strings.Join(elems, ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != StatusCreated || len(j.ID) != 36 {
		t.Fatalf("submitted job %+v, want CREATED with a UUID", j)
	}
	done := waitFinal(t, s, "t1", j.ID)
	if done.Status != StatusDone || len(done.Results) != 100 {
		t.Fatalf("job %s with %d results, want DONE with 100", done.Status, len(done.Results))
	}
	for i, r := range done.Results {
		// 0.14 of (i+1) × 1000 kWh at 0.11 EUR/kWh
		kwh := 140.0 * float64(i+1)
		got := r.Advices[CodeLowerSetpoint]
		if got.SavingsKwh != kwh || got.SavingsEur != round2(kwh*0.11) {
			t.Fatalf("result[%d] setpoint saving %+v, want %v kWh, %v EUR", i, got, kwh, round2(kwh*0.11))
		}
	}
	if done.UpdatedTS.Before(done.CreatedTS) {
		t.Errorf("updatedTs %v before createdTs %v", done.UpdatedTS, done.CreatedTS)
	}
}

// TestRecoveredAfterRestart: jobs left CREATED and IN_PROGRESS by a stopped service are
// computed by the next one.
func TestRecoveredAfterRestart(t *testing.T) {
	db := chtest.DB(t)
	stopped := NewService(db, Config{}) // never started: jobs stay CREATED, as after a crash
	body := []byte(`[{"input": {"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21, "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false}}]`)
	created, err := stopped.Submit(context.Background(), "t1", body)
	if err != nil {
		t.Fatal(err)
	}
	inProgress, err := stopped.Submit(context.Background(), "t2", body)
	if err != nil {
		t.Fatal(err)
	}
	if err := stopped.store.put(context.Background(), inProgress.to(StatusInProgress, inProgress.CreatedTS)); err != nil {
		t.Fatal(err)
	}

	s := startService(t, db, Config{})
	for _, j := range []Job{created, inProgress} {
		done := waitFinal(t, s, j.TenantID, j.ID)
		if done.Status != StatusDone || done.Results[0].Context["totalSavingsEur"] != 298.32 {
			t.Errorf("recovered job %s: %s, total %v EUR, want DONE, 298.32", j.ID, done.Status, done.Results[0].Context)
		}
	}
}

// TestTenantIsolation: another tenant's job is not found, exactly like an unknown one.
func TestTenantIsolation(t *testing.T) {
	db := chtest.DB(t)
	s := startService(t, db, Config{})
	j, err := s.Submit(context.Background(), "owner", []byte(`[{"input": {"HOUSING_TYPE": "HOUSE"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tenant, id string }{{"other", j.ID}, {"owner", "00000000-0000-0000-0000-000000000000"}, {"owner", "not-a-uuid"}} {
		if _, err := s.Get(context.Background(), c.tenant, c.id); !errors.Is(err, ErrJobNotFound) {
			t.Errorf("tenant %s, job %s: %v, want ErrJobNotFound", c.tenant, c.id, err)
		}
	}
	if got := waitFinal(t, s, "owner", j.ID); got.Status != StatusDone {
		t.Errorf("owner's job %s", got.Status)
	}
}

// TestBadBodyStoresNothing: a refused body leaves no job behind.
func TestBadBodyStoresNothing(t *testing.T) {
	db := chtest.DB(t)
	s := startService(t, db, Config{})
	_, err := s.Submit(context.Background(), "t1", []byte(`[{"input": {"HOUSING_TYPE": "HOUSE"}}, {"input": {"HOUSING_SURFACE": 0}}]`))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Path != "[1].input.HOUSING_SURFACE" {
		t.Fatalf("error %v, want one naming [1].input.HOUSING_SURFACE", err)
	}
	var n uint64
	if err := db.Conn.QueryRow(context.Background(), "SELECT count() FROM advice_jobs").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d jobs stored (%v), want 0", n, err)
	}
}

// TestSiteIDWithoutHeatingEngine: without site heating data SITE_ID is refused, naming the key.
func TestSiteIDWithoutHeatingEngine(t *testing.T) {
	s := NewService(nil, Config{})
	_, err := s.Submit(context.Background(), "t1", []byte(`[{"input": {"HOUSING_TYPE": "HOUSE"}}, {"input": {"SITE_ID": "home"}}]`))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Path != "[1].input.SITE_ID" || !strings.Contains(ie.Reason, "not supported") {
		t.Fatalf("error %v, want one naming [1].input.SITE_ID and why", err)
	}
}

// siteHeatingTable answers LastYearHeating from a fixed table, recording the calls.
type siteHeatingTable struct {
	sites map[string]struct {
		fluid Fluid
		kwh   float64
	}
	calls int
}

func (h *siteHeatingTable) LastYearHeating(_ context.Context, tenantID, siteID string) (Fluid, float64, error) {
	h.calls++
	if siteID == "empty" {
		return "", 0, &SiteDataError{Reason: "has no heating fluid"}
	}
	s, ok := h.sites[tenantID+"/"+siteID]
	if !ok {
		return "", 0, ErrUnknownSite
	}
	return s.fluid, s.kwh, nil
}

// TestSiteIDFills: the site's heating fills the missing consumption of its fluid, a given
// consumption wins, each site is read once, unknown sites are refused naming the key.
func TestSiteIDFills(t *testing.T) {
	h := &siteHeatingTable{sites: map[string]struct {
		fluid Fluid
		kwh   float64
	}{"t1/gas-home": {FluidGas, 12000}, "t1/elec-home": {FluidElec, 6000}}}
	s := &Service{cfg: Config{Heating: h}}
	_, inputs, err := ParseRequest([]byte(`[{"input": {"SITE_ID": "gas-home", "HOUSING_HEATING_SETPOINT": 21}},
		{"input": {"SITE_ID": "gas-home", "HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 5000}},
		{"input": {"SITE_ID": "elec-home"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	filled, err := s.fillFromSites(context.Background(), "t1", inputs)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{Compute(filled[0]).Context["heatingKwh"], Compute(filled[1]).Context["heatingKwh"], Compute(filled[2]).Context["heatingKwh"]}
	if want := []any{12000.0, 5000.0, 6000.0}; !reflect.DeepEqual(got, want) || h.calls != 2 {
		t.Errorf("heatingKwh %v after %d reads, want %v after 2", got, h.calls, want)
	}
	if r := Compute(filled[0]); r.Advices[CodeLowerSetpoint].SavingsEur != 184.80 {
		t.Errorf("site-filled setpoint advice %+v, want 184.80 EUR", r.Advices[CodeLowerSetpoint])
	}
	for site, reason := range map[string]string{"elsewhere": `site "elsewhere" does not exist`, "empty": `site "empty": has no heating fluid`} {
		_, inputs, _ := ParseRequest([]byte(`[{"input": {"SITE_ID": "` + site + `"}}]`))
		_, err := s.fillFromSites(context.Background(), "t1", inputs)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Path != "[0].input.SITE_ID" || ie.Reason != reason {
			t.Errorf("site %s: %v, want [0].input.SITE_ID: %s", site, err, reason)
		}
	}
}

// TestStoredInputRoundTrip: an input kept with its job computes the same result.
func TestStoredInputRoundTrip(t *testing.T) {
	_, inputs, err := ParseRequest([]byte(`[{"input": {"HOUSING_OCCUPANTS": 3, "HOUSING_WATER_HEATER": "ELEC_TANK", "ZZ": 1, "AA": 2}}]`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	var back []Input
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if a, z := Compute(inputs[0]), Compute(back[0]); !reflect.DeepEqual(a, z) {
		t.Errorf("after storage %+v, before %+v", z, a)
	}
}
