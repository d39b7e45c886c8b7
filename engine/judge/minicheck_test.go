package judge

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// words returns n numbered words "w1 w2 … wn." as one sentence.
func words(prefix string, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = prefix + itoa(i%100)
	}
	return strings.Join(ws, " ") + "."
}

func TestMiniCheckChunks(t *testing.T) {
	s150a, s150b, s150c := words("A", 149), words("B", 149), words("C", 149)
	tests := []struct {
		name   string
		source string
		words  int
		want   []string
	}{
		{"short source is one chunk", "One. Two three.", 400, []string{"One. Two three."}},
		{"empty source asks once", "  ", 400, []string{""}},
		// 150+150 = 300 ≤ 400, the third sentence would make 450.
		{"whole sentences up to the budget", s150a + " " + s150b + "\n" + s150c, 400,
			[]string{s150a + " " + s150b, s150c}},
		{"exact budget stays one chunk", "a b. c d.", 4, []string{"a b. c d."}},
		{"one word over starts a chunk", "a b. c d. e.", 4, []string{"a b. c d.", "e."}},
		{"a long sentence is cut at words", "a b c d e f g h i j.", 4, []string{"a b c d", "e f g h", "i j."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MiniCheckChunks(tt.source, tt.words)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("chunks:\n got %q\nwant %q", got, tt.want)
			}
			for _, c := range got {
				if n := len(strings.Fields(c)); n > tt.words {
					t.Errorf("chunk of %d words > %d", n, tt.words)
				}
			}
		})
	}
}

func TestParseMiniCheckAnswer(t *testing.T) {
	for _, tt := range []struct {
		raw     string
		yes, ok bool
	}{
		{"Yes", true, true}, {"No", false, true}, {" yes\n", true, true}, {"NO.", false, true},
		{"**Yes**", true, true}, {"\tno, the document", false, true}, {"Yes.", true, true},
		{"Yesterday", false, false}, {"Nope", false, false}, {"", false, false}, {"Maybe", false, false},
		{`{"supported": true}`, false, false},
	} {
		yes, err := ParseMiniCheckAnswer(tt.raw)
		if (err == nil) != tt.ok || yes != tt.yes {
			t.Errorf("ParseMiniCheckAnswer(%q) = %v, %v; want %v, ok %v", tt.raw, yes, err, tt.yes, tt.ok)
		}
		var je *Error
		if err != nil && (!errors.As(err, &je) || je.Kind != KindMalformed) {
			t.Errorf("ParseMiniCheckAnswer(%q) error %v is not malformed", tt.raw, err)
		}
	}
}

// miniCheckServer answers each chunk by its content: "Yes" (in the given
// spelling) when the user prompt's document holds marker.
func miniCheckServer(t *testing.T, marker, yes, no string) *fakeAPI {
	return newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, req recorded) {
		msgs, _ := req.Body["messages"].([]any)
		user, _ := msgs[len(msgs)-1].(map[string]any)["content"].(string)
		doc, _, _ := strings.Cut(strings.TrimPrefix(user, "Document: "), "\nClaim: ")
		ans := no
		if strings.Contains(doc, marker) {
			ans = yes
		}
		writeJSON(w, 200, openAIAnswer(ans, 10, 1))
	})
}

func newMiniCheck(t *testing.T, base, model, protocol string) Judge {
	t.Helper()
	j, err := New(Config{Model: model, Provider: ProviderOpenAICompatible, BaseURL: base, Protocol: protocol,
		Client: http.DefaultClient, Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestMiniCheckProtocolRequests(t *testing.T) {
	s1, s2, s3 := words("A", 200)+" "+words("B", 150), words("C", 301), words("D", 100)+" MARK here."
	source := s1 + " " + s2 + " " + s3
	f := miniCheckServer(t, "MARK", " yes\n", "No")
	j := newMiniCheck(t, f.URL, "bespoke-minicheck", "")
	v, err := j.Judge(context.Background(), "The claim.", source)
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != VerdictSupported || !v.Supported {
		t.Errorf("verdict %+v, want supported (third chunk answers yes)", v)
	}
	reqs := f.requests()
	wantChunks := []string{s1, s2, words("D", 100) + " MARK here."}
	if len(reqs) != len(wantChunks) {
		t.Fatalf("%d requests, want one per chunk (%d)", len(reqs), len(wantChunks))
	}
	for i, r := range reqs {
		if r.Path != "/v1/chat/completions" {
			t.Errorf("path %q", r.Path)
		}
		msgs := r.Body["messages"].([]any)
		sys := msgs[0].(map[string]any)
		user := msgs[1].(map[string]any)
		if sys["role"] != "system" || sys["content"] != MiniCheckSystemPrompt {
			t.Errorf("request %d: system message %v", i, sys)
		}
		if want := "Document: " + wantChunks[i] + "\nClaim: The claim."; user["content"] != want {
			t.Errorf("request %d: user prompt\n got %q\nwant %q", i, user["content"], want)
		}
		if r.Body["max_tokens"] != float64(1) || r.Body["temperature"] != float64(0) || r.Body["model"] != "bespoke-minicheck" {
			t.Errorf("request %d: max_tokens %v temperature %v model %v", i, r.Body["max_tokens"], r.Body["temperature"], r.Body["model"])
		}
		if _, ok := r.Body["response_format"]; ok {
			t.Errorf("request %d asks for JSON", i)
		}
	}
	if v.InputTokens != 30 || v.OutputTokens != 3 {
		t.Errorf("tokens %d/%d, want the three calls' 30/3", v.InputTokens, v.OutputTokens)
	}
}

func TestMiniCheckAggregation(t *testing.T) {
	long := words("A", 300) + " " + words("B", 300) + " " + words("C", 300)
	tests := []struct {
		name, source, marker string
		want                 string
		calls                int
	}{
		{"no chunk supports", long, "MARK", VerdictUnsupported, 3},
		{"first chunk supports, no more calls", "MARK. " + long, "MARK", VerdictSupported, 1},
		{"middle chunk supports", long, "B5", VerdictSupported, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := miniCheckServer(t, tt.marker, "YES", "no")
			v, err := newMiniCheck(t, f.URL, "bespoke-minicheck:7b", "").Judge(context.Background(), "c", tt.source)
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != tt.want || v.Supported != (tt.want == VerdictSupported) {
				t.Errorf("outcome %q supported %v, want %q", v.Outcome, v.Supported, tt.want)
			}
			if n := len(f.requests()); n != tt.calls {
				t.Errorf("%d calls, want %d", n, tt.calls)
			}
		})
	}
}

func TestMiniCheckErrors(t *testing.T) {
	long := words("A", 300) + " " + words("B", 300)
	tests := []struct {
		name    string
		respond func(w http.ResponseWriter, n int)
		kind    string
	}{
		{"odd answer", func(w http.ResponseWriter, _ int) { writeJSON(w, 200, openAIAnswer("Probably", 1, 1)) }, KindMalformed},
		{"empty answer", func(w http.ResponseWriter, _ int) { writeJSON(w, 200, openAIAnswer("", 1, 1)) }, KindMalformed},
		{"server error", func(w http.ResponseWriter, _ int) { writeJSON(w, 500, map[string]any{"error": "model not found"}) }, KindLLM},
		// The first chunk says no, the second fails: no verdict, since the
		// second might have supported the claim.
		{"second chunk fails", func(w http.ResponseWriter, n int) {
			if n == 1 {
				writeJSON(w, 200, openAIAnswer("No", 1, 1))
				return
			}
			writeJSON(w, 503, map[string]any{"error": "busy"})
		}, KindLLM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ recorded) { n++; tt.respond(w, n) })
			v, err := newMiniCheck(t, f.URL, "bespoke-minicheck", "").Judge(context.Background(), "c", long)
			var je *Error
			if !errors.As(err, &je) || je.Kind != tt.kind {
				t.Fatalf("error %v, want kind %s", err, tt.kind)
			}
			if v.Outcome != "" {
				t.Errorf("a failed judge gave outcome %q", v.Outcome)
			}
		})
	}
}

func TestMiniCheckProtocolChoice(t *testing.T) {
	tests := []struct {
		provider, model, protocol string
		minicheck, fails          bool
	}{
		{ProviderOpenAICompatible, "bespoke-minicheck", "", true, false},
		{ProviderOpenAICompatible, "bespokelabs/Bespoke-MiniCheck-7B", "", true, false},
		{ProviderOpenAICompatible, "bespoke-minicheck", "json", false, false},
		{ProviderOpenAICompatible, "llama3.1", "minicheck", true, false},
		{ProviderOpenAICompatible, "llama3.1", "", false, false},
		{ProviderOpenAICompatible, "llama3.1", "yesno", false, true},
		{ProviderOpenAI, "gpt-4o-mini", "minicheck", false, true},
	}
	for _, tt := range tests {
		j, err := New(Config{Model: tt.model, Provider: tt.provider, BaseURL: "http://127.0.0.1:11434", Protocol: tt.protocol,
			Client: http.DefaultClient, Getenv: env(EnvOpenAIKey, testOpenAIKey)})
		if (err != nil) != tt.fails {
			t.Errorf("%s %s %q: error %v, want failure %v", tt.provider, tt.model, tt.protocol, err, tt.fails)
			continue
		}
		if err != nil {
			continue
		}
		if _, mc := j.(*miniCheckJudge); mc != tt.minicheck {
			t.Errorf("%s %s %q: minicheck %v, want %v", tt.provider, tt.model, tt.protocol, mc, tt.minicheck)
		}
	}
}
