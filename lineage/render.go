package lineage

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteDOT renders the graph in Graphviz DOT, left to right: services as
// boxes, subjects as cylinders, versions as notes, fields as ellipses
// (PII-tagged fields red, deprecated ones dashed). Output is
// deterministic: nodes and edges in the graph's order.
func (g *Graph) WriteDOT(w io.Writer) error {
	var b strings.Builder
	b.WriteString("digraph lineage {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n")
	for _, n := range g.Nodes {
		attrs := []string{"label=" + dotQuote(nodeLabel(n))}
		switch n.Kind {
		case KindService:
			attrs = append(attrs, "shape=box", "style=rounded")
		case KindSubject:
			attrs = append(attrs, "shape=cylinder")
		case KindVersion:
			attrs = append(attrs, "shape=note")
		case KindField:
			attrs = append(attrs, "shape=ellipse")
			if hasTag(n.Tags, "PII") {
				attrs = append(attrs, "color=red", "fontcolor=red")
			}
			if n.Deprecated {
				attrs = append(attrs, "style=dashed")
			}
		}
		fmt.Fprintf(&b, "  %s [%s];\n", dotQuote(n.ID), strings.Join(attrs, ", "))
	}
	for _, e := range g.Edges {
		var attrs []string
		if l := edgeLabel(e); l != "" {
			attrs = append(attrs, "label="+dotQuote(l))
		}
		switch e.Kind {
		case EdgeHasVersion, EdgeDeclares:
			attrs = append(attrs, "style=dotted", "arrowhead=none")
		case EdgeReads:
			attrs = append(attrs, "color=gray")
		}
		fmt.Fprintf(&b, "  %s -> %s", dotQuote(e.From), dotQuote(e.To))
		if len(attrs) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(attrs, ", "))
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMermaid renders the graph as a Mermaid flowchart (left to right);
// node IDs are n0, n1 … in the graph's node order.
func (g *Graph) WriteMermaid(w io.Writer) error {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	ids := make(map[string]string, len(g.Nodes))
	for i, n := range g.Nodes {
		id := "n" + strconv.Itoa(i)
		ids[n.ID] = id
		label := mermaidQuote(nodeLabel(n))
		switch n.Kind {
		case KindService:
			fmt.Fprintf(&b, "  %s(%s)\n", id, label)
		case KindSubject:
			fmt.Fprintf(&b, "  %s[(%s)]\n", id, label)
		case KindVersion:
			fmt.Fprintf(&b, "  %s[/%s/]\n", id, label)
		default:
			fmt.Fprintf(&b, "  %s([%s])\n", id, label)
		}
	}
	for _, e := range g.Edges {
		arrow := "-->"
		switch e.Kind {
		case EdgeHasVersion, EdgeDeclares:
			arrow = "-.-"
		case EdgeReads:
			arrow = "-.->"
		}
		if l := edgeLabel(e); l != "" {
			fmt.Fprintf(&b, "  %s %s|%s| %s\n", ids[e.From], arrow, mermaidQuote(l), ids[e.To])
		} else {
			fmt.Fprintf(&b, "  %s %s %s\n", ids[e.From], arrow, ids[e.To])
		}
	}
	var pii []string
	for _, n := range g.Nodes {
		if n.Kind == KindField && hasTag(n.Tags, "PII") {
			pii = append(pii, ids[n.ID])
		}
	}
	if len(pii) > 0 {
		b.WriteString("  classDef pii stroke:#c00,color:#c00\n")
		fmt.Fprintf(&b, "  class %s pii\n", strings.Join(pii, ","))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON renders the graph as indented JSON: {"nodes": […], "edges": […]}.
func (g *Graph) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(g)
}

func nodeLabel(n Node) string {
	if n.Kind != KindField {
		return n.Name
	}
	l := n.Path
	if n.Type != "" {
		l += "\n" + n.Type
	}
	if len(n.Tags) > 0 {
		l += "\n[" + strings.Join(n.Tags, ", ") + "]"
	}
	if n.Deprecated {
		l += "\ndeprecated"
	}
	return l
}

func edgeLabel(e Edge) string {
	switch e.Kind {
	case EdgeProduces:
		if len(e.Versions) == 0 {
			return "produces"
		}
		vs := make([]string, len(e.Versions))
		for i, v := range e.Versions {
			vs[i] = "v" + strconv.Itoa(v)
		}
		return "produces " + strings.Join(vs, ",")
	case EdgeConsumes:
		l := "consumes"
		if e.Range != nil {
			l += " v" + e.Range.String()
		}
		return fmt.Sprintf("%s (%d fields)", l, len(e.Fields))
	}
	return ""
}

// dotQuote writes s as a DOT double-quoted ID: quotes and backslashes
// escaped, newlines as \n.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// mermaidQuote writes s as a Mermaid quoted label: quotes and angle
// brackets as entity codes (#quot;, #lt;, #gt;), newlines as <br/>.
func mermaidQuote(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", "<br/>")
	return `"` + r.Replace(s) + `"`
}
