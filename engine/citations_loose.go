package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
)

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
