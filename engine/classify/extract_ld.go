// JSON-LD in pages: free/not-free markers, article types, publisher and headline.

package classify

import (
	"bytes"
	"encoding/json"
	"strings"
)

// readLD scans the kept JSON-LD blocks for isAccessibleForFree=false, the
// publisher's name and the headline.
func (in *pageInfo) readLD() {
	for _, b := range in.ld {
		if in.freeFalse == "" && ldNotFree(bytes.ToLower(b)) {
			in.freeFalse = "JSON-LD"
		}
		if in.ldPublisher != "" && in.ldHeadline != "" && in.ldArticle {
			continue
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			continue
		}
		if !in.ldArticle {
			in.ldArticle = hasArticleType(v, 0)
		}
		ids := map[string]map[string]any{}
		collectIDs(v, ids, 0)
		if in.ldPublisher == "" {
			in.ldPublisher = collapse(findPublisher(v, ids, 0))
		}
		if in.ldHeadline == "" {
			in.ldHeadline = collapse(findString(v, "headline", 0))
		}
	}
	in.ld = nil
}

// articleTypes are the schema.org types of a document that is an article.
var articleTypes = map[string]bool{"article": true, "newsarticle": true, "blogposting": true, "scholarlyarticle": true,
	"techarticle": true, "report": true, "analysisnewsarticle": true, "reportagenewsarticle": true, "opinionnewsarticle": true,
	"reviewnewsarticle": true, "backgroundnewsarticle": true, "socialmediaposting": true, "medicalscholarlyarticle": true}

// hasArticleType reports an @type (or @graph member's @type) that is an
// article type.
func hasArticleType(v any, depth int) bool {
	if depth > ldDepth {
		return false
	}
	switch t := v.(type) {
	case map[string]any:
		switch ty := t["@type"].(type) {
		case string:
			if articleTypes[strings.ToLower(ty)] {
				return true
			}
		case []any:
			for _, x := range ty {
				if s, ok := x.(string); ok && articleTypes[strings.ToLower(s)] {
					return true
				}
			}
		}
		if g, ok := t["@graph"]; ok {
			return hasArticleType(g, depth+1)
		}
	case []any:
		for _, c := range t {
			if hasArticleType(c, depth+1) {
				return true
			}
		}
	}
	return false
}

// articlePage reports a page that declares itself an article (og:type
// article or a JSON-LD article type) and carries the text of one.
func (in *pageInfo) articlePage() bool {
	return (in.ldArticle || strings.EqualFold(in.ogType, "article")) && in.mainRunes >= leadMaxPage
}

// ldNotFree finds `"isaccessibleforfree": false` (or "false") in a
// lowercased block, tolerating JSON that does not parse.
func ldNotFree(low []byte) bool {
	const key = "isaccessibleforfree"
	for i := 0; ; {
		j := bytes.Index(low[i:], []byte(key))
		if j < 0 {
			return false
		}
		i += j + len(key)
		rest := bytes.TrimLeft(low[i:], "\" \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], "\" \t\r\n")
		if bytes.HasPrefix(rest, []byte("false")) {
			return true
		}
	}
}

const ldDepth = 32

func collectIDs(v any, ids map[string]map[string]any, depth int) {
	if depth > ldDepth {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		if id, ok := t["@id"].(string); ok && len(t) > 1 {
			ids[id] = t
		}
		for _, c := range t {
			collectIDs(c, ids, depth+1)
		}
	case []any:
		for _, c := range t {
			collectIDs(c, ids, depth+1)
		}
	}
}

// findPublisher returns the name of the first "publisher" in v, resolving
// {"@id": …} references.
func findPublisher(v any, ids map[string]map[string]any, depth int) string {
	if depth > ldDepth {
		return ""
	}
	switch t := v.(type) {
	case map[string]any:
		if p, ok := t["publisher"]; ok {
			if s := nameOf(p, ids); s != "" {
				return s
			}
		}
		for _, k := range []string{"@graph", "mainEntity", "isPartOf"} {
			if c, ok := t[k]; ok {
				if s := findPublisher(c, ids, depth+1); s != "" {
					return s
				}
			}
		}
	case []any:
		for _, c := range t {
			if s := findPublisher(c, ids, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}

func nameOf(v any, ids map[string]map[string]any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			return nameOf(t[0], ids)
		}
	case map[string]any:
		if n, ok := t["name"].(string); ok {
			return n
		}
		if id, ok := t["@id"].(string); ok {
			if o, ok := ids[id]; ok {
				if n, ok := o["name"].(string); ok {
					return n
				}
			}
		}
	}
	return ""
}

// findString returns the first string value of key in v (breadth-first
// enough for JSON-LD: top level, then @graph and arrays).
func findString(v any, key string, depth int) string {
	if depth > ldDepth {
		return ""
	}
	switch t := v.(type) {
	case map[string]any:
		if s, ok := t[key].(string); ok {
			return s
		}
		if c, ok := t["@graph"]; ok {
			return findString(c, key, depth+1)
		}
	case []any:
		for _, c := range t {
			if s := findString(c, key, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}
