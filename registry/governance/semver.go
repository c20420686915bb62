package governance

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
)

// Change kinds that Classify reports besides compat rule IDs.
const (
	KindSchemaAdded         = "SCHEMA_ADDED"
	KindSchemaTypeChanged   = "SCHEMA_TYPE_CHANGED"
	KindMessageAdded        = "MESSAGE_ADDED"
	KindMessageRemoved      = "MESSAGE_REMOVED"
	KindFieldAdded          = "FIELD_ADDED"
	KindFieldRemoved        = "FIELD_REMOVED"
	KindFieldRenamed        = "FIELD_RENAMED"
	KindFieldTypeChanged    = "FIELD_TYPE_CHANGED"
	KindFieldRequired       = "FIELD_REQUIRED"
	KindFieldOptional       = "FIELD_OPTIONAL"
	KindFieldDefaultAdded   = "FIELD_DEFAULT_ADDED"
	KindFieldDefaultRemoved = "FIELD_DEFAULT_REMOVED"
	KindFieldDeprecated     = "FIELD_DEPRECATED"
	KindFieldUndeprecated   = "FIELD_UNDEPRECATED"
	KindFieldDocChanged     = "FIELD_DOC_CHANGED"
	KindFieldTagsChanged    = "FIELD_TAGS_CHANGED"
	KindFieldAnnotation     = "FIELD_ANNOTATION_CHANGED"
	KindFieldsReordered     = "FIELDS_REORDERED"
	KindDocChanged          = "DOC_OR_FORMAT_CHANGED"
	KindMetadataChanged     = "METADATA_CHANGED"
	KindRuleSetChanged      = "RULESET_CHANGED"
	KindNoStructuralChange  = "NO_STRUCTURAL_CHANGE"
	KindDeprecationDeclared = "DEPRECATION_DECLARED"
	KindExtensionGranted    = "EXTENSION_GRANTED"
)

// Version is one version of a subject as the engine sees it: the parsed
// schema and its data-contract metadata and ruleSet (Confluent JSON).
type Version struct {
	// Version is the version number; 0 for a schema not registered yet.
	Version  int
	Schema   compat.Schema
	Metadata json.RawMessage
	RuleSet  json.RawMessage
}

// ClassifyInput is what Classify compares.
type ClassifyInput struct {
	// Context, when set, stops the compatibility comparison once it
	// ends (see Input.Context). nil never stops.
	Context context.Context
	// Format checks compatibility between the two schemas (their
	// format). Nil: no compat findings, structure only.
	Format compat.Format
	// Level is the subject's compatibility level.
	Level compat.Level
	// Previous is the subject's previous live version; Current the new
	// one.
	Previous, Current Version
	// TTLDays and Deprecations word the sentences of fields the new
	// version marks deprecated ("TTL 90 days, use carrier.code").
	TTLDays      int
	Deprecations []Deprecation
}

// Classification is a new version's semantic-version class and its
// changes.
type Classification struct {
	Bump    Bump     `json:"bump"`
	Changes []Change `json:"changes"`
}

// breaking reports whether a finding in direction d breaks readers at
// level (NONE is judged as BACKWARD, Confluent's default level).
func breaking(level compat.Level, d compat.Direction) bool {
	if level == compat.None || level == "" {
		level = compat.Backward
	}
	return (d == compat.DirBackward && level.Backward()) || (d == compat.DirForward && level.Forward())
}

// Classify compares in.Current with in.Previous and returns the changes as
// sentences with the version's bump (see the package doc). It never fails:
// schemas whose format lists no fields are compared by their text.
func Classify(in ClassifyInput) Classification {
	c := &classifier{in: in}
	c.run()
	out := Classification{Bump: BumpPatch, Changes: c.changes}
	if len(out.Changes) == 0 {
		out.Changes = []Change{{Kind: KindNoStructuralChange, Text: "no structural change", Bump: BumpPatch}}
	}
	for _, ch := range out.Changes {
		out.Bump = out.Bump.Max(ch.Bump)
	}
	return out
}

type classifier struct {
	in      ClassifyInput
	changes []Change
}

func (c *classifier) add(kind, path string, b Bump, format string, args ...any) {
	c.changes = append(c.changes, Change{Kind: kind, Path: path, Text: fmt.Sprintf(format, args...), Bump: b})
}

func (c *classifier) run() {
	prev, cur := c.in.Previous.Schema, c.in.Current.Schema
	if prev == nil || cur == nil {
		return
	}
	if prev.Type() != cur.Type() {
		c.add(KindSchemaTypeChanged, "", BumpMajor, "schema type changed from %s to %s", prev.Type(), cur.Type())
		return
	}
	var findings []compat.Finding
	if c.in.Format != nil {
		ctx := c.in.Context
		if ctx == nil {
			ctx = context.Background()
		}
		res, _ := compat.CheckContext(ctx, c.in.Format, compat.Full, cur, []compat.Previous{{Version: c.in.Previous.Version, Schema: prev}})
		findings = res.Findings
	}
	c.fields(findings)
	if len(c.changes) == 0 && prev.Canonical() != cur.Canonical() {
		c.add(KindDocChanged, "", BumpPatch, "documentation or formatting changed")
	}
	c.metadata()
	c.ruleSet()
}

// findingsAt groups compat findings by the field path they are about.
type findingsAt map[string][]compat.Finding

// take removes and returns the findings at path and under it.
func (fa findingsAt) take(path string) []compat.Finding {
	var out []compat.Finding
	for p, fs := range fa {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") || strings.HasPrefix(p, path+"{") || strings.HasPrefix(p, path+"<") {
			out = append(out, fs...)
			delete(fa, p)
		}
	}
	return out
}

// bumpOf returns major when a finding breaks at level, else def.
func (c *classifier) bumpOf(fs []compat.Finding, def Bump) (Bump, string) {
	for _, f := range fs {
		if breaking(c.in.Level, f.Direction) {
			return BumpMajor, fmt.Sprintf(" (breaks %s readers: %s)", directionWord(f.Direction), f.RuleID)
		}
	}
	return def, ""
}

func directionWord(d compat.Direction) string {
	if d == compat.DirForward {
		return "FORWARD"
	}
	return "BACKWARD"
}

func (c *classifier) fields(findings []compat.Finding) {
	t := c.in.Current.Schema.Type()
	prevF := uniqueFields(compat.Fields(c.in.Previous.Schema))
	curF := uniqueFields(compat.Fields(c.in.Current.Schema))
	prevBy, curBy := byPath(prevF), byPath(curF)
	prevNum, curNum := FieldNumbers(c.in.Previous.Schema), FieldNumbers(c.in.Current.Schema)
	fa := findingsAt{}
	for _, f := range findings {
		p := findingPath(f.Path)
		fa[p] = append(fa[p], f)
	}

	// Fields removed and added, outermost only; Protobuf renames (same
	// number and type in the same message) are one change.
	var removed, added []compat.Field
	for _, f := range prevF {
		if _, ok := curBy[f.Path]; !ok && !under(f.Path, removed) {
			removed = append(removed, f)
		}
	}
	for _, f := range curF {
		if _, ok := prevBy[f.Path]; !ok && !under(f.Path, added) {
			added = append(added, f)
		}
	}
	renamedTo := map[string]compat.Field{}
	if prevNum != nil {
		for _, r := range removed {
			for _, a := range added {
				if parentPath(r.Path) == parentPath(a.Path) && prevNum[r.Path] != 0 && prevNum[r.Path] == curNum[a.Path] && r.Type == a.Type {
					renamedTo[r.Path] = a
				}
			}
		}
	}
	// Protobuf messages added or removed whole: one change each.
	removed = c.messages(removed, prevBy, curF, fa, KindMessageRemoved, "removed")
	added = c.messages(added, curBy, prevF, fa, KindMessageAdded, "added")
	renamedFrom := map[string]bool{}
	for _, r := range removed {
		if a, ok := renamedTo[r.Path]; ok {
			renamedFrom[a.Path] = true
			fs := append(fa.take(r.Path), fa.take(a.Path)...)
			b, why := c.bumpOf(fs, BumpMinor)
			c.add(KindFieldRenamed, a.Path, b, "field `%s` renamed to `%s` (number %d kept)%s", Display(r.Path), Display(a.Path), curNum[a.Path], why)
			continue
		}
		b, why := c.bumpOf(fa.take(r.Path), BumpMinor)
		c.add(KindFieldRemoved, r.Path, b, "field `%s` removed%s", Display(r.Path), why)
	}
	for _, a := range added {
		if renamedFrom[a.Path] {
			continue
		}
		b, why := c.bumpOf(fa.take(a.Path), BumpMinor)
		how := "optional"
		switch {
		case a.Required:
			how = "required"
		case a.HasDefault && t != compat.Protobuf:
			how = "optional, with a default"
		}
		c.add(KindFieldAdded, a.Path, b, "field `%s` added (%s, %s)%s", Display(a.Path), typeText(a.Type), how, why)
	}

	// Fields in both versions.
	for _, cf := range curF {
		pf, ok := prevBy[cf.Path]
		if !ok {
			continue
		}
		c.fieldChanged(pf, cf, fa)
	}

	c.reordered(t, prevF, curF, prevBy, curBy)

	// Findings that no field change explains (enum symbols, unions,
	// messages, the root type).
	for _, p := range slices.Sorted(maps.Keys(fa)) {
		seen := map[string]bool{}
		for _, f := range fa[p] {
			key := f.RuleID + "|" + string(f.Direction)
			if seen[key] {
				continue
			}
			seen[key] = true
			b := BumpMinor
			if breaking(c.in.Level, f.Direction) {
				b = BumpMajor
			}
			c.add(f.RuleID, f.Path, b, "%s: %s", displayFindingPath(f.Path), f.Message)
		}
	}
}

// messages turns the fields of fs (added or removed) whose message is
// new or gone as a whole into one change per message, and returns the
// other fields. A message is a parent path that is not a field itself
// (Protobuf top-level and nested messages) and that other has no field
// under.
func (c *classifier) messages(fs []compat.Field, same map[string]compat.Field, other []compat.Field, fa findingsAt, kind, verb string) []compat.Field {
	otherParents := map[string]bool{}
	for _, f := range other {
		otherParents[parentPath(f.Path)] = true
	}
	var keep []compat.Field
	done := map[string]bool{}
	for _, f := range fs {
		p := parentPath(f.Path)
		if _, isField := same[p]; p == "" || isField || otherParents[p] {
			keep = append(keep, f)
			continue
		}
		if done[p] {
			continue
		}
		done[p] = true
		def := BumpMinor
		b, why := c.bumpOf(fa.take(p), def)
		c.add(kind, p, b, "message `%s` %s%s", Display(p), verb, why)
	}
	return keep
}

func (c *classifier) fieldChanged(pf, cf compat.Field, fa findingsAt) {
	path := cf.Path
	if pf.Type != cf.Type {
		b, why := c.bumpOf(fa.take(path), BumpMinor)
		c.add(KindFieldTypeChanged, path, b, "field `%s` changed type from `%s` to `%s`%s", Display(path), pf.Type, cf.Type, why)
	}
	switch {
	case pf.Required && !cf.Required && !pf.HasDefault && cf.HasDefault:
		// Avro: a field with a default is optional.
		b, why := c.bumpOf(fa.take(path), BumpMinor)
		c.add(KindFieldDefaultAdded, path, b, "field `%s` has a default now%s", Display(path), why)
	case !pf.Required && cf.Required && pf.HasDefault && !cf.HasDefault:
		b, why := c.bumpOf(fa.take(path), BumpMinor)
		c.add(KindFieldDefaultRemoved, path, b, "field `%s` lost its default%s", Display(path), why)
	case !pf.Required && cf.Required:
		b, why := c.bumpOf(fa.take(path), BumpMinor)
		c.add(KindFieldRequired, path, b, "field `%s` is now required%s", Display(path), why)
	case pf.Required && !cf.Required:
		b, why := c.bumpOf(fa.take(path), BumpMinor)
		c.add(KindFieldOptional, path, b, "field `%s` is now optional%s", Display(path), why)
	case pf.HasDefault != cf.HasDefault:
		b, why := c.bumpOf(fa.take(path), BumpMinor)
		if cf.HasDefault {
			c.add(KindFieldDefaultAdded, path, b, "field `%s` has a default now%s", Display(path), why)
		} else {
			c.add(KindFieldDefaultRemoved, path, b, "field `%s` lost its default%s", Display(path), why)
		}
	}
	if !pf.Deprecated && cf.Deprecated {
		c.add(KindFieldDeprecated, path, BumpMinor, "%s", c.deprecatedText(cf))
	} else if pf.Deprecated && !cf.Deprecated {
		c.add(KindFieldUndeprecated, path, BumpMinor, "field `%s` is no longer deprecated", Display(path))
	}
	if pf.Doc != cf.Doc {
		switch {
		case pf.Doc == "":
			c.add(KindFieldDocChanged, path, BumpPatch, "field `%s` documented", Display(path))
		default:
			c.add(KindFieldDocChanged, path, BumpPatch, "documentation of field `%s` changed", Display(path))
		}
	}
	if !slices.Equal(pf.Tags, cf.Tags) {
		c.add(KindFieldTagsChanged, path, BumpPatch, "%s", tagsText(path, pf.Tags, cf.Tags))
	}
	if !propsEqual(pf.Props, cf.Props) {
		c.add(KindFieldAnnotation, path, BumpPatch, "annotations of field `%s` changed", Display(path))
	}
}

// deprecatedText words a field the new version marks deprecated, with the
// TTL and replacement of its deprecation record when there is one.
func (c *classifier) deprecatedText(f compat.Field) string {
	ttl, replacement, reason := c.in.TTLDays, "", f.Props["deprecated"]
	if ttl <= 0 {
		ttl = DefaultTTLDays
	}
	for _, d := range c.in.Deprecations {
		if d.Kind == ItemField && d.Path == f.Path {
			ttl, replacement = d.TTLDays, d.Replacement
			if d.Reason != "" {
				reason = d.Reason
			}
		}
	}
	return DeprecationSentence(f.Path, ttl, replacement, reason)
}

// DeprecationSentence words a field deprecation for the changelog:
// "field `carrier_code` deprecated, TTL 90 days, use `carrier.code`".
func DeprecationSentence(path string, ttlDays int, replacement, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "field `%s` deprecated, TTL %s", Display(path), rule.Plural(ttlDays, "day"))
	if replacement != "" {
		fmt.Fprintf(&b, ", use `%s`", Display(replacement))
	}
	if reason != "" && reason != "true" {
		fmt.Fprintf(&b, " (%s)", reason)
	}
	return b.String()
}

// reordered reports records whose common fields come in another order.
func (c *classifier) reordered(t compat.SchemaType, prevF, curF []compat.Field, prevBy, curBy map[string]compat.Field) {
	parents := map[string]bool{"": true}
	for _, f := range curF {
		parents[f.Path] = true
	}
	// Grouped once: looking each parent's children up in the whole list
	// was quadratic in the field count (20,000 fields: 30 s).
	prevKids, curKids := byParent(t, prevF), byParent(t, curF)
	for _, p := range slices.Sorted(maps.Keys(parents)) {
		var a, b []string
		for _, f := range prevKids[p] {
			if _, ok := curBy[f.Path]; ok {
				a = append(a, f.Path)
			}
		}
		for _, f := range curKids[p] {
			if _, ok := prevBy[f.Path]; ok {
				b = append(b, f.Path)
			}
		}
		if len(a) > 1 && !slices.Equal(a, b) {
			where := "the top-level record"
			if p != "" {
				where = "`" + Display(p) + "`"
			}
			c.add(KindFieldsReordered, p, BumpPatch, "fields of %s reordered", where)
		}
	}
}

func (c *classifier) metadata() {
	pm, _ := pii.ParseMetadata(c.in.Previous.Metadata)
	cm, _ := pii.ParseMetadata(c.in.Current.Metadata)
	for _, k := range unionKeys(pm.Properties, cm.Properties) {
		pv, pok := pm.Properties[k]
		cv, cok := cm.Properties[k]
		switch {
		case !pok:
			c.add(KindMetadataChanged, "", BumpPatch, "metadata property `%s` set to %q", k, cv)
		case !cok:
			c.add(KindMetadataChanged, "", BumpPatch, "metadata property `%s` removed", k)
		case pv != cv:
			c.add(KindMetadataChanged, "", BumpPatch, "metadata property `%s` changed from %q to %q", k, pv, cv)
		}
	}
	for _, k := range unionKeys(pm.Tags, cm.Tags) {
		pv, cv := sortedCopy(pm.Tags[k]), sortedCopy(cm.Tags[k])
		if !slices.Equal(pv, cv) {
			if len(cv) == 0 {
				c.add(KindMetadataChanged, "", BumpPatch, "metadata tags of `%s` removed", k)
			} else {
				c.add(KindMetadataChanged, "", BumpPatch, "metadata tags of `%s` set to %s", k, strings.Join(cv, ", "))
			}
		}
	}
	if !slices.Equal(sortedCopy(pm.Sensitive), sortedCopy(cm.Sensitive)) {
		c.add(KindMetadataChanged, "", BumpPatch, "sensitive metadata properties changed")
	}
}

func (c *classifier) ruleSet() {
	pr, _ := pii.ParseRuleSet(c.in.Previous.RuleSet)
	cr, _ := pii.ParseRuleSet(c.in.Current.RuleSet)
	for _, kind := range []struct {
		name      string
		prev, cur []pii.Rule
	}{{"migration", pr.MigrationRules, cr.MigrationRules}, {"domain", pr.DomainRules, cr.DomainRules}, {"encoding", pr.EncodingRules, cr.EncodingRules}} {
		pb, cb := rulesByName(kind.prev), rulesByName(kind.cur)
		for _, n := range unionKeys(pb, cb) {
			p, pok := pb[n]
			q, cok := cb[n]
			switch {
			case !pok:
				c.add(KindRuleSetChanged, "", BumpPatch, "%s rule `%s` added (%s)", kind.name, n, q.Type)
			case !cok:
				c.add(KindRuleSetChanged, "", BumpPatch, "%s rule `%s` removed", kind.name, n)
			case p != q:
				c.add(KindRuleSetChanged, "", BumpPatch, "%s rule `%s` changed", kind.name, n)
			}
		}
	}
}

// rulesByName indexes rules by name, as JSON text for comparison.
func rulesByName(rs []pii.Rule) map[string]ruleText {
	out := map[string]ruleText{}
	for _, r := range rs {
		b, _ := json.Marshal(r)
		out[r.Name] = ruleText{Type: r.Type, text: string(b)}
	}
	return out
}

type ruleText struct {
	Type string
	text string
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return slices.Sorted(maps.Keys(keys))
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

func tagsText(path string, prev, cur []string) string {
	var added, removed []string
	for _, t := range cur {
		if !slices.Contains(prev, t) {
			added = append(added, t)
		}
	}
	for _, t := range prev {
		if !slices.Contains(cur, t) {
			removed = append(removed, t)
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "tagged "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "untagged "+strings.Join(removed, ", "))
	}
	return fmt.Sprintf("field `%s` %s", Display(path), strings.Join(parts, " and "))
}

func propsEqual(a, b map[string]string) bool {
	strip := func(m map[string]string) map[string]string {
		out := maps.Clone(m)
		delete(out, "deprecated")
		return out
	}
	return maps.Equal(strip(a), strip(b))
}

func typeText(t string) string {
	if t == "" {
		return "untyped"
	}
	return "`" + t + "`"
}

// uniqueFields keeps the first field of each path.
func uniqueFields(fs []compat.Field) []compat.Field {
	seen := make(map[string]bool, len(fs))
	out := fs[:0:0]
	for _, f := range fs {
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	return out
}

func byPath(fs []compat.Field) map[string]compat.Field {
	out := make(map[string]compat.Field, len(fs))
	for _, f := range fs {
		out[f.Path] = f
	}
	return out
}

// under reports whether path lies inside one of the fields of fs.
func under(path string, fs []compat.Field) bool {
	for _, f := range fs {
		if strings.HasPrefix(path, f.Path) && len(path) > len(f.Path) && strings.ContainsRune(".[{<", rune(path[len(f.Path)])) {
			return true
		}
	}
	return false
}

// findingPath turns a compat violation path into a field path: Avro and
// Protobuf paths already are; a JSON pointer ("#/properties/a/items") is
// translated (".a[]"); "." (the whole schema) becomes "".
func findingPath(p string) string {
	if p == "." {
		return ""
	}
	if !strings.HasPrefix(p, "#") {
		return p
	}
	segs := strings.Split(strings.TrimPrefix(strings.TrimPrefix(p, "#"), "/"), "/")
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "required":
			if i+1 < len(segs) {
				b.WriteString("." + strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i+1]))
				i++
			}
		case "items", "additionalItems", "prefixItems":
			b.WriteString("[]")
		case "additionalProperties":
			b.WriteString("{}")
		}
	}
	return b.String()
}

func displayFindingPath(p string) string {
	fp := findingPath(p)
	if fp == "" {
		return "the schema"
	}
	return "`" + Display(fp) + "`"
}
