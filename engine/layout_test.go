package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stageOrder is the data flow through the engine root: a reader follows a
// record top-down through these files, never back up.
var stageOrder = []string{"extract.go", "normalize.go", "validate_inputs.go", "validate.go", "gatec.go", "render.go", "pipeline.go"}

// TestStagesReadTopDown: no stage file uses a function, type, variable or
// constant defined in a later stage's file. Shared code belongs in the
// format's own file (foundby.go, urlmap.go, citation.go, …) or helpers.
func TestStagesReadTopDown(t *testing.T) {
	for _, ref := range upwardRefs(t, ".", stageOrder) {
		t.Errorf("upward reference: %s", ref)
	}
}

// TestUpwardRefsFindsOne proves the checker above can fail: a.go using b.go's
// declaration is an upward reference when b follows a.
func TestUpwardRefsFindsOne(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.go": "package p\nfunc a() int { return b() }\n",
		"b.go": "package p\nfunc b() int { return 1 }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := upwardRefs(t, dir, []string{"a.go", "b.go"}); len(got) != 1 || got[0] != "a.go uses b (b.go)" {
		t.Fatalf("upwardRefs = %q, want one a.go → b.go", got)
	}
	if got := upwardRefs(t, dir, []string{"b.go", "a.go"}); len(got) != 0 {
		t.Fatalf("upwardRefs in flow order = %q, want none", got)
	}
}

// upwardRefs lists the package-level names each file in order uses from a
// later file in order (methods are reached through values and not counted).
func upwardRefs(t *testing.T, dir string, order []string) []string {
	t.Helper()
	rank := map[string]int{}
	for i, f := range order {
		rank[f] = i
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	defs := map[string]string{}
	files := map[string]*ast.File{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(p)
		files[base] = f
		for name := range topLevelNames(f) {
			defs[name] = base
		}
	}
	var refs []string
	for _, name := range order {
		f, ok := files[name]
		if !ok {
			t.Fatalf("%s is in the stage order but not in %s", name, dir)
		}
		seen := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || seen[id.Name] {
				return true
			}
			if def, ok := defs[id.Name]; ok && rank[def] > rank[name] {
				if _, staged := rank[def]; staged {
					seen[id.Name] = true
					refs = append(refs, name+" uses "+id.Name+" ("+def+")")
				}
			}
			return true
		})
	}
	return refs
}

func topLevelNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names
}
