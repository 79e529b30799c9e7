package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"energy/query/targets"
	"energy/schema"
)

// energyctl target list|get and notifications: what support staff look at when a customer
// asks about an objective or a message they did or did not receive.

func targetList(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("target list")
	site := c.fs.String("site", "", "only this site's targets")
	asJSON := c.fs.Bool("json", false, "print JSON instead of a table")
	if err := c.parse(args); err != nil {
		return err
	}
	return c.withStore(ctx, func(db *schema.DB) error {
		st := targets.NewStore(db)
		var ts []targets.Target
		var err error
		if *site != "" {
			ts, err = st.List(ctx, *c.tenant, *site)
		} else {
			ts, err = st.ListTenant(ctx, *c.tenant)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			if ts == nil {
				ts = []targets.Target{}
			}
			return printResource(stdout, ts)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TARGET\tSITE\tPERIOD\tVALUE\tNOTIFY\tCHANNELS\tNAME")
		for _, t := range ts {
			fmt.Fprintf(tw, "%s\t%s\t%s..%s\t%g %s\t%s\t%s\t%s\n", t.TargetID, t.SiteID, t.Begin.Format(time.DateOnly), t.End.Format(time.DateOnly),
				t.TargetValue, t.Unit, t.NotificationType, strings.Join(t.NotificationChannels, ","), t.Name)
		}
		return tw.Flush()
	})
}

func targetGet(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("target get")
	id, err := c.parseID(args, "target id (see energyctl target list)")
	if err != nil {
		return err
	}
	return c.print(ctx, stdout, func(db *schema.DB) (any, error) {
		return findTarget(ctx, db, *c.tenant, id)
	})
}

func notificationList(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("notifications")
	fs := c.fs
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	c.usage("usage: energyctl notifications TARGET --tenant T [--json]")
	id, err := c.parseID(args, "target id (see energyctl target list)")
	if err != nil {
		return err
	}
	return c.withStore(ctx, func(db *schema.DB) error {
		t, err := findTarget(ctx, db, *c.tenant, id)
		if err != nil {
			return err
		}
		ns, err := targets.NewOutbox(db).List(ctx, t.TenantID, t.SiteID, t.TargetID)
		if err != nil {
			return err
		}
		if *asJSON {
			if ns == nil {
				ns = []targets.Notification{}
			}
			return printResource(stdout, ns)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CREATED\tEVENT\tCHANNEL\tSTATE\tATTEMPTS\tSENT\tLAST ERROR")
		for _, n := range ns {
			sent := "-"
			if !n.Sent.IsZero() {
				sent = n.Sent.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", n.Created.Format(time.RFC3339), n.Event, n.Channel, n.State, n.Attempts, sent, n.LastError)
		}
		return tw.Flush()
	})
}

// findTarget reads the tenant's target id, saying when it does not exist.
func findTarget(ctx context.Context, db *schema.DB, tenant, id string) (targets.Target, error) {
	t, err := targets.NewStore(db).Find(ctx, tenant, id)
	if errors.Is(err, targets.ErrNotFound) {
		return t, fmt.Errorf("target %s does not exist in tenant %s", id, tenant)
	}
	return t, err
}
