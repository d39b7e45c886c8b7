// Package schema checks citegate's JSON artifacts and inputs against embedded
// JSON Schemas (draft 2020-12) that write down the reference implementation's
// formats (origin.md §1, §3 to §6).
//
// Artifacts are read back by later stages and by other tools, so a malformed
// one must be caught where it is produced or first read, with a JSON pointer
// that says exactly which value is wrong. Schemas for the records citegate
// writes itself (citation.v1, gates.v1, found_by.v1, online_fixtures.v1,
// blocked_urls.v1) reject unknown fields so that mistakes show up in tests;
// schemas for files that other tools or operators may produce (manifest.v1,
// run_config.v1, run_policy.v1, url_map.v1, fixtures.v1) allow them, as the
// reference readers do. The schemas are compiled once, on first use, entirely
// from the embedded files: validation never touches the network or disk.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Name identifies an embedded schema; it is the schema_version the document carries.
type Name string

// The embedded schemas.
const (
	// Manifest is the run manifest, manifest.json.
	Manifest Name = "manifest.v1"
	// RunConfig is the operator's run-config.json.
	RunConfig Name = "run_config.v1"
	// RunPolicy is run-config/policy.json.
	RunPolicy Name = "run_policy.v1"
	// URLMap is citations/url-map.json.
	URLMap Name = "url_map.v1"
	// FoundBy is citations/found-by.json.
	FoundBy Name = "found_by.v1"
	// Citation is one record (line) of citations/citations.jsonl.
	Citation Name = "citation.v1"
	// Gates is gates.json.
	Gates Name = "gates.v1"
	// Fixtures is an offline or online fixtures input of citations_validate.
	Fixtures Name = "fixtures.v1"
	// OnlineFixtures is the capture citations/online-fixtures.<token>.json.
	OnlineFixtures Name = "online_fixtures.v1"
	// BlockedURLs is citations/blocked-urls.json.
	BlockedURLs Name = "blocked_urls.v1"
	// OperatorDecisions is <runRoot>/operator-decisions.json.
	OperatorDecisions Name = "operator_decisions.v1"
)

// names lists every embedded schema; each is the file schemas/<name>.json.
var names = []Name{Manifest, RunConfig, RunPolicy, URLMap, FoundBy, Citation, Gates, Fixtures, OnlineFixtures, BlockedURLs, OperatorDecisions}

//go:embed schemas/*.json
var files embed.FS

// baseURL names the embedded files for the compiler; the .invalid domain can
// never resolve, and loading is refused anyway (see compile).
const baseURL = "https://citegate.invalid/schemas/"

// ErrInvalidJSON reports a document that is not JSON: bytes that do not parse
// as a single JSON value, or a Go value that no JSON text decodes to (a NaN, a
// channel, a malformed json.Number).
var ErrInvalidJSON = errors.New("invalid JSON")

// Error is a schema violation: which schema, the JSON pointer (RFC 6901) of
// the offending value ("" for the document itself) and what is wrong with it.
type Error struct {
	Schema  Name
	Pointer string
	Message string
	// Problems lists every violation, the most specific one (Pointer,
	// Message) among them.
	Problems []Problem
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %q: %s", e.Schema, e.Pointer, e.Message)
}

// compiled compiles every embedded schema on first use.
var compiled = sync.OnceValues(compile)

func compile() (map[Name]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema: refusing to load %s: only embedded schemas are used", u)
	}
	for _, n := range names {
		data, err := files.ReadFile("schemas/" + string(n) + ".json")
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(baseURL+string(n)+".json", bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	out := make(map[Name]*jsonschema.Schema, len(names))
	for _, n := range names {
		s, err := c.Compile(baseURL + string(n) + ".json")
		if err != nil {
			return nil, err
		}
		out[n] = s
	}
	return out, nil
}

// Validate checks doc, a value as json.Unmarshal into an any produces it
// (numbers may be float64 or json.Number), against the named schema.
//
// A violation is returned as *Error. When a document has several, the one
// reported is the most specific: the violation deepest in the document, ties
// broken by pointer and then schema location, so the choice is deterministic.
// A doc holding values JSON cannot represent yields an error wrapping
// ErrInvalidJSON; an unknown name yields a plain error.
//
// Valid citation.v1 records and valid found_by.v1, url_map.v1 and
// fixtures.v1 documents take fast paths (see citationOK, foundByDocOK,
// urlMapDocOK and fixturesDocOK) that are over fifty times quicker than the
// general validator; the result is the same.
func Validate(name Name, doc any) (err error) {
	schemas, err := compiled()
	if err != nil {
		return fmt.Errorf("schema: compiling embedded schemas: %w", err)
	}
	s, ok := schemas[name]
	if !ok {
		return fmt.Errorf("schema: unknown schema %q", name)
	}
	if fastOK(name, doc) {
		return nil
	}
	// The validator panics on numbers it cannot parse (NaN, ±Inf, a
	// malformed json.Number), none of which a JSON text can hold.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: document holds a value no JSON text decodes to (%v)", ErrInvalidJSON, r)
		}
	}()
	slowValidations.Add(1)
	verr := s.Validate(doc)
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(verr, &ve) {
		leaf := mostSpecific(ve)
		return &Error{Schema: name, Pointer: pointer(leaf.InstanceLocation), Message: leaf.Message, Problems: problems(ve)}
	}
	var te jsonschema.InvalidJSONTypeError
	if errors.As(verr, &te) {
		return fmt.Errorf("%w: %w", ErrInvalidJSON, te)
	}
	return verr
}

// ValidateJSON decodes data, which must be exactly one JSON value, with
// numbers as json.Number, and validates it against the named schema. It
// returns the decoded value, or an error wrapping ErrInvalidJSON when data is
// not JSON, or the *Error of a violation (see Validate).
func ValidateJSON(name Name, data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON value", ErrInvalidJSON)
	}
	if err := Validate(name, doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// mostSpecific returns the leaf of the error tree deepest in the document.
// Leaves carry the concrete messages; the inner nodes only say that a
// subschema failed.
func mostSpecific(root *jsonschema.ValidationError) *jsonschema.ValidationError {
	var best *jsonschema.ValidationError
	bestDepth := -1
	for _, e := range leaves(root) {
		depth := strings.Count(e.InstanceLocation, "/")
		if depth > bestDepth || depth == bestDepth && (e.InstanceLocation < best.InstanceLocation ||
			e.InstanceLocation == best.InstanceLocation && e.KeywordLocation < best.KeywordLocation) {
			best, bestDepth = e, depth
		}
	}
	return best
}

// leaves lists the error tree's leaves, depth first.
func leaves(root *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(root.Causes) == 0 {
		return []*jsonschema.ValidationError{root}
	}
	var out []*jsonschema.ValidationError
	for _, c := range root.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// pointer turns the validator's instance location, whose reference tokens are
// additionally URL path-escaped, into a plain RFC 6901 JSON pointer.
func pointer(loc string) string {
	if !strings.Contains(loc, "%") {
		return loc
	}
	tokens := strings.Split(loc, "/")
	for i, t := range tokens {
		if u, err := url.PathUnescape(t); err == nil {
			tokens[i] = u
		}
	}
	return strings.Join(tokens, "/")
}
