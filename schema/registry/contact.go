package registry

import (
	"context"
	"net/mail"
	"regexp"

	"energy/schema/tables"
)

// Contact is who receives a site's target notifications: an email address for EMAIL, a phone
// number in E.164 for SMS. Either may be empty.
type Contact struct {
	Email string `json:"email,omitempty" doc:"Email address receiving EMAIL notifications" example:"a@example.org"`
	Phone string `json:"phone,omitempty" doc:"Phone number in E.164 receiving SMS notifications" example:"+33612345678"`
}

// e164 is a phone number in international format: "+", a country code, at most 15 digits.
var e164 = regexp.MustCompile(`^\+[1-9][0-9]{5,14}$`)

// Validate checks the address and the number; field names are the JSON paths in a site.
func (c Contact) Validate() error {
	if c.Email != "" {
		a, err := mail.ParseAddress(c.Email)
		if err != nil || a.Address != c.Email || a.Name != "" || len(c.Email) > 254 {
			return fieldErr("contact.email", "must be a plain email address such as a@example.org (got %q)", c.Email)
		}
	}
	if c.Phone != "" && !e164.MatchString(c.Phone) {
		return fieldErr("contact.phone", "must be an E.164 phone number: '+', country code and number, digits only, such as +33612345678 (got %q)", c.Phone)
	}
	return nil
}

// putContact writes the site's contact (empty: none) with the site's version.
func (s *Store) putContact(ctx context.Context, tenantID, siteID string, c Contact, version uint64) error {
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.SiteContacts+" (tenant_id, site_id, email, phone, version)")
	if err != nil {
		return err
	}
	if err := b.Append(tenantID, siteID, c.Email, c.Phone, version); err != nil {
		return err
	}
	return b.Send()
}

// Contact returns the site's contact; zero when the site has none.
func (s *Store) Contact(ctx context.Context, tenantID, siteID string) (Contact, error) {
	var c Contact
	rows, err := s.db.Conn.Query(ctx, "SELECT email, phone FROM "+tables.SiteContacts+" FINAL WHERE tenant_id = ? AND site_id = ?", tenantID, siteID)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&c.Email, &c.Phone); err != nil {
			return c, err
		}
	}
	return c, rows.Err()
}

// SiteWithContact is Site with its contact filled in (Site alone leaves it out: most readers
// of a site never need it).
func (s *Store) SiteWithContact(ctx context.Context, tenantID, siteID string) (Site, error) {
	site, err := s.Site(ctx, tenantID, siteID)
	if err != nil {
		return site, err
	}
	c, err := s.Contact(ctx, tenantID, siteID)
	if err != nil {
		return site, err
	}
	if c != (Contact{}) {
		site.Contact = &c
	}
	return site, nil
}
