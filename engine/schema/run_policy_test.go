package schema

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
)

// policyRanges are the ranges of citations_ladder_policy_v1, written out
// here so that changing one in run_policy.v1.json is a deliberate act.
var policyRanges = []struct {
	key     string
	min     string
	max     string
	below   string // the nearest value under min
	above   string // the nearest value over max
	integer bool
}{
	{"direct_fetch_timeout_ms", "1", "600000", "0", "600001", true},
	{"endpoint_timeout_ms", "1", "600000", "0", "600001", true},
	{"max_redirects", "0", "20", "-1", "21", true},
	{"max_body_bytes", "1", "67108864", "0", "67108865", true},
	{"direct_fetch_max_attempts", "1", "10", "0", "11", true},
	{"bright_data_max_attempts", "1", "10", "0", "11", true},
	{"apify_max_attempts", "1", "10", "0", "11", true},
	{"backoff_initial_ms", "1", "60000", "0", "60001", true},
	{"backoff_multiplier", "1", "4", "0.999", "4.001", false},
	{"backoff_max_ms", "1", "60000", "0", "60001", true},
}

// Each ladder value at its boundaries, in policy.json (run_policy.v1) and
// in the capture that records the policy in effect (online_fixtures.v1):
// both ends pass, one step beyond either fails at the value's pointer, and
// so do a fraction where an integer is due, a string, null and a number too
// large for any integer type.
func TestRunPolicyRanges(t *testing.T) {
	docs := []struct {
		name   Name
		sample string
		block  string
	}{
		{RunPolicy, "policy.json", "/citations_ladder_policy_v1/"},
		{OnlineFixtures, "online-fixtures.json", "/effective_config/citations_ladder_policy_v1/"},
	}
	for _, d := range docs {
		for _, r := range policyRanges {
			type value struct {
				desc string
				v    any
				ok   bool
			}
			values := []value{
				{"min", json.Number(r.min), true},
				{"max", json.Number(r.max), true},
				{"below min", json.Number(r.below), false},
				{"above max", json.Number(r.above), false},
				{"negative", json.Number("-5"), false},
				{"huge", json.Number("1e400"), false},
				{"string", r.min, false},
				{"null", nil, false},
			}
			if r.integer {
				values = append(values, value{"fraction", json.Number("1.5"), false}, value{"integral float", json.Number(r.max + ".0"), true})
			} else {
				values = append(values, value{"fraction", json.Number("1.5"), true})
			}
			for _, v := range values {
				ptr := d.block + r.key
				t.Run(string(d.name)+"/"+r.key+"/"+v.desc, func(t *testing.T) {
					doc := decodeFile(t, filepath.Join("testdata", d.sample))
					setAt(t, doc, ptr, v.v)
					err := Validate(d.name, doc)
					if v.ok {
						if err != nil {
							t.Errorf("%s = %v: %v, want valid", ptr, v.v, err)
						}
						return
					}
					var se *Error
					if !errors.As(err, &se) || se.Pointer != ptr || se.Message == "" {
						t.Errorf("%s = %v: %v, want a violation at %s", ptr, v.v, err, ptr)
					}
				})
			}
		}
	}
}

// A policy.json may leave any ladder key out (its default applies) and may
// carry keys and blocks citegate does not read; a capture may not.
func TestRunPolicyKeysOptional(t *testing.T) {
	doc := decodeFile(t, filepath.Join("testdata", "policy.json"))
	for _, r := range policyRanges {
		deleteAt(t, doc, "/citations_ladder_policy_v1/"+r.key)
	}
	setAt(t, doc, "/citations_ladder_policy_v1/future_knob_ms", json.Number("123"))
	if err := Validate(RunPolicy, doc); err != nil {
		t.Errorf("policy without ladder keys, with an unknown one: %v", err)
	}
	setAt(t, doc, "/citations_ladder_policy_v1/future_knob_ms", "fast")
	if err := Validate(RunPolicy, doc); err == nil {
		t.Error("an unknown ladder key that is not a number passed")
	}
	setAt(t, doc, "/citations_ladder_policy_v1", []any{})
	var se *Error
	if err := Validate(RunPolicy, doc); !errors.As(err, &se) || se.Pointer != "/citations_ladder_policy_v1" {
		t.Errorf("ladder block not an object: %v", err)
	}
}
