package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const specDir = "../../../testdata/probesites"

func loadSplits(t *testing.T) (dev, holdout *Spec) {
	t.Helper()
	var err error
	if dev, err = loadSpec(filepath.Join(specDir, "dev.json")); err != nil {
		t.Fatal(err)
	}
	if holdout, err = loadSpec(filepath.Join(specDir, "holdout.json")); err != nil {
		t.Fatal(err)
	}
	return dev, holdout
}

// The splits are as large as issue 20's "Done means" needs, and the
// held-out one is not smaller than the set the issue measured.
func TestSplitSizes(t *testing.T) {
	dev, holdout := loadSplits(t)
	if dev.Split != "dev" || holdout.Split != "holdout" {
		t.Fatalf("split names %q, %q", dev.Split, holdout.Split)
	}
	hosts := len(dev.Hosts) + len(holdout.Hosts)
	if hosts < 48 {
		t.Errorf("%d hosts, want at least 48", hosts)
	}
	if share := float64(len(dev.Hosts)) / float64(hosts); share < 0.35 || share > 0.45 {
		t.Errorf("dev holds %.0f%% of the hosts, want about 40%%", share*100)
	}
	n := holdout.counts()
	if real := n["real"] + n["real_js"]; real < 53 {
		t.Errorf("holdout has %d real pages, want at least 53", real)
	}
	if n["soft404"] < 27 {
		t.Errorf("holdout has %d soft 404s, want at least 27", n["soft404"])
	}
	if d := dev.counts(); d["real"] == 0 || d["soft404"] == 0 {
		t.Errorf("dev counts %v", d)
	}
}

// No host or URL is in both splits, and every behaviour is described in
// the folder's README with its source.
func TestSplitsDisjointAndDocumented(t *testing.T) {
	dev, holdout := loadSplits(t)
	readme, err := os.ReadFile(filepath.Join(specDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, sp := range []*Spec{dev, holdout} {
		for _, h := range sp.Hosts {
			if other, dup := seen[h.Host]; dup {
				t.Errorf("host %s is in %s and %s", h.Host, other, sp.Split)
			}
			seen[h.Host] = sp.Split
			if !strings.Contains(string(readme), "`"+h.Behaviour+"`") {
				t.Errorf("behaviour %s (%s) is not described in README.md", h.Behaviour, h.Host)
			}
			for _, s := range h.Sources {
				if !strings.Contains(string(readme), s.URL) {
					t.Errorf("source %s of %s is not listed in README.md", s.URL, h.Host)
				}
			}
		}
	}
}

func TestCheckRejectsBrokenSpecs(t *testing.T) {
	good := func() Spec {
		return Spec{Schema: "probesites.v1", Split: "t", Hosts: []Host{{
			Host: "a.example.net", Behaviour: "b", Style: "blog", Lang: "en", Site: "A", Fallback: "404",
			Sources:  []Source{{Title: "RFC", URL: "https://www.rfc-editor.org/rfc/rfc9110"}},
			NotFound: NotFound{Title: "Not found"},
			Pages:    []Page{{ID: "1", Canonical: "/p/1", Title: "T", Body: []string{"x"}}},
			URLs:     []Cited{{URL: "http://a.example.net/p/1", Label: "real", LinkText: "T", Note: "n"}},
		}}}
	}
	if s := good(); s.check() != nil {
		t.Fatalf("the good spec fails: %v", s.check())
	}
	for name, breakIt := range map[string]func(*Spec){
		"no source":         func(s *Spec) { s.Hosts[0].Sources = nil },
		"source not a URL":  func(s *Spec) { s.Hosts[0].Sources[0].URL = "rfc9110" },
		"unlabelled URL":    func(s *Spec) { s.Hosts[0].URLs[0].Label = "" },
		"unknown label":     func(s *Spec) { s.Hosts[0].URLs[0].Label = "fine" },
		"URL on other host": func(s *Spec) { s.Hosts[0].URLs[0].URL = "http://b.example.net/p/1" },
		"no cited URL":      func(s *Spec) { s.Hosts[0].URLs = nil },
		"unknown fallback":  func(s *Spec) { s.Hosts[0].Fallback = "teapot" },
		"bad route regexp":  func(s *Spec) { s.Hosts[0].Routes = []Route{{Match: "(", OtherSlug: "200", Unknown: "404"}} },
		"route to no page": func(s *Spec) {
			s.Hosts[0].Routes = []Route{{Match: "^/x$", Page: "9", OtherSlug: "200", Unknown: "404"}}
		},
		"page without body":  func(s *Spec) { s.Hosts[0].Pages[0].Body = nil },
		"duplicate host":     func(s *Spec) { s.Hosts = append(s.Hosts, s.Hosts[0]) },
		"wrong schema":       func(s *Spec) { s.Schema = "probesites.v0" },
		"missing link text":  func(s *Spec) { s.Hosts[0].URLs[0].LinkText = "" },
		"unknown other_slug": func(s *Spec) { s.Hosts[0].Routes = []Route{{Match: "^/x$", OtherSlug: "302", Unknown: "404"}} },
	} {
		s := good()
		breakIt(&s)
		if s.check() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
