package parse

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// refStore holds every link reference definition of a file, the first one
// in document order winning for a label, as CommonMark says. The file is
// parsed in pieces, so the store is filled from all of them before any
// Sources link is resolved.
type refStore map[string]parser.Reference

// add records the definitions inside n (at any depth).
func (s refStore) add(n ast.Node) {
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch d := c.(type) {
		case *ast.LinkReferenceDefinition:
			key := util.ToLinkReference(d.Label)
			if _, ok := s[key]; !ok {
				s[key] = parser.NewReference(d.Label, d.Destination, d.Title)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
			// Leaves hold no definitions (they were taken out already).
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// refContext resolves references from the whole file's store instead of
// those the current piece defines. It is read-only: the store already holds
// every definition, including the piece's own, in the right precedence.
type refContext struct {
	parser.Context
	refs refStore
}

func newRefContext(refs refStore, lim *limits) parser.Context {
	return &refContext{Context: newLimitedContext(lim), refs: refs}
}

func (c *refContext) AddReference(parser.Reference) {}

func (c *refContext) Reference(label string) (parser.Reference, bool) {
	r, ok := c.refs[label]
	return r, ok
}

func (c *refContext) References() []parser.Reference {
	out := make([]parser.Reference, 0, len(c.refs))
	for _, r := range c.refs {
		out = append(out, r)
	}
	return out
}
