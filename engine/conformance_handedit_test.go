package engine

import (
	"slices"
	"strings"
	"testing"
)

// Conformance of hand-edited inputs (issue 20, item 5): where a hand edit
// changes what the reference reads, citegate reads it the same way and says
// so in a warning.
//
// The golden values below were computed by re-running the reference's
// offline validate and render steps (origin.md §5.1, §5.2, §5.5, §7 and the
// canonical digest of §2.4) under Node 20 on the same inputs: the reference
// keeps http_status only when it is a JSON number, and writes a record's
// url as the WHATWG serialization of the fixture's url (its redaction step
// parses and re-serializes every url).
const (
	// handEditedFixtureDigest is the reference's fixture digest of
	// handEditedFixtures(both edits): the string http_status is absent, the
	// url is kept as written.
	handEditedFixtureDigest = "sha256:3ac3c827b5504c7850442799747f06d479cee029641109063c5fb81b3142af0c"
	// phase04RenderDigest is the reference's render digest of the records
	// validate writes from the phase04 url-map (run_id dr_test_validate)
	// and the phase04 fixtures, with or without the two edits.
	phase04RenderDigest = "sha256:368239bbc62ee6a66bbf2761f06cbf90a1226c53b536a05e1e1f46f088852831"
)

// handEditedFixtures is phase04Fixtures with extra fields added to the open
// entry.
func handEditedFixtures(t *testing.T, extra string) string {
	t.Helper()
	const open = `"notes":"ok"}`
	if !strings.Contains(phase04Fixtures, open) {
		t.Fatalf("fixtures lack %q", open)
	}
	return strings.Replace(phase04Fixtures, open, `"notes":"ok"`+extra+`}`, 1)
}

// TestConformanceHandEditedFixtures: a fixture's string http_status is read
// as absent (null), and its url is written in WHATWG form (host lower-case),
// as the reference does — so citations.jsonl, the report and the render
// digest are the clean fixtures', and the fixture digest the reference's.
func TestConformanceHandEditedFixtures(t *testing.T) {
	clean, cleanRes, err := validateWithFixtures(t, phase04Fixtures)
	if err != nil {
		t.Fatal(err)
	}
	cleanCitations := readFile(t, clean.cit("citations.jsonl"))
	cleanRender, err := newEngine().Render(bg, RenderArgs{ManifestPath: clean.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if cleanRender.InputsDigest != phase04RenderDigest {
		t.Fatalf("clean render digest = %s, want the reference's %s", cleanRender.InputsDigest, phase04RenderDigest)
	}
	cleanMD := readFile(t, clean.cit("validated-citations.md"))

	const stringStatus = `http_status "200" is a string, not a number: read as null, as the reference reads it (write 200 without quotes)`
	for _, tc := range []struct {
		name, extra string
		warnings    []string
		// sameValidateDigest: the fixtures read exactly as the clean ones
		// (the url, kept as written, is part of the fixture digest).
		sameValidateDigest bool
		fixtureDigest      string // "" skips the check
	}{
		{"http_status a string", `,"http_status":"200"`,
			[]string{"offline fixtures /items/0: " + stringStatus}, true, ""},
		{"url with an upper-case host", `,"url":"https://Example.COM/open"`, nil, false, ""},
		{"url in another WHATWG spelling", `,"url":"HTTPS://EXAMPLE.com:443/a/../open"`, nil, false, ""},
		{"both", `,"http_status":"200","url":"https://Example.COM/open"`,
			[]string{"offline fixtures /items/0: " + stringStatus}, false, handEditedFixtureDigest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, res, err := validateWithFixtures(t, handEditedFixtures(t, tc.extra))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Warnings, tc.warnings) {
				t.Errorf("warnings =\n%q\nwant\n%q", res.Warnings, tc.warnings)
			}
			if got := readFile(t, r.cit("citations.jsonl")); got != cleanCitations {
				t.Errorf("citations.jsonl =\n%s\nwant the reference's\n%s", got, cleanCitations)
			}
			if (res.InputsDigest == cleanRes.InputsDigest) != tc.sameValidateDigest {
				t.Errorf("validate inputs_digest %s, clean %s: same=%v, want %v", res.InputsDigest, cleanRes.InputsDigest,
					!tc.sameValidateDigest, tc.sameValidateDigest)
			}
			if tc.fixtureDigest != "" {
				f, err := loadFixtures(r.path("fixtures.json"), "offline")
				if err != nil {
					t.Fatal(err)
				}
				if err := f.ready(); err != nil {
					t.Fatal(err)
				}
				if f.digest != tc.fixtureDigest {
					t.Errorf("fixture digest = %s, want the reference's %s", f.digest, tc.fixtureDigest)
				}
			}
			rr, err := newEngine().Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if rr.InputsDigest != phase04RenderDigest {
				t.Errorf("render digest = %s, want the reference's %s", rr.InputsDigest, phase04RenderDigest)
			}
			if md := readFile(t, r.cit("validated-citations.md")); md != cleanMD {
				t.Errorf("validated-citations.md =\n%s\nwant\n%s", md, cleanMD)
			}
		})
	}
}

// TestConformanceHandEditedFixturesRun: run reads <root>/offline-fixtures.json
// the same way; its report's digest is the reference's render digest.
func TestConformanceHandEditedFixturesRun(t *testing.T) {
	r := newRun(t, runSpec{RunID: "dr_test_validate", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md":          "## Sources\n\n- https://example.com/open\n- https://paywall.example.com/premium\n- https://example.com/dead\n",
		"offline-fixtures.json": handEditedFixtures(t, `,"http_status":"200","url":"https://Example.COM/open"`),
	}})
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, Reason: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.InputsDigests["render"]; got != phase04RenderDigest {
		t.Errorf("render digest = %s, want the reference's %s", got, phase04RenderDigest)
	}
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		if c.NormalizedURL == "https://example.com/open" && (c.URL != "https://example.com/open" || c.HTTPStatus != nil) {
			t.Errorf("open record = %s, want url https://example.com/open and no http_status", mustJSON(t, c))
		}
	}
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], `http_status "200" is a string, not a number: read as null`) {
		t.Errorf("summary warnings = %q", sum.Warnings)
	}
}
