package classify

import (
	"encoding/json"
	"slices"
)

// fingerprintJSON is a Fingerprint's stored form, so that processes sharing
// site probes (engine/fleet) can hand each other the answer.
type fingerprintJSON struct {
	Final      string   `json:"final"`
	Redirected bool     `json:"redirected,omitempty"`
	Title      string   `json:"title,omitempty"`
	Headline   string   `json:"headline,omitempty"`
	Places     []string `json:"places,omitempty"`
	Search     string   `json:"search,omitempty"`
	Lead       string   `json:"lead,omitempty"`
	Shell      bool     `json:"shell,omitempty"`
	Words      []string `json:"words,omitempty"`
	Runes      int      `json:"runes"`
	Hash       [32]byte `json:"hash"`
}

// MarshalJSON stores every field Like, SamePage and NamesCitation read.
func (f *Fingerprint) MarshalJSON() ([]byte, error) {
	words := make([]string, 0, len(f.words))
	for w := range f.words {
		words = append(words, w)
	}
	slices.Sort(words)
	return json.Marshal(fingerprintJSON{f.final, f.redirected, f.title, f.headline, f.places, f.search, f.lead, f.shell, words, f.runes, f.hash})
}

// UnmarshalJSON reads what MarshalJSON stored.
func (f *Fingerprint) UnmarshalJSON(data []byte) error {
	var j fingerprintJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*f = Fingerprint{final: j.Final, redirected: j.Redirected, title: j.Title, headline: j.Headline, places: j.Places,
		search: j.Search, lead: j.Lead, shell: j.Shell, words: make(map[string]bool, len(j.Words)), runes: j.Runes, hash: j.Hash}
	for _, w := range j.Words {
		f.words[w] = true
	}
	return nil
}
