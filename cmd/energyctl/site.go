package main

import (
	"context"
	"flag"
	"io"

	"energy/schema/registry"
)

// energyctl site put|get: the admin resource PUT/GET /v2/sites/{siteId}, through the store.
// The file holds the same JSON body as the API.

func sitePut(ctx context.Context, args []string, stdout io.Writer) error {
	p := sites.newPut("")
	s, fs := &p.v, p.fs
	fs.StringVar(&s.SiteCustomerID, "customer-id", "", "siteCustomerId: the marketer's site identifier (with --person-id)")
	fs.StringVar(&s.PersonCustomerID, "person-id", "", "personCustomerId: the marketer's person identifier")
	fs.StringVar(&s.Timezone, "timezone", "", "IANA time zone (default Europe/Paris)")
	fs.StringVar(&s.WeatherStationID, "station", "", "weatherStationId (must exist)")
	fs.StringVar(&s.TariffID, "tariff", "", "tariffId (must exist)")
	fs.StringVar(&s.GasTariffID, "gas-tariff", "", "gasTariffId (must exist, option GAS)")
	fs.StringVar(&s.HeatingFluid, "heating", "", "heatingFluid: GAS, ELEC or NONE (default NONE)")
	var contact registry.Contact
	fs.StringVar(&contact.Email, "email", "", "contact.email: receives the site's EMAIL target notifications")
	fs.StringVar(&contact.Phone, "phone", "", "contact.phone: E.164 number receiving the site's SMS target notifications")
	p.usage("usage: energyctl site put ID --tenant T [--file site.json] [--customer-id C --person-id P] [--timezone Z] [--station S] [--tariff T] [--gas-tariff G] [--heating GAS|ELEC|NONE] [--email A] [--phone +33…]\n\nReplaces the whole site: fields not given take their defaults. Flags override the file's fields. The site's stored days in the daily energy table are rewritten.")
	// --email and --phone set the contact's field they name, over the file's contact.
	return p.run(ctx, args, stdout, func() error {
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "email" || f.Name == "phone" {
				if s.Contact == nil {
					s.Contact = &registry.Contact{}
				}
				if f.Name == "email" {
					s.Contact.Email = contact.Email
				} else {
					s.Contact.Phone = contact.Phone
				}
			}
		})
		return nil
	})
}
