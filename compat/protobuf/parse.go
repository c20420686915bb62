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

// Parse is Format.Parse returning the concrete *Schema. text is either
// .proto source or a base64-encoded FileDescriptorProto (what Confluent's
// Python and JavaScript serializers register; see [DecodeDescriptor]). A
// descriptor is printed as .proto text, which is then parsed as any text,
// so that both forms are stored and canonicalised alike.
func Parse(text string, deps []compat.Dependency) (s *Schema, err error) {
	if len(text) > maxSchemaBytes {
		return nil, fmt.Errorf("schema is %d bytes, more than the %d allowed", len(text), maxSchemaBytes)
	}
	if fdp, ok, derr := DecodeDescriptor(text); ok {
		return parseDescriptor(fdp, deps)
	} else if derr != nil {
		if _, terr := parseText(text, deps); terr != nil {
			return nil, fmt.Errorf("invalid Protobuf schema: neither .proto text (%s) nor a base64-encoded FileDescriptorProto (%s)",
				strings.TrimPrefix(terr.Error(), "invalid Protobuf schema: "), derr)
		}
	}
	return parseText(text, deps)
}

// sourcesOf checks deps and returns them by import path.
func sourcesOf(deps []compat.Dependency) (map[string]string, error) {
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
	return sources, nil
}

// freeName returns want, or schema.proto, schema_1.proto, ... when want is
// empty or a reference's name.
func freeName(sources map[string]string, want string) string {
	if _, taken := sources[want]; want != "" && !taken {
		return want
	}
	name := schemaFileName
	for i := 1; ; i++ {
		if _, taken := sources[name]; !taken {
			return name
		}
		name = fmt.Sprintf("schema_%d.proto", i)
	}
}

// compile compiles the file name, whose content main gives, with the
// references in sources.
func compile(name string, main protocompile.SearchResult, sources map[string]string) (f linker.File, err error) {
	resolver := protocompile.WithStandardImports(protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
		if path == name {
			return main, nil
		}
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
			f, err = nil, fmt.Errorf("invalid Protobuf schema: parser failed: %v", r)
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
	return files[0], nil
}

// parseText parses .proto source.
func parseText(text string, deps []compat.Dependency) (*Schema, error) {
	sources, err := sourcesOf(deps)
	if err != nil {
		return nil, err
	}
	name := freeName(sources, "")
	file, err := compile(name, protocompile.SearchResult{Source: strings.NewReader(text)}, sources)
	if err != nil {
		return nil, err
	}
	res, ok := file.(linker.Result)
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
	return &Schema{fd: file, canonical: canonical, normalized: normalized, src: src}, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
