package jsonx

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/citegate/citegate/parse/icu"
)

const fixtures = "../../testdata/reference/phase04/"

func TestMarshalMatchesJSONStringify(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"no HTML escaping", "<a href='x'>&</a>", `"<a href='x'>&</a>"`},
		{"line separators raw", "a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"literal backslash-u2028 text kept", `a\u2028b`, `"a\\u2028b"`},
		{"escaped backslash then real separator", "\\\u2028", "\"\\\\\u2028\""},
		{"control characters", "\b\f\n\r\t\x00\x1f", `"\b\f\n\r\t\u0000\u001f"`},
		{"quote and slash", `"/`, `"\"/"`},
		{"negative zero", math.Copysign(0, -1), `0`},
		{"negative zero in array", []float64{math.Copysign(0, -1), -0.5, -1e-7}, `[0,-0.5,-1e-7]`},
		{"string containing -0", "-0", `"-0"`},
		{"struct field order", struct {
			Z string `json:"z"`
			A int    `json:"a"`
		}{"last", 1}, `{"z":"last","a":1}`},
		{"omit absent optional", struct {
			A string  `json:"a"`
			B *string `json:"b,omitempty"`
		}{A: "x"}, `{"a":"x"}`},
		{"empty containers", map[string]any{"a": []any{}, "o": map[string]any{}}, `{"a":[],"o":{}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Marshal = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestMarshalRejectsNonFinite(t *testing.T) {
	if _, err := Marshal(math.NaN()); err == nil {
		t.Error("Marshal(NaN) succeeded")
	}
}

// point3 is 0.1 + 0.2 computed in float64 (a constant expression would be exact).
var point1, point2 = 0.1, 0.2
var point3 = point1 + point2

// Numbers as JavaScript prints them (Number.prototype.toString).
func TestNumbersMatchJavaScript(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.9, "0.9"},
		{0.1, "0.1"},
		{0, "0"},
		{1, "1"},
		{0.000001, "0.000001"},
		{0.0000001, "1e-7"},
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{123456789012, "123456789012"},
		{point3, "0.30000000000000004"},
		{1.5e300, "1.5e+300"},
		{-2.5e-10, "-2.5e-10"},
		{5e-324, "5e-324"},
		{0.007813, "0.007813"},
	}
	for _, tc := range tests {
		got, err := Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("Marshal(%v) = %s, want %s", tc.in, got, tc.want)
		}
		if got := string(appendNumber(nil, tc.in)); got != tc.want {
			t.Errorf("appendNumber(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := string(appendNumber(nil, math.Inf(1))); got != "null" {
		t.Errorf("appendNumber(+Inf) = %s, want null", got)
	}
}

func TestMarshalFile(t *testing.T) {
	v := struct {
		SchemaVersion string         `json:"schema_version"`
		Items         []string       `json:"items"`
		Empty         []string       `json:"empty"`
		Meta          map[string]any `json:"meta"`
	}{"x.v1", []string{"a<b", "c\u2028"}, []string{}, map[string]any{}}
	got, err := MarshalFile(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"schema_version\": \"x.v1\",\n  \"items\": [\n    \"a<b\",\n    \"c\u2028\"\n  ],\n  \"empty\": [],\n  \"meta\": {}\n}\n"
	if string(got) != want {
		t.Errorf("MarshalFile =\n%q\nwant\n%q", got, want)
	}
}

func TestRound6(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want float64
	}{
		{"1/128 tie rounds up", 1.0 / 128, 0.007813},
		{"5/128 tie rounds up", 5.0 / 128, 0.039063},
		{"-1/128 tie rounds away from zero", -1.0 / 128, -0.007813},
		{"9/10", 9.0 / 10, 0.9},
		{"1/10", 1.0 / 10, 0.1},
		{"1/3", 1.0 / 3, 0.333333},
		{"2/3", 2.0 / 3, 0.666667},
		{"0", 0, 0},
		{"1", 1, 1},
		{"5e-7 is below the tie in binary", 5e-7, 0},
		{"2.0000025 is below the tie in binary", 2.0000025, 2.000002},
		{"0.1234565 is below the tie in binary", 0.1234565, 0.123456},
		{"tiny", 1e-9, 0},
		{"large", 123456.1234565, 123456.123457},
		{"huge unchanged", 1e21, 1e21},
		{"1.0000005", 1.0000005, 1.000001},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Round6(tc.in); got != tc.want {
				t.Errorf("Round6(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
	if got := Round6(-1e-9); got != 0 || !math.Signbit(got) {
		t.Errorf("Round6(-1e-9) = %v, want -0 (JavaScript Number(\"-0.000000\"))", got)
	}
	if got := Round6(math.Copysign(0, -1)); math.Signbit(got) {
		t.Errorf("Round6(-0) = -0, want 0 ((-0).toFixed(6) is \"0.000000\")")
	}
	if got := Round6(math.NaN()); !math.IsNaN(got) {
		t.Errorf("Round6(NaN) = %v", got)
	}
}

func TestDigestSortsKeysWithICU(t *testing.T) {
	in := `{"aB":1,"a1":2,"Ab":3,"a_b":4,"ab":5e0,"n":{"b":-0,"a":["z","a"]},"s":"\u0041\u2028"}`
	c := canon{orders: map[string][]string{}}
	got, rest, err := c.value(nil, []byte(in))
	if err != nil || len(rest) != 0 {
		t.Fatal(err, string(rest))
	}
	want := "{\"a_b\":4,\"a1\":2,\"ab\":5,\"aB\":1,\"Ab\":3,\"n\":{\"a\":[\"z\",\"a\"],\"b\":0},\"s\":\"A\u2028\"}" // order verified in origin.md §2.2
	if string(got) != want {
		t.Errorf("canonical = %s, want %s", got, want)
	}
}

func TestDigestStructEqualsMap(t *testing.T) {
	type s struct {
		B string  `json:"b"`
		A float64 `json:"a"`
	}
	d1, err := Digest(s{"x", 0.5})
	if err != nil {
		t.Fatal(err)
	}
	d2, err := Digest(map[string]any{"a": 0.5, "b": "x"})
	if err != nil {
		t.Fatal(err)
	}
	d3, err := Digest(json.RawMessage(`{ "a" : 5e-1, "b" : "x" }`))
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 || d1 != d3 {
		t.Errorf("digests differ: %s %s %s", d1, d2, d3)
	}
	if !strings.HasPrefix(d1, "sha256:") || len(d1) != len("sha256:")+64 {
		t.Errorf("malformed digest %q", d1)
	}
}

func TestDigestErrors(t *testing.T) {
	if _, err := Digest(math.Inf(1)); err == nil {
		t.Error("Digest(+Inf) succeeded")
	}
	if _, err := Digest(json.RawMessage(`{`)); err == nil {
		t.Error("Digest of malformed raw JSON succeeded")
	}
	if _, err := Digest(json.RawMessage(`{"a":1} x`)); err == nil {
		t.Error("Digest accepted trailing data")
	}
}

// JSON.parse reads an out-of-range literal as Infinity, which JSON.stringify prints as null.
func TestDigestOutOfRangeNumber(t *testing.T) {
	got, err := Digest(json.RawMessage(`[1e400,-1e400,1e-400]`))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Digest([]any{nil, nil, 0})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Digest = %s, want %s", got, want)
	}
}

// origin.md §10: the citations_extract_urls digest for the wave corpus with
// run_id RUN and run_root /tmp/corpus/run.
func TestDigestGoldenExtract(t *testing.T) {
	in := struct {
		Schema       string   `json:"schema"`
		RunID        string   `json:"run_id"`
		IncludeWave2 bool     `json:"include_wave2"`
		RunRoot      string   `json:"run_root"`
		Wave1Dir     string   `json:"wave1_dir"`
		Wave2Dir     string   `json:"wave2_dir"`
		ScannedFiles []string `json:"scanned_files"`
	}{
		Schema:       "citations_extract_urls.inputs.v1",
		RunID:        "RUN",
		IncludeWave2: true,
		RunRoot:      "/tmp/corpus/run",
		Wave1Dir:     "wave-1",
		Wave2Dir:     "wave-2",
		ScannedFiles: []string{"wave-1/p1.md", "wave-1/p2.md", "wave-2/p3.md"},
	}
	const want = "sha256:e994b3bc0b475cf3b203a814922dc1982016655b555bf40910ba8239cf2a02cf"
	got, err := Digest(in)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Digest = %s, want %s", got, want)
	}
}

// origin.md §6.1: the gate_c_compute digest for the gate-c fixture.
func TestDigestGoldenGateC(t *testing.T) {
	urls, err := os.ReadFile(fixtures + "gate-c/extracted-urls.txt")
	if err != nil {
		t.Fatal(err)
	}
	var extracted []string
	for _, l := range strings.Split(string(urls), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			extracted = append(extracted, l)
		}
	}
	icu.Sort(extracted)

	type pair struct {
		NormalizedURL string `json:"normalized_url"`
		Status        string `json:"status"`
	}
	f, err := os.Open(fixtures + "gate-c/citations.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var set []pair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		set = append(set, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(extracted) != 10 || len(set) != 10 {
		t.Fatalf("fixture has %d urls and %d records, want 10 and 10", len(extracted), len(set))
	}
	icu.SortBy(set, func(p pair) string { return p.NormalizedURL })

	in := struct {
		Schema       string   `json:"schema"`
		ExtractedSet []string `json:"extracted_set"`
		CitationsSet []pair   `json:"citations_set"`
	}{"gate_c_compute.inputs.v1", extracted, set}
	const want = "sha256:6bbe911b5241921cc96ae289a5f7d8b63659950b853c0f50ba5248f2423d6497"
	got, err := Digest(in)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Digest = %s, want %s", got, want)
	}
}
