package protobuf

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/bufbuild/protocompile/reporter"

	"github.com/charter-dev/charter/compat"
)

//go:embed include/confluent
var embedded embed.FS

// schemaFileName is the name under which the schema text is compiled; it
// appears in error positions. A reference with the same name gets a suffix.
const schemaFileName = "schema.proto"

// maxSchemaBytes bounds the text of one file (schema or reference).
const maxSchemaBytes = 4 << 20

// Parse is Format.Parse returning the concrete *Schema.
func Parse(text string, deps []compat.Dependency) (s *Schema, err error) {
	if len(text) > maxSchemaBytes {
		return nil, fmt.Errorf("schema is %d bytes, more than the %d allowed", len(text), maxSchemaBytes)
	}
	sources := make(map[string]string, len(deps)+1)
	for _, d := range deps {
		if d.Name == "" {
			return nil, errors.New("a reference has an empty name")
		}
		if len(d.Text) > maxSchemaBytes {
			return nil, fmt.Errorf("reference %q is %d bytes, more than the %d allowed", d.Name, len(d.Text), maxSchemaBytes)
		}
		sources[d.Name] = d.Text
	}
	name := schemaFileName
	for i := 1; ; i++ {
		if _, taken := sources[name]; !taken {
			break
		}
		name = fmt.Sprintf("schema_%d.proto", i)
	}
	sources[name] = text

	resolver := protocompile.WithStandardImports(protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
		if src, ok := sources[path]; ok {
			return protocompile.SearchResult{Source: strings.NewReader(src)}, nil
		}
		if strings.HasPrefix(path, "confluent/") {
			if b, err := fs.ReadFile(embedded, "include/"+path); err == nil {
				return protocompile.SearchResult{Source: strings.NewReader(string(b))}, nil
			}
		}
		return protocompile.SearchResult{}, fs.ErrNotExist
	}))
	var firstErr error
	rep := reporter.NewReporter(func(e reporter.ErrorWithPos) error {
		if firstErr == nil {
			firstErr = e
		}
		return e
	}, nil)
	c := protocompile.Compiler{
		Resolver:       resolver,
		MaxParallelism: 1,
		Reporter:       rep,
		RetainASTs:     true,
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("invalid Protobuf schema: parser failed: %v", r)
		}
	}()
	files, err := c.Compile(context.Background(), name)
	if err != nil {
		if firstErr != nil {
			err = firstErr
		}
		return nil, fmt.Errorf("invalid Protobuf schema: %s", oneLine(err.Error()))
	}
	if len(files) != 1 {
		return nil, errors.New("invalid Protobuf schema: the compiler returned no file")
	}
	res, ok := files[0].(linker.Result)
	if !ok || res.AST() == nil {
		return nil, errors.New("invalid Protobuf schema: the compiler returned no syntax tree")
	}
	canonical := canonicalText(res.AST())
	normalized, err := normalizedText(res)
	if err != nil {
		return nil, fmt.Errorf("invalid Protobuf schema: %w", err)
	}
	src := fieldSources(res)
	res.RemoveAST()
	return &Schema{fd: files[0], canonical: canonical, normalized: normalized, src: src}, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
