package apidocs

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/ingest"
	"energy/query/targets"
	"energy/schema/registry"
)

// TargetBody is a target as returned by the target endpoints.
type TargetBody struct {
	TargetID             string   `json:"targetId" doc:"Target identifier (set by the service)" example:"6f1c2b1e-1d7a-4a57-9a0e-3c1f8f0b6d2a"`
	GenerationTS         string   `json:"generationTs" doc:"Timestamp-Z: when the target was created (set by the service)" example:"2025-01-02T08:00:00Z"`
	BeginDate            string   `json:"beginDate" doc:"Timestamp-Z: start of the target period" example:"2025-01-01T00:00:00Z"`
	EndDate              string   `json:"endDate" doc:"Timestamp-Z: end of the target period (excluded)" example:"2026-01-01T00:00:00Z"`
	Type                 string   `json:"type" enum:"ELEC" doc:"Fluid of the target" example:"ELEC"`
	Unit                 string   `json:"unit" enum:"EURO,KWH" doc:"Unit of targetValue: kWh of energy, or EUR of cost (standing charge included)" example:"KWH"`
	TargetValue          float64  `json:"targetValue" doc:"Yearly objective in the target's unit" example:"4200"`
	DefaultTargetValue   *float64 `json:"defaultTargetValue,omitempty" doc:"Yearly reference value (similar homes or past consumption)" example:"4800"`
	SiteID               string   `json:"siteId" doc:"Site of the target" example:"SITE-1"`
	NotificationChannels []string `json:"notificationChannels" doc:"Channels notified: EMAIL (the site's contact.email), SMS (contact.phone), both or none" example:"[\"EMAIL\"]"`
	NotificationType     string   `json:"notificationType" enum:"NONE,ON_DIST_INDEX_RECEPTION,THRESHOLD_OVERRUN" doc:"What is notified" example:"THRESHOLD_OVERRUN"`
	Name                 string   `json:"name,omitempty" doc:"Name of the target" example:"Objective 2025"`
}

// TargetInput is a target as sent to the create and update endpoints: every member is
// optional in the schema; create requires beginDate, endDate, type, unit and targetValue.
type TargetInput struct {
	TargetID             *string   `json:"targetId,omitempty" doc:"Create: must be absent. Update: when given, must equal the path's" example:"6f1c2b1e-1d7a-4a57-9a0e-3c1f8f0b6d2a"`
	GenerationTS         *string   `json:"generationTs,omitempty" doc:"Create: ignored (the service sets it). Update: when given, must equal the stored value"`
	BeginDate            *string   `json:"beginDate,omitempty" doc:"Timestamp-Z: start of the target period (required at creation; cannot change)" example:"2025-01-01T00:00:00Z"`
	EndDate              *string   `json:"endDate,omitempty" doc:"Timestamp-Z: end of the target period, excluded (required at creation; cannot change)" example:"2026-01-01T00:00:00Z"`
	Type                 *string   `json:"type,omitempty" doc:"ELEC, the only supported type (required at creation; cannot change)" example:"ELEC"`
	Unit                 *string   `json:"unit,omitempty" doc:"EURO or KWH (required at creation; cannot change)" example:"KWH"`
	TargetValue          *float64  `json:"targetValue,omitempty" doc:"Yearly objective, finite and ≥ 0 (required at creation; updatable)" example:"4200"`
	DefaultTargetValue   *float64  `json:"defaultTargetValue,omitempty" doc:"Yearly reference value, finite and ≥ 0 (cannot change)" example:"4800"`
	SiteID               *string   `json:"siteId,omitempty" doc:"When given, must equal the path's" example:"SITE-1"`
	NotificationChannels *[]string `json:"notificationChannels,omitempty" doc:"Subset of EMAIL, SMS without repeats (default none; updatable)" example:"[\"EMAIL\",\"SMS\"]"`
	NotificationType     *string   `json:"notificationType,omitempty" doc:"NONE (default), ON_DIST_INDEX_RECEPTION or THRESHOLD_OVERRUN (updatable)" example:"THRESHOLD_OVERRUN"`
	Name                 *string   `json:"name,omitempty" doc:"Name of the target, at most 256 characters (cannot change)" example:"Objective 2025"`
}

type TargetPathParams struct {
	SiteID   string `path:"siteId" doc:"Site identifier" example:"SITE-1"`
	TargetID string `path:"targetId" doc:"Target identifier" example:"6f1c2b1e-1d7a-4a57-9a0e-3c1f8f0b6d2a"`
}

type createTargetInput struct {
	SiteIDParam
	Body TargetInput
}

type updateTargetInput struct {
	TargetPathParams
	Body TargetInput
}

// TargetIDBody is the answer of create and update.
type TargetIDBody struct {
	TargetID string `json:"targetId" doc:"Identifier of the processed target" example:"6f1c2b1e-1d7a-4a57-9a0e-3c1f8f0b6d2a"`
}

type createTargetOutput struct {
	Status int
	Body   TargetIDBody
}

type updateTargetOutput struct {
	Body TargetIDBody
}

type targetOutput struct {
	Body TargetBody
}

type targetListOutput struct {
	Body []TargetBody
}

// NotificationBody is one notification of a target.
type NotificationBody struct {
	ID        string `json:"id" doc:"Notification identifier" example:"3b5d0c6e8a4f2d1b9c7e5a3f1d0b8c6e"`
	Event     string `json:"event" enum:"ON_DIST_INDEX_RECEPTION,THRESHOLD_OVERRUN" doc:"What happened" example:"THRESHOLD_OVERRUN"`
	Channel   string `json:"channel" enum:"EMAIL,SMS" doc:"Delivery channel" example:"EMAIL"`
	State     string `json:"state" enum:"PENDING,SENT,FAILED" doc:"PENDING until delivered (SENT) or given up (FAILED, see lastError)" example:"SENT"`
	CreatedTS string `json:"createdTs" doc:"Timestamp-Z: when the event was recorded" example:"2025-03-02T06:00:00Z"`
	SentTS    string `json:"sentTs,omitempty" doc:"Timestamp-Z: when it was delivered" example:"2025-03-02T06:00:01Z"`
	Attempts  uint32 `json:"attempts" doc:"Delivery attempts made" example:"1"`
	LastError string `json:"lastError,omitempty" doc:"Why the last attempt failed" example:"SMTP server 127.0.0.1:25: connection refused"`
}

type notificationsOutput struct {
	Body []NotificationBody
}

// targetHandler serves the target endpoints of the caller's tenant.
type targetHandler struct {
	reg     *registry.Store
	targets *targets.Store
	outbox  *targets.Outbox
}

func registerTargets(api huma.API, reg *registry.Store, store *targets.Store, outbox *targets.Outbox) {
	h := &targetHandler{reg: reg, targets: store, outbox: outbox}
	write := requireScopes(registry.ScopeTargets)
	read := requireScopes(registry.ScopeRead, registry.ScopeTargets)
	huma.Register(api, huma.Operation{
		OperationID: "create-target", Method: http.MethodPost, Path: "/v2/sites/{siteId}/targets", Tags: []string{"Targets"},
		Summary: "Create a target", Security: write, DefaultStatus: http.StatusCreated,
		Description: "Creates a yearly objective of the site. beginDate, endDate (Timestamp-Z, end after begin), type (ELEC), unit (EURO or KWH) and targetValue (finite, ≥ 0) are required; notificationChannels defaults to none and notificationType to NONE. A targetId in the body is refused (400); a generationTs is ignored (the service sets it). Answers 201 with the new targetId.",
	}, h.create)
	huma.Register(api, huma.Operation{
		OperationID: "list-targets", Method: http.MethodGet, Path: "/v2/sites/{siteId}/targets", Tags: []string{"Targets"},
		Summary: "List the targets of a site", Security: read,
		Description: "The site's targets, oldest first.",
	}, h.list)
	huma.Register(api, huma.Operation{
		OperationID: "get-target", Method: http.MethodGet, Path: "/v2/sites/{siteId}/targets/{targetId}", Tags: []string{"Targets"},
		Summary: "Read a target", Security: read,
	}, h.get)
	huma.Register(api, huma.Operation{
		OperationID: "update-target", Method: http.MethodPut, Path: "/v2/sites/{siteId}/targets/{targetId}", Tags: []string{"Targets"},
		Summary: "Update a target", Security: write,
		Description: "Fields absent from the body are unchanged. Only targetValue, notificationChannels and notificationType can change: " +
			"any other field whose value differs from the stored one is refused with 422 TARGET_FIELD_NOT_UPDATABLE naming every such field, and nothing is changed " +
			"(sending them unchanged is fine). Bad values are 400 naming the field. Concurrent updates of different fields are all kept; " +
			"of the same field, the last one wins. Changing targetValue re-arms THRESHOLD_OVERRUN.",
	}, h.update)
	huma.Register(api, huma.Operation{
		OperationID: "list-target-notifications", Method: http.MethodGet, Path: "/v2/sites/{siteId}/targets/{targetId}/notifications", Tags: []string{"Targets"},
		Summary: "List the notifications of a target", Security: read,
		Description: "Newest first. ON_DIST_INDEX_RECEPTION: one per channel for each archive job that stores a new distributor index of the site inside the target period. " +
			"THRESHOLD_OVERRUN: one per channel when the consumption since beginDate first exceeds targetValue × the elapsed share of the period; again only after targetValue changes. " +
			"Delivered by a background sender, at most 8 attempts with exponential backoff; a channel not configured or a site without that contact ends FAILED with the reason.",
	}, h.notifications)
}

func (h *targetHandler) create(ctx context.Context, in *createTargetInput) (*createTargetOutput, error) {
	tenant := Caller(ctx).TenantID
	if _, err := site(ctx, h.reg, in.SiteID); err != nil {
		return nil, err
	}
	b := in.Body
	if b.TargetID != nil {
		return nil, BadParam("body field targetId: a new target has no targetId (the service assigns it)")
	}
	if b.SiteID != nil && *b.SiteID != in.SiteID {
		return nil, BadParam("body field siteId: %q differs from the path's %q", *b.SiteID, in.SiteID)
	}
	t := targets.Target{TenantID: tenant, SiteID: in.SiteID, Type: deref(b.Type), Unit: deref(b.Unit), Name: deref(b.Name),
		DefaultTargetValue: b.DefaultTargetValue, NotificationType: deref(b.NotificationType)}
	if b.TargetValue == nil {
		return nil, BadParam("body field targetValue: is required (the yearly objective, a number ≥ 0)")
	}
	t.TargetValue = *b.TargetValue
	if b.NotificationChannels != nil {
		t.NotificationChannels = *b.NotificationChannels
	}
	var err error
	if t.Begin, err = bodyTimestamp("beginDate", b.BeginDate); err != nil {
		return nil, err
	}
	if t.End, err = bodyTimestamp("endDate", b.EndDate); err != nil {
		return nil, err
	}
	created, err := h.targets.Create(ctx, t)
	if err != nil {
		return nil, err
	}
	return &createTargetOutput{Status: http.StatusCreated, Body: TargetIDBody{TargetID: created.TargetID}}, nil
}

func (h *targetHandler) list(ctx context.Context, in *SiteIDParam) (*targetListOutput, error) {
	if _, err := site(ctx, h.reg, in.SiteID); err != nil {
		return nil, err
	}
	ts, err := h.targets.List(ctx, Caller(ctx).TenantID, in.SiteID)
	if err != nil {
		return nil, err
	}
	out := make([]TargetBody, 0, len(ts))
	for _, t := range ts {
		out = append(out, targetBody(t))
	}
	return &targetListOutput{Body: out}, nil
}

func (h *targetHandler) get(ctx context.Context, in *TargetPathParams) (*targetOutput, error) {
	t, err := h.load(ctx, in)
	if err != nil {
		return nil, err
	}
	return &targetOutput{Body: targetBody(t)}, nil
}

func (h *targetHandler) update(ctx context.Context, in *updateTargetInput) (*updateTargetOutput, error) {
	if _, err := site(ctx, h.reg, in.SiteID); err != nil {
		return nil, err
	}
	b := in.Body
	u := targets.Update{TargetValue: b.TargetValue, NotificationChannels: b.NotificationChannels, NotificationType: b.NotificationType,
		TargetID: b.TargetID, SiteID: b.SiteID, Type: b.Type, Unit: b.Unit, Name: b.Name, DefaultTargetValue: b.DefaultTargetValue}
	for _, f := range []struct {
		name string
		raw  *string
		dst  **time.Time
	}{{"generationTs", b.GenerationTS, &u.GenerationTS}, {"beginDate", b.BeginDate, &u.Begin}, {"endDate", b.EndDate, &u.End}} {
		if f.raw != nil {
			ts, err := bodyTimestamp(f.name, f.raw)
			if err != nil {
				return nil, err
			}
			*f.dst = &ts
		}
	}
	_, err := h.targets.Update(ctx, Caller(ctx).TenantID, in.SiteID, in.TargetID, u)
	var frozen *targets.NotUpdatableError
	switch {
	case errors.Is(err, targets.ErrNotFound):
		return nil, targetNotFound(in.TargetID)
	case errors.As(err, &frozen):
		return nil, Fail(http.StatusUnprocessableEntity, CodeFieldNotUpdatable, "body field%s %s cannot be changed: only targetValue, notificationChannels and notificationType can be updated",
			plural(len(frozen.Fields)), strings.Join(frozen.Fields, ", "))
	case err != nil:
		return nil, err
	}
	return &updateTargetOutput{Body: TargetIDBody{TargetID: in.TargetID}}, nil
}

func (h *targetHandler) notifications(ctx context.Context, in *TargetPathParams) (*notificationsOutput, error) {
	t, err := h.load(ctx, in)
	if err != nil {
		return nil, err
	}
	ns, err := h.outbox.List(ctx, t.TenantID, t.SiteID, t.TargetID)
	if err != nil {
		return nil, err
	}
	out := make([]NotificationBody, 0, len(ns))
	for _, n := range ns {
		nb := NotificationBody{ID: n.ID, Event: n.Event, Channel: n.Channel, State: n.State, CreatedTS: formatTS(n.Created),
			Attempts: n.Attempts, LastError: n.LastError}
		if !n.Sent.IsZero() {
			nb.SentTS = formatTS(n.Sent)
		}
		out = append(out, nb)
	}
	return &notificationsOutput{Body: out}, nil
}

// load returns a target of a site of the caller's tenant: SITE_NOT_FOUND for an unknown or
// foreign site, TARGET_NOT_FOUND for an unknown target of a known site.
func (h *targetHandler) load(ctx context.Context, in *TargetPathParams) (targets.Target, error) {
	if _, err := site(ctx, h.reg, in.SiteID); err != nil {
		return targets.Target{}, err
	}
	t, err := h.targets.Get(ctx, Caller(ctx).TenantID, in.SiteID, in.TargetID)
	if errors.Is(err, targets.ErrNotFound) {
		return t, targetNotFound(in.TargetID)
	}
	return t, err
}

func targetNotFound(id string) *APIError {
	return Fail(http.StatusNotFound, CodeTargetNotFound, "target %q does not exist on this site", id)
}

func targetBody(t targets.Target) TargetBody {
	return TargetBody{TargetID: t.TargetID, GenerationTS: formatTS(t.GenerationTS), BeginDate: formatTS(t.Begin), EndDate: formatTS(t.End),
		Type: t.Type, Unit: t.Unit, TargetValue: t.TargetValue, DefaultTargetValue: t.DefaultTargetValue, SiteID: t.SiteID,
		NotificationChannels: t.NotificationChannels, NotificationType: t.NotificationType, Name: t.Name}
}

// bodyTimestamp parses a Timestamp-Z body field; a nil value is the zero time.
func bodyTimestamp(field string, v *string) (time.Time, error) {
	if v == nil {
		return time.Time{}, nil
	}
	t, err := ingest.ParseTimestampZ(*v)
	if err != nil {
		return time.Time{}, BadParam("body field %s: %q is not a Timestamp-Z (for example 2025-01-01T00:00:00Z)", field, *v)
	}
	return t.UTC(), nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func plural(n int) string {
	if n > 1 {
		return "s"
	}
	return ""
}
