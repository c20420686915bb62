package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/governance"
)

// dismissalRow is a reviewed dismissal with whether the visitor may
// withdraw it.
type dismissalRow struct {
	governance.Dismissal
	CanWrite bool
}

// suspectRow is an untagged suspect with whether the visitor may dismiss
// it.
type suspectRow struct {
	rule.Finding
	CanWrite bool
}

type piiView struct {
	Tag        string
	Tags       []option
	Exposures  []lineage.Exposure
	Read       int
	Encrypted  int // tagged fields an encryption rule covers
	Suspects   []suspectRow
	Dismissals []dismissalRow
	Subject    string
	Return     string
}

// piiPage is the PII map: the fields carrying each personal-data tag
// (?tag=, default every tag the global policy names) and who reads them,
// the untagged fields that look like personal data, and the reviewed
// dismissals; ?subject= narrows it to one subject.
func (u *ui) piiPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	v := piiView{Tag: q.Get("tag"), Subject: q.Get("subject"), Return: r.URL.RequestURI()}
	pol, err := u.svc.Governance().EffectivePolicy(ctx, v.Subject)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	tags := piiTagsOf(pol)
	for _, t := range tags {
		v.Tags = append(v.Tags, option{Value: t, Selected: strings.EqualFold(t, v.Tag)})
	}
	want := tags
	if v.Tag != "" {
		want = []string{v.Tag}
	}
	seen := map[string]int{}
	for _, t := range want {
		ex, err := u.svc.Lineage().Exposure(ctx, v.Subject, t)
		if err != nil {
			u.fail(w, r, err)
			return
		}
		for _, e := range ex {
			k := e.Subject + "\x00" + e.Path
			if i, ok := seen[k]; ok {
				for _, tg := range e.Tags {
					if !slices.Contains(v.Exposures[i].Tags, tg) {
						v.Exposures[i].Tags = append(v.Exposures[i].Tags, tg)
					}
				}
				continue
			}
			seen[k] = len(v.Exposures)
			v.Exposures = append(v.Exposures, e)
		}
	}
	// The lineage graph holds the subjects lineage names; tagged fields
	// of the others come from their tags, read by nobody.
	sums, err := u.svc.SubjectSummaries(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	covered := map[string]bool{}
	for _, e := range v.Exposures {
		covered[e.Subject] = true
	}
	for _, s := range sums {
		if (v.Subject != "" && s.Subject != v.Subject) || covered[s.Subject] || !slices.ContainsFunc(s.Tags, func(t string) bool { return containsFold(want, t) }) {
			continue
		}
		tv, err := u.svc.Governance().Tags(ctx, s.Subject)
		if err != nil {
			u.fail(w, r, err)
			return
		}
		for _, f := range tv.Fields {
			var hit []string
			for _, t := range f.Tags {
				if containsFold(want, t) {
					hit = append(hit, t)
				}
			}
			if len(hit) > 0 {
				v.Exposures = append(v.Exposures, lineage.Exposure{Subject: s.Subject, Path: f.Path, Tags: hit, Versions: []int{tv.Version}})
			}
		}
	}
	// Which tagged fields client-side encryption (an ENCRYPT rule) covers.
	if err := u.svc.Lineage().AnnotateEncryption(ctx, v.Exposures); err != nil {
		u.fail(w, r, err)
		return
	}
	slices.SortStableFunc(v.Exposures, func(a, b lineage.Exposure) int {
		if c := strings.Compare(a.Subject, b.Subject); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	for _, e := range v.Exposures {
		if len(e.Readers) > 0 {
			v.Read++
		}
		if e.Encryption != nil {
			v.Encrypted++
		}
	}
	sus, err := u.svc.Governance().PIISuspects(ctx, v.Subject)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	may := map[string]bool{}
	canWrite := func(subject string) bool {
		ok, seen := may[subject]
		if !seen {
			ok, _ = u.mayWrite(r, subject)
			may[subject] = ok
		}
		return ok
	}
	for _, f := range sus {
		v.Suspects = append(v.Suspects, suspectRow{Finding: f, CanWrite: canWrite(f.Subject)})
	}
	subjects := []string{v.Subject}
	if v.Subject == "" {
		subjects = nil
		for _, s := range sums {
			subjects = append(subjects, s.Subject)
		}
	}
	for _, s := range subjects {
		ds, err := u.svc.Governance().Dismissals(ctx, s)
		if err != nil {
			u.fail(w, r, err)
			return
		}
		for _, d := range ds {
			v.Dismissals = append(v.Dismissals, dismissalRow{Dismissal: d, CanWrite: canWrite(s)})
		}
	}
	u.render(w, r, http.StatusOK, "pii", "PII map", "pii", v)
}
