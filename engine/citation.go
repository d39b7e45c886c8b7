package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
)

// The citations.jsonl record (citation.v1): its type, its verdict, the typed
// check and the encoder that write it, and the two readers, strict (every
// record valid, for the tools that reuse records) and loose (what the
// reference's gate_c_compute and citations_render_md accept).

// Status is a citation's validation verdict (seed 000); see record.Status.
type Status = record.Status

// The five statuses (see record).
const (
	StatusValid     = record.StatusValid
	StatusPaywalled = record.StatusPaywalled
	StatusBlocked   = record.StatusBlocked
	StatusMismatch  = record.StatusMismatch
	StatusInvalid   = record.StatusInvalid
)

// Statuses lists every status in report order.
var Statuses = record.Statuses

// Citation is one citations.jsonl record (citation.v1), fields in the
// reference's key order; optional fields are omitted when absent.
type Citation struct {
	SchemaVersion   string         `json:"schema_version"`
	NormalizedURL   string         `json:"normalized_url"`
	CID             string         `json:"cid"`
	URL             string         `json:"url"`
	URLOriginal     string         `json:"url_original"`
	Status          Status         `json:"status"`
	CheckedAt       string         `json:"checked_at"`
	FoundBy         []FoundByEntry `json:"found_by"`
	Notes           string         `json:"notes"`
	HTTPStatus      *int           `json:"http_status,omitempty"`
	Title           string         `json:"title,omitempty"`
	Publisher       string         `json:"publisher,omitempty"`
	EvidenceSnippet string         `json:"evidence_snippet,omitempty"`
}

// FoundByEntry is a citation's provenance pointer.
type FoundByEntry struct {
	Wave          int    `json:"wave"`
	PerspectiveID string `json:"perspective_id"`
	AgentType     string `json:"agent_type"`
	ArtifactPath  string `json:"artifact_path"`
	SourceLine    string `json:"source_line,omitempty"`
}

// Counts tallies citations per status.
type Counts struct {
	Valid     int `json:"valid"`
	Paywalled int `json:"paywalled"`
	Blocked   int `json:"blocked"`
	Mismatch  int `json:"mismatch"`
	Invalid   int `json:"invalid"`
}

// Add counts one status.
func (c *Counts) Add(s Status) {
	switch s {
	case StatusValid:
		c.Valid++
	case StatusPaywalled:
		c.Paywalled++
	case StatusBlocked:
		c.Blocked++
	case StatusMismatch:
		c.Mismatch++
	case StatusInvalid:
		c.Invalid++
	}
}

func countStatuses(records []Citation) Counts {
	var c Counts
	for _, r := range records {
		c.Add(r.Status)
	}
	return c
}

// Verdict is what validation decided about one URL (see record.Verdict).
type Verdict = record.Verdict

// Verdict is the record's verdict.
func (c *Citation) Verdict() Verdict {
	return Verdict{Status: c.Status, URL: c.URL, Notes: c.Notes, HTTPStatus: c.HTTPStatus, Title: c.Title,
		Publisher: c.Publisher, EvidenceSnippet: c.EvidenceSnippet}
}

// setVerdict puts v into the record.
func (c *Citation) setVerdict(v Verdict) {
	c.Status, c.URL, c.Notes, c.HTTPStatus = v.Status, v.URL, v.Notes, v.HTTPStatus
	c.Title, c.Publisher, c.EvidenceSnippet = v.Title, v.Publisher, v.EvidenceSnippet
}

// schemaOK mirrors citation.v1: the record's typed check (encode.go says
// why typed checks exist and how they are kept conservative).
func (c *Citation) schemaOK() bool {
	if c.SchemaVersion != "citation.v1" || !schema.NonBlank(c.NormalizedURL) || !schema.IsCID(c.CID) ||
		c.URL == "" || c.URLOriginal == "" || c.CheckedAt == "" || !c.Status.Known() || c.FoundBy == nil {
		return false
	}
	for _, f := range c.FoundBy {
		if (f.Wave != 1 && f.Wave != 2) || f.PerspectiveID == "" || f.AgentType == "" || f.ArtifactPath == "" {
			return false
		}
	}
	return true
}

// appendCitation appends one compact citations.jsonl record.
func appendCitation(dst []byte, c *Citation) []byte {
	dst = append(dst, '{')
	dst = appendStringField(dst, "", "schema_version", c.SchemaVersion, true)
	dst = appendStringField(dst, "", "normalized_url", c.NormalizedURL, false)
	dst = appendStringField(dst, "", "cid", c.CID, false)
	dst = appendStringField(dst, "", "url", c.URL, false)
	dst = appendStringField(dst, "", "url_original", c.URLOriginal, false)
	dst = appendStringField(dst, "", "status", string(c.Status), false)
	dst = appendStringField(dst, "", "checked_at", c.CheckedAt, false)
	dst = append(appendField(dst, "", "found_by", false), '[')
	for i, f := range c.FoundBy {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		dst = appendIntField(dst, "", "wave", f.Wave, true)
		dst = appendStringField(dst, "", "perspective_id", f.PerspectiveID, false)
		dst = appendStringField(dst, "", "agent_type", f.AgentType, false)
		dst = appendStringField(dst, "", "artifact_path", f.ArtifactPath, false)
		if f.SourceLine != "" {
			dst = appendStringField(dst, "", "source_line", f.SourceLine, false)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = appendStringField(dst, "", "notes", c.Notes, false)
	if c.HTTPStatus != nil {
		dst = appendIntField(dst, "", "http_status", *c.HTTPStatus, false)
	}
	for _, f := range []struct{ key, value string }{{"title", c.Title}, {"publisher", c.Publisher}, {"evidence_snippet", c.EvidenceSnippet}} {
		if f.value != "" {
			dst = appendStringField(dst, "", f.key, f.value, false)
		}
	}
	return append(dst, '}')
}

// encodeCitations validates each record against citation.v1 and returns the
// encoder that streams the JSONL.
func encodeCitations(records []Citation, path string) (func(w *bufio.Writer) error, error) {
	// Records the typed check cannot vouch for are validated (and encoded)
	// now, so that the stream below cannot fail on content.
	checked := map[int][]byte{}
	for i := range records {
		if records[i].schemaOK() {
			continue
		}
		line, err := jsonx.Marshal(&records[i])
		if err != nil {
			return nil, err
		}
		var doc any
		if err := json.Unmarshal(line, &doc); err != nil {
			return nil, err
		}
		if err := schema.Validate(schema.Citation, doc); err != nil {
			e := schemaError("citation record", path, "citation record not JSON", err)
			e.Details["normalized_url"] = records[i].NormalizedURL
			return nil, e
		}
		checked[i] = line
	}
	return func(w *bufio.Writer) error {
		buf := make([]byte, 0, spillAt+4096)
		for i := range records {
			if line, ok := checked[i]; ok {
				buf = append(buf, line...)
			} else {
				buf = appendCitation(buf, &records[i])
			}
			buf = append(buf, '\n')
			if len(buf) >= spillAt {
				_, _ = w.Write(buf) // sticky: the commit's Flush reports it
				buf = buf[:0]
			}
		}
		_, err := w.Write(buf)
		return err
	}, nil
}

// readJSONLObjects reads citations.jsonl with the reference's JSONL rules:
// blank lines are skipped, and a line that is not one JSON object is
// INVALID_JSONL naming the line. each gets every object (numbers kept as
// json.Number), its 1-based line number and its raw bytes; its error ends
// the read. A missing file is NOT_FOUND.
func readJSONLObjects(path string, each func(line int, raw []byte, doc map[string]any) error) error {
	data, err := fsx.ReadLimited(path, maxListBytes)
	if err != nil {
		return readError("citations.jsonl", path, "citations.jsonl missing", err)
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var doc any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil || dec.More() {
			return newError(CodeInvalidJSONL, "citations.jsonl malformed", map[string]any{"path": path, "line": i + 1, "message": fmt.Sprintf("line %d is not valid JSON", i+1)})
		}
		m, ok := doc.(map[string]any)
		if !ok {
			return newError(CodeInvalidJSONL, "citations.jsonl malformed", map[string]any{"path": path, "line": i + 1, "message": fmt.Sprintf("line %d is not a JSON object", i+1)})
		}
		if err := each(i+1, line, m); err != nil {
			return err
		}
	}
	return nil
}

// readCitations reads citations.jsonl with the reference's JSONL rules and
// validates every record against citation.v1.
func readCitations(path string) ([]Citation, error) {
	var out []Citation
	err := readJSONLObjects(path, func(line int, raw []byte, doc map[string]any) error {
		if err := schema.Validate(schema.Citation, doc); err != nil {
			e := schemaError("citation record", path, "citations.jsonl malformed", err)
			e.Details["line"] = line
			return e
		}
		var c Citation
		if err := json.Unmarshal(raw, &c); err != nil {
			return newError(CodeInvalidJSONL, "citations.jsonl malformed", map[string]any{"path": path, "line": line})
		}
		out = append(out, redactCitation(c))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// redactCitation removes secrets from a record another tool may have
// written, so nothing derived from it (report, stdout) can carry them.
func redactCitation(c Citation) Citation {
	c.URL, _ = netguard.RedactURL(c.URL)
	c.URLOriginal, _ = netguard.RedactURL(c.URLOriginal)
	c.Notes = netguard.RedactText(c.Notes)
	c.Title = netguard.RedactText(c.Title)
	c.Publisher = netguard.RedactText(c.Publisher)
	c.EvidenceSnippet = netguard.RedactText(c.EvidenceSnippet)
	for i := range c.FoundBy {
		c.FoundBy[i].SourceLine = netguard.RedactText(c.FoundBy[i].SourceLine)
	}
	return c
}

// looseRecord is one citations.jsonl record as the reference's
// gate_c_compute and citations_render_md read it: the fields they use, each
// as the trimmed text of its value ("" when absent or null), whatever else
// the record holds or lacks. citations.jsonl is an interchange file that
// operators edit by hand; Gate C's uncategorized_url_rate exists to count
// records whose status it does not know, so one such record must not refuse
// the whole file.
type looseRecord struct {
	line int
	// normalizedURL is as written, trimmed (the reference neither redacts
	// nor re-normalizes it; Gate C matches it against the extracted set).
	normalizedURL string
	// status is the trimmed value, compared exactly as the reference does:
	// "Valid" is not "valid".
	status string
	// statusMistyped marks a status that is an object or an array (read as
	// ""): a status the reference does not know, not a missing one.
	statusMistyped bool
	// cid, url, title and publisher are redacted for the report.
	cid, url, title, publisher string
	// problems say what is wrong with the record, for the warnings.
	problems []string
}

// known reports whether the record's status is one of the five.
func (r looseRecord) known() bool { return Status(r.status).Known() }

// where names the record in a warning: its line and, redacted, its URL.
func (r looseRecord) where() string {
	if r.normalizedURL == "" {
		return fmt.Sprintf("citations.jsonl line %d", r.line)
	}
	u, _ := netguard.RedactURL(r.normalizedURL)
	return fmt.Sprintf("citations.jsonl line %d (%s)", r.line, u)
}

// warning is the record's warning, ending with what the tool did about its
// status (consequence, used when the status is not one of the five), or ""
// when the record is a valid citation.v1 record.
func (r looseRecord) warning(consequence string) string {
	if len(r.problems) == 0 {
		return ""
	}
	w := r.where() + ": " + strings.Join(r.problems, "; ")
	if !r.known() {
		w += "; " + consequence
	}
	return w
}

// readLooseCitations reads citations.jsonl with the reference's JSONL rules
// (a line that is not a JSON object is INVALID_JSONL, as there) and every
// object leniently (see looseRecord).
func readLooseCitations(path string) ([]looseRecord, error) {
	var out []looseRecord
	err := readJSONLObjects(path, func(line int, _ []byte, doc map[string]any) error {
		out = append(out, looseFrom(line, doc))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// looseFrom reads one record (see looseRecord) and notes its problems.
func looseFrom(line int, m map[string]any) looseRecord {
	r := looseRecord{line: line}
	text := func(k string) string {
		s, ok := scalarText(m[k])
		if !ok {
			r.problems = append(r.problems, fmt.Sprintf("%s is %s: read as empty", k, jsonKind(m[k])))
		}
		return s
	}
	rawURL, rawStatus := text("normalized_url"), text("status")
	_, scalar := scalarText(m["status"])
	r.statusMistyped = !scalar
	r.normalizedURL, r.status = strings.TrimSpace(rawURL), strings.TrimSpace(rawStatus)
	r.cid, r.url = strings.TrimSpace(text("cid")), strings.TrimSpace(text("url"))
	r.title, r.publisher = strings.TrimSpace(text("title")), strings.TrimSpace(text("publisher"))

	// Redact what the report prints. A well-formed cid is a hash and a
	// known status a fixed word; anything else was typed by someone.
	r.url, _ = netguard.RedactURL(r.url)
	r.title, r.publisher = netguard.RedactText(r.title), netguard.RedactText(r.publisher)
	if !schema.IsCID(r.cid) {
		r.cid = netguard.RedactText(r.cid)
	}
	shownStatus := r.status
	if !r.known() {
		shownStatus = netguard.RedactText(r.status)
	}

	// The problems, most specific first; the schema names whatever else is
	// wrong, once the two fields read specially are set aside.
	check := make(map[string]any, len(m))
	for k, v := range m {
		check[k] = v
	}
	switch {
	case r.normalizedURL == "":
		r.problems = append(r.problems, "no normalized_url")
		check["normalized_url"] = "-"
	case r.normalizedURL != rawURL:
		r.problems = append(r.problems, "normalized_url has surrounding white space: trimmed")
		check["normalized_url"] = r.normalizedURL
	}
	switch {
	case r.status == "":
		r.problems = append(r.problems, "no status")
		check["status"] = string(StatusInvalid)
	case !r.known():
		r.problems = append(r.problems, fmt.Sprintf("status %q is not one of valid, paywalled, blocked, mismatch, invalid (statuses are lower case)", shownStatus))
		check["status"] = string(StatusInvalid)
	case r.status != rawStatus:
		r.problems = append(r.problems, fmt.Sprintf("status %q has surrounding white space: read as %q", rawStatus, r.status))
		check["status"] = r.status
	}
	if err := schema.Validate(schema.Citation, check); err != nil {
		r.problems = append(r.problems, "not a citation.v1 record: "+schemaProblem(err))
	}
	return r
}

// scalarText is a value's text as JavaScript's String() gives it for the
// scalars a hand edit may leave (a number, a boolean); null and absent are
// "". ok is false for an object or array, read as "".
func scalarText(v any) (s string, ok bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// schemaProblem is a schema violation in a few words: where, and what.
func schemaProblem(err error) string {
	var se *schema.Error
	if errors.As(err, &se) {
		if se.Pointer == "" {
			return netguard.RedactText(se.Message)
		}
		return se.Pointer + ": " + netguard.RedactText(se.Message)
	}
	return netguard.RedactText(err.Error())
}

func (e *Engine) auditValidate(run *RunDir, reason string, res *ValidateResult) {
	run.audit(struct {
		TS                       string  `json:"ts"`
		Kind                     string  `json:"kind"`
		RunID                    string  `json:"run_id"`
		Reason                   string  `json:"reason"`
		Mode                     string  `json:"mode"`
		CitationsPath            string  `json:"citations_path"`
		Validated                int     `json:"validated"`
		InputsDigest             string  `json:"inputs_digest"`
		OnlineFixturesPath       *string `json:"online_fixtures_path"`
		OnlineFixturesLatestPath *string `json:"online_fixtures_latest_path"`
		BlockedURLsPath          *string `json:"blocked_urls_path"`
		BlockedURLsQueuePath     *string `json:"blocked_urls_queue_path"`
		BlockedURLs              int     `json:"blocked_urls"`
		OperatorDecisions        int     `json:"operator_decisions,omitempty"`
	}{e.nowISO(), "citations_validate", res.RunID, redactReason(reason), res.Mode, res.CitationsPath, res.Validated,
		res.InputsDigest, res.OnlineFixturesPath, res.OnlineFixturesLatestPath, res.BlockedURLsPath,
		res.BlockedURLsQueuePath, res.BlockedURLsCount, res.OperatorDecisions})
}
