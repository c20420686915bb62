package deprecate

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

// calendarEntry is one coming expiry of `charter deprecate --calendar`
// and what still blocks it.
type calendarEntry struct {
	Subject string `json:"subject"`
	// Item is a field path (".carrier_code") or "version:N".
	Item        string    `json:"item"`
	ExpiresAt   time.Time `json:"expiresAt"`
	DaysLeft    int       `json:"daysLeft"`
	Replacement string    `json:"replacement,omitempty"`
	// Readers still read the field (a published pact or declared lineage),
	// with or without an extension: the field cannot be removed while
	// they do. Always empty for a version: lineage records fields.
	Readers []calendarReader `json:"readers"`
	// Extensions let consumers keep the item past the expiry.
	Extensions []calendarExtension `json:"extensions"`
}

type calendarReader struct {
	Consumer string   `json:"consumer"`
	Source   string   `json:"source"`
	Fields   []string `json:"fields"`
}

type calendarExtension struct {
	Consumer string    `json:"consumer"`
	Until    time.Time `json:"until"`
}

// calendar returns the deprecations of subject ("" for every subject)
// that have not expired yet, with at most within days left (-1: any),
// soonest first, each with its readers and extensions.
func calendar(ctx context.Context, cl *client.Client, subject string, within int) ([]calendarEntry, error) {
	var ds []client.DeprecationStatus
	var err error
	if subject == "" {
		ds, err = cl.AllDeprecations(ctx)
	} else if _, err = cl.Versions(ctx, subject); err == nil {
		// An unknown subject is an error (40401), not an empty calendar.
		ds, err = cl.Deprecations(ctx, subject, false)
	}
	if err != nil {
		return nil, fmt.Errorf("list deprecations: %w", err)
	}
	out := []calendarEntry{}
	// migrations[subject][path]: who still reads each deprecated field.
	migrations := map[string]map[string]client.DeprecationMigration{}
	for _, d := range ds {
		if d.State != "deprecated" || within >= 0 && d.DaysLeft > within {
			continue
		}
		e := calendarEntry{Subject: d.Subject, Item: d.Path, ExpiresAt: d.ExpiresAt, DaysLeft: d.DaysLeft,
			Replacement: d.Replacement, Readers: []calendarReader{}, Extensions: []calendarExtension{}}
		if d.Kind == "version" {
			e.Item = fmt.Sprintf("version:%d", d.Version)
		}
		for _, x := range d.Extensions {
			e.Extensions = append(e.Extensions, calendarExtension{Consumer: x.Consumer, Until: x.Until})
		}
		if d.Kind == "field" {
			if migrations[d.Subject] == nil {
				ms, err := cl.DeprecationMigrations(ctx, d.Subject, "")
				if err != nil {
					return nil, err
				}
				migrations[d.Subject] = map[string]client.DeprecationMigration{}
				for _, m := range ms {
					migrations[d.Subject][m.Path] = m
				}
			}
			m := migrations[d.Subject][d.Path]
			for _, r := range m.Reading {
				e.Readers = append(e.Readers, calendarReader{Consumer: r.Consumer, Source: source(r), Fields: r.Fields})
			}
			for _, r := range m.Extended {
				e.Readers = append(e.Readers, calendarReader{Consumer: r.Consumer, Source: source(r.ReadingConsumer), Fields: r.Fields})
			}
			slices.SortFunc(e.Readers, func(a, b calendarReader) int { return strings.Compare(a.Consumer, b.Consumer) })
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b calendarEntry) int {
		if c := a.ExpiresAt.Compare(b.ExpiresAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.Subject, b.Subject); c != 0 {
			return c
		}
		return strings.Compare(a.Item, b.Item)
	})
	return out, nil
}

// source is where a reader's fields come from: "contract 2.0.1",
// "declared".
func source(r client.ReadingConsumer) string {
	if r.ContractVersion != "" {
		return r.Source + " " + r.ContractVersion
	}
	return r.Source
}

// printCalendar writes the calendar as text: a line per expiry, then who
// still reads the item and who holds an extension.
func printCalendar(w io.Writer, es []calendarEntry, within int) error {
	var b strings.Builder
	if len(es) == 0 {
		if within >= 0 {
			fmt.Fprintf(&b, "no deprecation expires within %s\n", rule.Plural(within, "day"))
		} else {
			b.WriteString("no deprecation is counting down\n")
		}
	}
	for _, e := range es {
		fmt.Fprintf(&b, "%s  %s %s expires in %s", global.Date(e.ExpiresAt), e.Subject, e.Item, rule.Plural(e.DaysLeft, "day"))
		if e.Replacement != "" {
			fmt.Fprintf(&b, " (use %s)", e.Replacement)
		}
		b.WriteString("\n")
		var readers, exts []string
		for _, r := range e.Readers {
			readers = append(readers, fmt.Sprintf("%s (%s)", r.Consumer, r.Source))
		}
		for _, x := range e.Extensions {
			exts = append(exts, fmt.Sprintf("%s until %s", x.Consumer, global.Date(x.Until)))
		}
		switch {
		case len(readers) > 0:
			fmt.Fprintf(&b, "  still read by %s: %s\n", rule.Plural(len(readers), "consumer"), strings.Join(readers, ", "))
		case strings.HasPrefix(e.Item, "version:"):
			b.WriteString("  readers unknown: lineage records the fields consumers read, not versions\n")
		default:
			b.WriteString("  nobody reads it any more: it can be removed\n")
		}
		if len(exts) > 0 {
			fmt.Fprintf(&b, "  extended for %s\n", strings.Join(exts, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
