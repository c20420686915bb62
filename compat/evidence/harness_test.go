package evidence_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
)

// The differential harness: the rules' verdict (CheckRead) against the
// evidence (Read) on pairs made by mutating the realistic schemas of the
// formats' testdata. Each pair is a (reader, writer) = (mutant, original)
// or (original, mutant). The confusion matrix is printed per format; every
// pair where the two disagree falls in a class of knownDisagreements,
// with its reasoning, or the test fails naming the new class and an
// example pair.

const (
	harnessPairs  = 500 // per format
	harnessEvents = 40  // per pair
)

// evidenceClass is the evidence's verdict on a pair.
func evidenceClass(r evidence.Result) string {
	switch r.Verdict() {
	case evidence.Refused:
		return "refused"
	case evidence.Lossy:
		return "lossy"
	}
	return "clean"
}

// knownDisagreements maps a disagreement's class to why it is not a bug.
// "silent:" classes are pairs the rules accept and an event breaks (the
// evidence is right; an evidence rule names the class when the issue asks
// for one); "strict:" classes are pairs the rules refuse and no generated
// event breaks.
var knownDisagreements = map[compat.SchemaType]map[string]string{
	compat.Avro: {
		"silent:changed/a number read as another number": "the specification promotes int and long to float and double; " +
			"2147483647 read as a float, or 2^63-1 as a double, is another number. The rules follow the specification (and Confluent); " +
			"the evidence shows the loss. No evidence rule: not a class issue 17 lists",
		"silent:invalid-utf8": "the specification promotes bytes to string; bytes that are not UTF-8 (0xff 0xfe …) are not text, " +
			"and Java and Python readers replace or refuse them. The rules follow the specification",
	},
	compat.Protobuf: {
		"silent:" + evidence.RuleProtoRepeatedToSingular:     "caught by the evidence rule " + evidence.RuleProtoRepeatedToSingular,
		"silent:" + evidence.RuleProtoStringBytesInvalidUTF8: "caught by the evidence rule " + evidence.RuleProtoStringBytesInvalidUTF8,
		"silent:" + evidence.RuleProtoClosedEnumValueRemoved: "caught by the evidence rule " + evidence.RuleProtoClosedEnumValueRemoved,
		"silent:changed/a number read as another number": "Confluent (and Charter's CONFLUENT profile) accepts changes among the varint kinds " +
			"int32, int64, uint32, uint64, bool and enums; -1 read as uint64 is 18446744073709551615 and 2^63-1 read as int32 is -1. " +
			"The evidence shows it; no evidence rule yet (not a class issue 17 lists; the WIRE profile's PROTO_FIELD_WIRE_COMPATIBLE_TYPE refuses it)",
		"strict:" + "PROTO_FIELD_NUMERIC_LABEL_CHANGED": "Confluent refuses a numeric field becoming repeated in both directions; singular → repeated " +
			"reads every event (parsers accept packed and unpacked values for a repeated field), repeated → singular does not. " +
			"Charter keeps Confluent's verdict",
		"strict:PROTO_FIELD_SCALAR_KIND_CHANGED": "the changed field is an enum whose only value is 0, which proto3 never writes; " +
			"no event can carry it, the rule judges the declaration",
		"strict:PROTO_REQUIRED_FIELD_REMOVED": "the reader drops a field the writer requires: reading is fine (the value is projected away); " +
			"the rule protects the data the reader writes back, which a reader of the old schema would refuse",
	},
	compat.JSON: {
		"silent:" + evidence.RuleJSONContainsChanged:                               "caught by the evidence rule " + evidence.RuleJSONContainsChanged,
		"silent:" + evidence.RuleJSONOneOfOverlap:                                  "caught by the evidence rule " + evidence.RuleJSONOneOfOverlap,
		"silent:" + evidence.RuleJSONPatternPropertiesChanged:                      "caught by the evidence rule " + evidence.RuleJSONPatternPropertiesChanged,
		"silent:" + evidence.RuleJSONPropertyNamesChanged:                          "caught by the evidence rule " + evidence.RuleJSONPropertyNamesChanged,
		"silent:" + evidence.RuleJSONDependentSchemasChanged:                       "caught by the evidence rule " + evidence.RuleJSONDependentSchemasChanged,
		"silent:" + evidence.RuleJSONRequiredThroughAllOf:                          "caught by the evidence rule " + evidence.RuleJSONRequiredThroughAllOf,
		"silent:" + evidence.RuleJSONPatternNarrowed:                               "caught by the evidence rule " + evidence.RuleJSONPatternNarrowed,
		"silent:refused/the reader refused the document _ got array, want object":  typeDecomposed,
		"silent:refused/the reader refused the document _ got number, want string": typeDecomposed,
		"silent:refused/the reader refused the document _ got object, want array":  typeDecomposed,
		"silent:refused/the reader refused the document _ got string, want number": typeDecomposed,
		"silent:refused/the reader refused the document _ _ failed": "the writer is a oneOf of the reader's schema and a wider " +
			"alternative; Confluent (and Charter) accept a combined writer read by a plain reader when one alternative is compatible, " +
			"and documents of the other alternative are refused. No evidence rule yet",
		"strict:JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED": "the rule pairs the alternatives of an anyOf one to one and refuses when a " +
			"narrowed alternative has no compatible partner, but a document the narrowed alternative no longer matches still matches " +
			"another (anyOf overlaps), so every document reads; or the changed subschema is unreachable (a root whose type is string " +
			"or null never applies its properties). The rule judges the declarations",
		"strict:JSON_PATTERN_CHANGED": "patterns are compared as text (a rewrite as the same regular expression, such as \"(?:^a$)\" for " +
			"\"^a$\", is accepted since compat/jsonschema's samePattern; it was this class before); a wider pattern of other text is still " +
			"refused, as Confluent does: the inclusion of ECMA-262 patterns is not decided",
		"strict:JSON_REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL": "the mutant writer requires a property its closed content model " +
			"forbids, so it admits no document (0 events): nothing can break, the rule compares the declarations",
		"strict:JSON_TYPE_CHANGED": "the reader adds an allOf part requiring a property the writer already requires; Confluent's " +
			"model compares an added allOf as a changed combined type and refuses it; every document reads",
		"strict:JSON_TYPE_NARROWED": "the writer's integer multipleOf (4, 5) makes every writer number an integer, so integer " +
			"reads them all; the rule compares types without the multipleOf",
	},
}

// typeDecomposed is why a type change the rules accept refuses every
// document.
const typeDecomposed = "a schema whose type changed but that keeps keywords of its former type ({\"type\": \"integer\", \"maxLength\": 3} " +
	"against {\"type\": \"string\", \"maxLength\": 3}) is split, as Confluent's loaders do, into an allOf of a type part and a keyword " +
	"part, and the comparison of those parts accepts it: every writer document is refused. Charter reproduces Confluent's verdict " +
	"(a Confluent bug); the evidence shows the break. No evidence rule yet"

// allExamples (EVIDENCE_HARNESS_EXAMPLES=1) logs every pair of every
// class, to check a class's reasoning against all its pairs.
var allExamples = os.Getenv("EVIDENCE_HARNESS_EXAMPLES") != ""

// dumpTo (EVIDENCE_HARNESS_DUMP=FILE) writes every pair's result as one
// JSON line, to compare two versions of the engine pair by pair.
var dumpTo = os.Getenv("EVIDENCE_HARNESS_DUMP")

type pairCase struct {
	seed, mutation string
	reader, writer compat.Schema
}

func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("the differential harness runs without -short")
	}
	for _, typ := range []compat.SchemaType{compat.Avro, compat.Protobuf, compat.JSON} {
		t.Run(string(typ), func(t *testing.T) { differential(t, typ) })
	}
}

func differential(t *testing.T, typ compat.SchemaType) {
	e, _ := formats.ByType(typ)
	seeds := seedSchemas(t, typ)
	if len(seeds) == 0 {
		t.Fatal("no seed schemas")
	}
	rng := rand.New(rand.NewPCG(17, uint64(len(typ))))
	start := time.Now()
	matrix := map[[2]string]int{}
	classes := map[string][]string{}
	pairs, tries := 0, 0
	unsupported := map[string]int{}
	var dump *os.File
	if dumpTo != "" {
		f, err := os.OpenFile(dumpTo, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		dump = f
	}
	for pairs < harnessPairs && tries < 50*harnessPairs {
		tries++
		seedName := sortedNames(seeds)[rng.IntN(len(seeds))]
		orig := seeds[seedName]
		mutText, mutName, ok := mutate(typ, orig, rng)
		if !ok {
			continue
		}
		os, err1 := e.Format.Parse(orig, nil)
		ms, err2 := e.Format.Parse(mutText, nil)
		if err1 != nil || err2 != nil || os.Canonical() == ms.Canonical() {
			continue
		}
		pc := pairCase{seed: seedName, mutation: mutName, reader: ms, writer: os}
		if rng.IntN(2) == 1 {
			pc.reader, pc.writer = os, ms
			pc.mutation += " (original reads mutant)"
		}
		pairs++
		vs := e.Format.CheckRead(pc.reader, pc.writer)
		ruleVerdict := "compatible"
		if len(vs) > 0 {
			ruleVerdict = "incompatible"
		}
		res, err := evidence.Read(context.Background(), pc.reader, pc.writer, evidence.Options{Events: harnessEvents})
		if errors.Is(err, evidence.ErrUnsupported) {
			pairs--
			unsupported[err.Error()]++
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v", pc.seed, pc.mutation, err)
		}
		if dump != nil {
			line, _ := json.Marshal(struct {
				Type, Seed, Mutation string
				Result               evidence.Result
			}{string(typ), pc.seed, pc.mutation, res})
			fmt.Fprintf(dump, "%s\n", line)
		}
		ev := evidenceClass(res)
		matrix[[2]string{ruleVerdict, ev}]++
		// A pair falls in one class per breaking outcome (silent) or
		// one per rule that fired (strict).
		var pairClasses []string
		switch {
		case ruleVerdict == "compatible" && ev != "clean":
			for _, o := range res.Outcomes {
				pairClasses = append(pairClasses, "silent:"+silentClass(o))
			}
		case ruleVerdict == "incompatible" && ev == "clean":
			for _, v := range vs {
				pairClasses = append(pairClasses, "strict:"+v.RuleID)
			}
		default:
			continue
		}
		seenClass := map[string]bool{}
		for _, class := range pairClasses {
			if seenClass[class] {
				continue
			}
			seenClass[class] = true
			if len(classes[class]) >= 2 && !allExamples {
				classes[class] = append(classes[class], "")
				continue
			}
			ex := fmt.Sprintf("%s / %s", pc.seed, pc.mutation)
			if len(res.Outcomes) > 0 {
				ex += fmt.Sprintf(": %s at %s %s: %s", res.Outcomes[0].Class, res.Outcomes[0].Path, res.Outcomes[0].Event, res.Outcomes[0].Reader)
			} else if len(vs) > 0 {
				ex += fmt.Sprintf(": %s (%d events: %d equal, %d default)", vs[0], res.Events, res.Equal, res.Defaulted)
			}
			classes[class] = append(classes[class], ex)
		}
	}
	if pairs < harnessPairs {
		t.Fatalf("only %d pairs from %d tries", pairs, tries)
	}
	t.Logf("%s: %d pairs in %v, %d events each", typ, pairs, time.Since(start).Round(time.Millisecond), harnessEvents)
	for reason, n := range unsupported {
		t.Logf("%d pairs not read: %s", n, reason)
	}
	t.Logf("%-14s %8s %8s %8s", "rules \\ events", "clean", "lossy", "refused")
	for _, rv := range []string{"compatible", "incompatible"} {
		t.Logf("%-14s %8d %8d %8d", rv, matrix[[2]string{rv, "clean"}], matrix[[2]string{rv, "lossy"}], matrix[[2]string{rv, "refused"}])
	}
	for _, c := range sortedKeysOf(classes) {
		why, known := knownDisagreements[typ][c]
		n := len(classes[c])
		if !known {
			t.Errorf("unexplained disagreement %s (%d pairs), e.g. %s", c, n, strings.Join(nonEmpty(classes[c]), "; "))
			continue
		}
		t.Logf("%s: %d pairs: %s", c, n, why)
		if allExamples {
			for _, ex := range nonEmpty(classes[c]) {
				t.Logf("    %s", ex)
			}
		}
	}
}

func nonEmpty(s []string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedNames(m map[string]string) []string { return sortedKeysOf(m) }

// silentClass names what breaks in one outcome of a pair the rules
// accept: the evidence rule it proves, else its kind and a word of what
// the reader did.
func silentClass(o evidence.Outcome) string {
	switch {
	case o.RuleID != "":
		return o.RuleID
	case numericRE.MatchString(o.Reader):
		return o.Kind + "/a number read as another number"
	case o.Kind == "invalid-utf8":
		return o.Kind
	}
	return fmt.Sprintf("%s/%s", o.Kind, readerGist(o.Reader))
}

// numericRE matches the Protobuf and Avro sentences of a number read as
// another number.
var numericRE = regexp.MustCompile(`^the reader read \S+ \(\w+\) as \S+ \(\w+\)$|^the reader read -?[\d.e+]+ as -?[\d.e+]+$`)

var gistRE = regexp.MustCompile(`at #/\S*:|"[^"]*"|'[^']*'|\d+|acme\.[\w.]+|[\w.]+\.[A-Z]\w*`)

// readerGist is the reader's sentence without its values, cut short.
func readerGist(s string) string {
	s = gistRE.ReplaceAllString(s, "_")
	if i := strings.Index(s, " (reader schema"); i > 0 {
		s = s[:i]
	}
	if len(s) > 90 {
		s = s[:90]
	}
	return s
}

// seedSchemas reads the format's testdata schemas that parse alone.
func seedSchemas(t *testing.T, typ compat.SchemaType) map[string]string {
	e, _ := formats.ByType(typ)
	dir := map[compat.SchemaType]string{compat.Avro: "avro", compat.Protobuf: "protobuf", compat.JSON: "jsonschema"}[typ]
	out := map[string]string{}
	root := filepath.Join("..", dir, "testdata")
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != e.Extensions[0] || strings.Contains(path, "want") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 20000 {
			return nil
		}
		if _, err := e.Format.Parse(string(b), nil); err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out[rel] = string(b)
		return nil
	})
	return out
}

func mutate(typ compat.SchemaType, text string, rng *rand.Rand) (string, string, bool) {
	switch typ {
	case compat.Avro:
		return mutateAvro(text, rng)
	case compat.Protobuf:
		return mutateProto(text, rng)
	}
	return mutateJSON(text, rng)
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// mutateAvro changes one thing of one record field, enum or fixed.
func mutateAvro(text string, rng *rand.Rand) (string, string, bool) {
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return "", "", false
	}
	doc = deepCopy(doc)
	var fields []map[string]any
	var records, enums, fixeds []map[string]any
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			switch x["type"] {
			case "record", "error":
				records = append(records, x)
				fs, _ := x["fields"].([]any)
				for _, f := range fs {
					if fm, ok := f.(map[string]any); ok {
						fields = append(fields, fm)
						walk(fm["type"])
					}
				}
				return
			case "enum":
				enums = append(enums, x)
			case "fixed":
				fixeds = append(fixeds, x)
			}
			for _, k := range []string{"items", "values", "type"} {
				if c, ok := x[k]; ok {
					walk(c)
				}
			}
		}
	}
	walk(doc)
	promote := map[string][]string{"int": {"long", "float", "double", "string"}, "long": {"int", "double", "float"}, "float": {"double", "int"},
		"double": {"float"}, "string": {"bytes", "int"}, "bytes": {"string"}, "boolean": {"int"}}
	var name string
	switch op := rng.IntN(14); {
	case op < 7 && len(fields) > 0:
		f := fields[rng.IntN(len(fields))]
		fname, _ := f["name"].(string)
		switch op {
		case 0:
			ft, ok := f["type"].(string)
			if alts := promote[ft]; ok && len(alts) > 0 {
				f["type"] = alts[rng.IntN(len(alts))]
				delete(f, "default")
				name = fmt.Sprintf("field %s: %s -> %s", fname, ft, f["type"])
			}
		case 1:
			if u, ok := f["type"].([]any); ok && len(u) > 1 {
				i := rng.IntN(len(u))
				f["type"] = append(append([]any{}, u[:i]...), u[i+1:]...)
				delete(f, "default")
				name = fmt.Sprintf("field %s: union branch %d removed", fname, i)
			} else if _, ok := f["type"].([]any); !ok {
				f["type"] = []any{"null", f["type"]}
				f["default"] = nil
				name = fmt.Sprintf("field %s: made nullable", fname)
			}
		case 2:
			if u, ok := f["type"].([]any); ok {
				f["type"] = append(append([]any{}, u...), "long")
				name = fmt.Sprintf("field %s: branch long added", fname)
			}
		case 3:
			f["name"] = fname + "_renamed"
			if rng.IntN(2) == 0 {
				f["aliases"] = []any{fname}
				name = fmt.Sprintf("field %s renamed with alias", fname)
			} else {
				name = fmt.Sprintf("field %s renamed", fname)
			}
		case 4:
			if _, ok := f["default"]; ok {
				delete(f, "default")
				name = fmt.Sprintf("field %s: default dropped", fname)
			}
		case 5, 6:
			if t, ok := f["type"].(map[string]any); ok && t["type"] == "array" {
				if it, ok := t["items"].(string); ok && len(promote[it]) > 0 {
					t["items"] = promote[it][0]
					name = fmt.Sprintf("field %s: items %s -> %s", fname, it, t["items"])
				}
			}
		}
	case op < 10 && len(records) > 0:
		r := records[rng.IntN(len(records))]
		fs, _ := r["fields"].([]any)
		switch {
		case op == 7 && len(fs) > 1:
			i := rng.IntN(len(fs))
			fn := fs[i].(map[string]any)["name"]
			r["fields"] = append(append([]any{}, fs[:i]...), fs[i+1:]...)
			name = fmt.Sprintf("record %v: field %v removed", r["name"], fn)
		case op == 8:
			nf := map[string]any{"name": "added_field", "type": "int"}
			if rng.IntN(2) == 0 {
				nf["default"] = 0
				name = fmt.Sprintf("record %v: field added with default", r["name"])
			} else {
				name = fmt.Sprintf("record %v: field added without default", r["name"])
			}
			r["fields"] = append(fs, nf)
		case op == 9:
			nf := map[string]any{"name": "added_opt", "type": []any{"null", "string"}, "default": nil}
			r["fields"] = append(fs, nf)
			name = fmt.Sprintf("record %v: optional field added", r["name"])
		}
	case op < 13 && len(enums) > 0:
		en := enums[rng.IntN(len(enums))]
		syms, _ := en["symbols"].([]any)
		switch {
		case op == 10 && len(syms) > 1:
			i := rng.IntN(len(syms))
			if en["default"] == syms[i] {
				return "", "", false
			}
			en["symbols"] = append(append([]any{}, syms[:i]...), syms[i+1:]...)
			name = fmt.Sprintf("enum %v: symbol %v removed", en["name"], syms[i])
		case op == 11:
			en["symbols"] = append(syms, "ADDED_SYMBOL")
			name = fmt.Sprintf("enum %v: symbol added", en["name"])
		case op == 12 && len(syms) > 0:
			en["default"] = syms[0]
			name = fmt.Sprintf("enum %v: default %v", en["name"], syms[0])
		}
	case len(fixeds) > 0:
		fx := fixeds[rng.IntN(len(fixeds))]
		if s, ok := fx["scale"].(float64); ok {
			fx["scale"] = s + 1
			name = fmt.Sprintf("fixed decimal %v: scale +1", fx["name"])
		} else if sz, ok := fx["size"].(float64); ok {
			fx["size"] = sz + 1
			name = fmt.Sprintf("fixed %v: size +1", fx["name"])
		}
	}
	if name == "" {
		return "", "", false
	}
	b, err := json.Marshal(doc)
	return string(b), name, err == nil
}

var (
	protoFieldRE = regexp.MustCompile(`(?m)^(\s*)(optional |repeated |required )?([A-Za-z_][\w.]*) ([a-z_]\w*) = (\d+)(.*);`)
	protoEnumRE  = regexp.MustCompile(`(?m)^(\s*)([A-Z][A-Z0-9_]*) = ([1-9]\d*)(.*);\s*$`)
	protoScalars = []string{"string", "bytes", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64", "bool", "double", "float"}
)

// mutateProto changes one field or enum value of a .proto file's text.
func mutateProto(text string, rng *rand.Rand) (string, string, bool) {
	fields := protoFieldRE.FindAllStringSubmatchIndex(text, -1)
	enums := protoEnumRE.FindAllStringSubmatchIndex(text, -1)
	op := rng.IntN(10)
	if op >= 8 && len(enums) > 0 {
		m := enums[rng.IntN(len(enums))]
		line := text[m[0]:m[1]]
		if op == 8 {
			return text[:m[0]] + text[m[1]:], "enum value removed: " + strings.TrimSpace(line), true
		}
		indent := text[m[2]:m[3]]
		return text[:m[1]] + "\n" + indent + "ADDED_VALUE_X = 99;" + text[m[1]:], "enum value added after " + strings.TrimSpace(line), true
	}
	if len(fields) == 0 {
		return "", "", false
	}
	m := fields[rng.IntN(len(fields))]
	line := text[m[0]:m[1]]
	label, typ, fname := "", text[m[6]:m[7]], text[m[8]:m[9]]
	if m[4] >= 0 {
		label = text[m[4]:m[5]]
	}
	if typ == "map" || strings.HasPrefix(typ, "map<") || label == "required " && op != 2 {
		return "", "", false
	}
	rest := text[m[6]:m[1]]
	repl := ""
	var name string
	switch op {
	case 0, 1, 2, 3:
		nt := protoScalars[rng.IntN(len(protoScalars))]
		if op == 0 {
			// The pairs the issue names: string <-> bytes.
			nt = map[string]string{"string": "bytes", "bytes": "string"}[typ]
			if nt == "" {
				nt = protoScalars[rng.IntN(len(protoScalars))]
			}
		}
		if nt == typ {
			return "", "", false
		}
		repl = label + nt + rest[len(typ):]
		name = fmt.Sprintf("field %s: %s -> %s", fname, typ, nt)
	case 4, 5:
		switch label {
		case "repeated ":
			repl = rest
			if strings.Contains(text, `syntax = "proto2"`) {
				repl = "optional " + rest
			}
			name = fmt.Sprintf("field %s: repeated -> singular", fname)
		default:
			repl = "repeated " + rest
			name = fmt.Sprintf("field %s: singular -> repeated", fname)
		}
	case 6:
		return text[:m[0]] + text[m[1]:], "field removed: " + strings.TrimSpace(line), true
	case 7:
		repl = label + typ + " " + fname + "_renamed" + rest[len(typ)+1+len(fname):]
		name = fmt.Sprintf("field %s renamed", fname)
	}
	if name == "" {
		return "", "", false
	}
	return text[:m[6]-len(label)] + repl + text[m[1]:], name, true
}

// mutateJSON changes one keyword of one subschema.
func mutateJSON(text string, rng *rand.Rand) (string, string, bool) {
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return "", "", false
	}
	doc = deepCopy(doc)
	var subs []map[string]any
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth > 12 {
			return
		}
		subs = append(subs, m)
		for _, k := range []string{"properties", "definitions", "$defs", "patternProperties", "dependentSchemas"} {
			if pm, ok := m[k].(map[string]any); ok {
				for _, pk := range sortedKeysOf(pm) {
					walk(pm[pk], depth+1)
				}
			}
		}
		for _, k := range []string{"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"} {
			walk(m[k], depth+1)
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"} {
			if l, ok := m[k].([]any); ok {
				for _, e := range l {
					walk(e, depth+1)
				}
			}
		}
	}
	walk(doc, 0)
	if len(subs) == 0 {
		return "", "", false
	}
	s := subs[rng.IntN(len(subs))]
	props, _ := s["properties"].(map[string]any)
	propNames := sortedKeysOf(props)
	var name string
	switch op := rng.IntN(16); op {
	case 0:
		if t, ok := s["type"].(string); ok {
			nt := map[string]string{"string": "integer", "integer": "number", "number": "integer", "boolean": "string", "object": "array", "array": "object", "null": "string"}[t]
			s["type"] = nt
			name = fmt.Sprintf("type %s -> %s", t, nt)
		}
	case 1:
		if len(propNames) > 0 {
			p := propNames[rng.IntN(len(propNames))]
			req, _ := s["required"].([]any)
			s["required"] = append(req, p)
			name = "required added: " + p
		}
	case 2:
		if req, ok := s["required"].([]any); ok && len(req) > 0 {
			s["required"] = req[1:]
			if len(req) == 1 {
				delete(s, "required")
			}
			name = fmt.Sprintf("required removed: %v", req[0])
		}
	case 3:
		if len(propNames) > 0 {
			p := propNames[rng.IntN(len(propNames))]
			delete(props, p)
			name = "property removed: " + p
		}
	case 4:
		if props != nil {
			props["added_prop"] = map[string]any{"type": "string"}
			name = "property added"
		}
	case 5:
		if props != nil {
			s["additionalProperties"] = false
			name = "additionalProperties false"
		}
	case 6:
		if s["type"] == "string" {
			s["maxLength"] = 3
			name = "maxLength 3"
		} else if s["type"] == "integer" || s["type"] == "number" {
			s["minimum"] = 10
			name = "minimum 10"
		}
	case 7:
		if p, ok := s["pattern"].(string); ok {
			if rng.IntN(2) == 0 {
				delete(s, "pattern")
				name = "pattern removed (wider)"
			} else {
				s["pattern"] = "(?:" + p + ")"
				name = "pattern rewritten equivalently"
			}
		} else if s["type"] == "string" {
			s["pattern"] = "^[a-m]"
			name = "pattern added"
		}
	case 8:
		if en, ok := s["enum"].([]any); ok && len(en) > 1 {
			s["enum"] = en[:len(en)-1]
			name = "enum value removed"
		} else if ok {
			s["enum"] = append(en, "added-value")
			name = "enum value added"
		}
	case 9:
		if alts, ok := s["oneOf"].([]any); ok {
			s["oneOf"] = append(alts, map[string]any{"type": "number"})
			name = "oneOf alternative {type: number} added"
		} else if t, ok := s["type"].(string); ok && (t == "integer" || t == "string") {
			cp := deepCopy(s).(map[string]any)
			for k := range s {
				delete(s, k)
			}
			s["oneOf"] = []any{cp, map[string]any{"type": []any{"number", "string"}}}
			name = "wrapped in oneOf with an overlapping alternative"
		}
	case 10:
		if props != nil || s["type"] == "object" {
			s["propertyNames"] = map[string]any{"maxLength": 4}
			name = "propertyNames maxLength 4"
		}
	case 11:
		if s["type"] == "array" {
			s["contains"] = map[string]any{"type": "string", "minLength": 2}
			name = "contains added"
		}
	case 12:
		if props != nil || s["type"] == "object" {
			s["patternProperties"] = map[string]any{"^x-|^[a-z]": map[string]any{"maxLength": 2}}
			name = "patternProperties added"
		}
	case 13:
		if len(propNames) > 0 {
			p := propNames[rng.IntN(len(propNames))]
			allOf, _ := s["allOf"].([]any)
			s["allOf"] = append(allOf, map[string]any{"required": []any{p}})
			name = "required through allOf: " + p
		}
	case 14:
		if len(propNames) > 1 {
			a, b := propNames[0], propNames[1]
			s["dependentSchemas"] = map[string]any{a: map[string]any{"required": []any{b}}}
			name = fmt.Sprintf("dependentSchemas %s requires %s", a, b)
		}
	case 15:
		if mx, ok := s["maximum"].(float64); ok {
			s["maximum"] = mx - 1
			name = "maximum - 1"
		} else if ml, ok := s["maxLength"].(float64); ok && ml > 1 {
			s["maxLength"] = ml - 1
			name = "maxLength - 1"
		}
	}
	if name == "" {
		return "", "", false
	}
	b, err := json.Marshal(doc)
	return string(b), name, err == nil
}
