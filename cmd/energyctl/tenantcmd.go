package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"energy/schema"
)

// tenantCommand is what every command working on one tenant's data in the store shares: the
// store flags and --tenant beside the command's own flags, one id argument (or none), and the
// store opened for the command's work, whose result is printed as the API's JSON.
type tenantCommand struct {
	fs     *flag.FlagSet
	store  *storeFlags
	tenant *string
}

func newTenantCommand(name string) *tenantCommand {
	c := &tenantCommand{}
	c.fs, c.store = newStoreFlagSet(name)
	c.tenant = tenantFlag(c.fs)
	return c
}

// newStoreFlagSet is the flag set of the command name, which works on the store: it holds the
// store flags.
func newStoreFlagSet(name string) (*flag.FlagSet, *storeFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	store := &storeFlags{}
	store.register(fs)
	return fs, store
}

// usage sets the text printed above the flags by -h and on a flag error.
func (c *tenantCommand) usage(text string) { setUsage(c.fs, text) }

// setUsage sets the text fs prints above its flags on -h and on a flag error.
func setUsage(fs *flag.FlagSet, text string) {
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), text)
		fs.PrintDefaults()
	}
}

// parseID parses args, flags before or after the one id (what names it when missing), and
// checks --tenant.
func (c *tenantCommand) parseID(args []string, what string) (string, error) {
	id, err := parseCommand(c.fs, args, what)
	if err != nil {
		return "", err
	}
	return id, needTenant(*c.tenant)
}

// parse parses args, flags only, and checks --tenant.
func (c *tenantCommand) parse(args []string) error {
	if err := c.fs.Parse(args); err != nil {
		return err
	}
	if c.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", c.fs.Arg(0))
	}
	return needTenant(*c.tenant)
}

// readOver reads the resource file (when one is named) into v, whose fields the command's
// flags are bound to, then sets again the flags given on the command line: they win over
// the file's fields.
func (c *tenantCommand) readOver(file string, v any) error {
	if file == "" {
		return nil
	}
	given := map[string]string{}
	c.fs.Visit(func(f *flag.Flag) { given[f.Name] = f.Value.String() })
	if err := readResource(file, v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for name, value := range given {
		if err := c.fs.Set(name, value); err != nil {
			return err
		}
	}
	return nil
}

// withStore opens the store, runs work on it and closes it.
func (c *tenantCommand) withStore(ctx context.Context, work func(db *schema.DB) error) error {
	db, err := c.store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return work(db)
}

// print opens the store, runs work on it and prints what work returns as indented JSON.
func (c *tenantCommand) print(ctx context.Context, stdout io.Writer, work func(db *schema.DB) (any, error)) error {
	return c.withStore(ctx, func(db *schema.DB) error {
		v, err := work(db)
		if err != nil {
			return err
		}
		return printResource(stdout, v)
	})
}
