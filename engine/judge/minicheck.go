// The MiniCheck protocol (Tang, Laban and Durrett, "MiniCheck: Efficient
// Fact-Checking of LLMs on Grounding Documents", EMNLP 2024; code at
// github.com/Liyan06/MiniCheck): a fact-checking model reads
// "Document: <chunk>\nClaim: <claim>" and answers "Yes" or "No". The
// document is split into chunks and the claim is supported when any chunk
// supports it (the published aggregation is the maximum support
// probability over chunks, above 0.5).

package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/citegate/citegate/parse/textkit"
)

// Judge protocols (Config.Protocol).
const (
	// ProtocolJSON is seed 002's protocol: a system prompt and a JSON
	// verdict ([SystemPrompt], [ParseVerdict]).
	ProtocolJSON = "json"
	// ProtocolMiniCheck is MiniCheck's: "Document: … Claim: …" → Yes/No per
	// chunk of the source ([MiniCheckSystemPrompt], [MiniCheckUserPrompt]).
	ProtocolMiniCheck = "minicheck"
)

// MiniCheckSystemPrompt is the system prompt Bespoke-MiniCheck-7B was
// trained with (minicheck/utils.py in github.com/Liyan06/MiniCheck; Ollama's
// bespoke-minicheck carries the same one in its template). It is sent
// explicitly so that servers whose template has no default (vLLM,
// llama.cpp serving the Hugging Face weights) prompt the model as trained.
const MiniCheckSystemPrompt = `Determine whether the provided claim is consistent with the corresponding document. Consistency in this context implies that all information presented in the claim is substantiated by the document. If not, it should be considered inconsistent. Please assess the claim's consistency with the document by responding with either "Yes" or "No".`

// MiniCheckChunkWords is the chunk size in white-space separated words:
// MiniCheck's default for its encoder checkers (400). Bespoke-MiniCheck-7B
// itself reads up to 32K tokens, but local servers run it with far smaller
// contexts (Ollama's default is a few thousand tokens) and cut a longer
// prompt silently; 400 words (~550 tokens) fit any of them.
const MiniCheckChunkWords = 400

// miniCheckMaxTokens is the published generation budget: one token, the
// answer word.
const miniCheckMaxTokens = 1

// MiniCheckUserPrompt is the published user prompt for one chunk.
func MiniCheckUserPrompt(chunk, claim string) string {
	return "Document: " + chunk + "\nClaim: " + claim
}

// MiniCheckChunks splits source into chunks of at most words words, as
// MiniCheck does: whole sentences are added to a chunk while it stays
// within the budget. Unlike the published code, a sentence longer than the
// budget is cut at word boundaries, so that no chunk overflows a small
// context. Chunks keep the source's own spacing between sentences. A
// source without text yields one empty chunk (the claim is still asked
// about, as in the published code).
func MiniCheckChunks(source string, words int) []string {
	if words <= 0 {
		words = MiniCheckChunkWords
	}
	var pieces []textkit.Span
	for _, s := range textkit.Sentences(source) {
		pieces = append(pieces, cutWords(source, s, words)...)
	}
	var chunks []string
	first, n := -1, 0
	flush := func(end int) {
		if first >= 0 {
			chunks = append(chunks, strings.TrimSpace(source[pieces[first].Start:end]))
		}
	}
	for i, p := range pieces {
		w := len(strings.Fields(source[p.Start:p.End]))
		if first >= 0 && n+w > words {
			flush(pieces[i-1].End)
			first, n = -1, 0
		}
		if first < 0 {
			first = i
		}
		n += w
	}
	if first >= 0 {
		flush(pieces[len(pieces)-1].End)
	}
	if len(chunks) == 0 {
		return []string{""}
	}
	return chunks
}

// cutWords splits span s of text into pieces of at most words words.
func cutWords(text string, s textkit.Span, words int) []textkit.Span {
	var out []textkit.Span
	start, n, inWord := s.Start, 0, false
	for i, r := range text[s.Start:s.End] {
		at := s.Start + i
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			if n == words {
				out = append(out, textkit.Span{Start: start, End: strings.LastIndexFunc(text[:at], func(r rune) bool { return !unicode.IsSpace(r) }) + 1})
				start, n = at, 0
			}
			n++
			inWord = true
		}
	}
	return append(out, textkit.Span{Start: start, End: s.End})
}

// ParseMiniCheckAnswer reads a MiniCheck answer: its first word, "Yes" or
// "No" in any case, after white space and punctuation ("Yes", " no\n",
// "YES.", "**No**"). Anything else is a KindMalformed error.
func ParseMiniCheckAnswer(raw string) (bool, error) {
	s := strings.TrimLeftFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) })
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end >= 0 {
		s = s[:end]
	}
	switch strings.ToLower(s) {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, malformed(`MiniCheck judge answered neither "Yes" nor "No": ` + safeDetail(utf16Prefix(raw, 200), ""))
}

// miniCheckJudge asks an openai-compatible server (Ollama, vLLM,
// llama.cpp) one Yes/No question per chunk of the source. It has no batch
// form: the model reads one claim at a time.
type miniCheckJudge struct {
	llm   *llmJudge
	words int
}

func (m *miniCheckJudge) Name() string { return m.llm.Name() }

// EstimateMaxCostUSD is 0: MiniCheck runs on a server whose cost is
// unknown.
func (m *miniCheckJudge) EstimateMaxCostUSD(string, string) float64 { return 0 }

// Judge asks about each chunk in order and stops at the first "Yes":
// MiniCheck's any-chunk aggregation. A failed call before any "Yes" fails
// the verdict (the unasked chunks might have supported the claim). The
// verdict's tokens and latency add up every call made.
func (m *miniCheckJudge) Judge(ctx context.Context, claim, source string) (Verdict, error) {
	chunks := MiniCheckChunks(source, m.words)
	var v Verdict
	start := time.Now()
	for i, chunk := range chunks {
		yes, err := m.ask(ctx, &v, chunk, claim)
		if err != nil {
			v.LatencyMS = time.Since(start).Milliseconds()
			return v, err
		}
		if yes {
			v.Outcome, v.Supported, v.Confidence = VerdictSupported, true, 1
			v.Rationale = fmt.Sprintf("MiniCheck: chunk %d of %d of the source supports the claim.", i+1, len(chunks))
			v.LatencyMS = time.Since(start).Milliseconds()
			return v, nil
		}
	}
	v.Outcome, v.Supported, v.Confidence = VerdictUnsupported, false, 1
	v.Rationale = fmt.Sprintf("MiniCheck: none of the %d chunks of the source supports the claim.", len(chunks))
	v.LatencyMS = time.Since(start).Milliseconds()
	return v, nil
}

// ask sends one chunk and adds the call's usage to v.
func (m *miniCheckJudge) ask(ctx context.Context, v *Verdict, chunk, claim string) (bool, error) {
	body, err := m.llm.miniCheckBody(chunk, claim)
	if err != nil {
		return false, &Error{Kind: KindLLM, Message: "encoding request: " + m.llm.sanitize(err.Error())}
	}
	raw, err := m.llm.postRetrying(ctx, body)
	if err != nil {
		return false, err
	}
	ans, err := m.llm.decode(raw)
	v.InputTokens += ans.inTok
	v.OutputTokens += ans.outTok
	if err != nil {
		return false, err
	}
	yes, err := ParseMiniCheckAnswer(m.llm.scrub(ans.text))
	if err != nil {
		return false, err
	}
	return yes, nil
}

// protocolFor returns the protocol New uses: the one asked for, else
// MiniCheck for an openai-compatible model whose name says minicheck
// ("bespoke-minicheck", "bespoke-minicheck:7b",
// "bespokelabs/Bespoke-MiniCheck-7B"), else JSON.
func protocolFor(asked, provider, model string) (string, error) {
	switch p := strings.ToLower(strings.TrimSpace(asked)); p {
	case "":
		if operatorServer(provider) && strings.Contains(strings.ToLower(model), "minicheck") {
			return ProtocolMiniCheck, nil
		}
		return ProtocolJSON, nil
	case ProtocolJSON:
		return p, nil
	case ProtocolMiniCheck:
		if !operatorServer(provider) {
			return "", configError(KindConfig, fmt.Sprintf("protocol minicheck needs an openai-compatible or ollama server (Ollama, vLLM, llama.cpp) serving a MiniCheck model, not provider %s", provider))
		}
		return p, nil
	}
	return "", configError(KindConfig, fmt.Sprintf("unknown judge protocol %q (want json or minicheck)", safeDetail(asked, "")))
}

// withProtocol wraps the LLM judge j in the protocol cfg asks for.
func withProtocol(asked string, j *llmJudge) (Judge, error) {
	p, err := protocolFor(asked, j.provider, j.model)
	if err != nil {
		return nil, err
	}
	if p == ProtocolMiniCheck {
		return &miniCheckJudge{llm: j, words: MiniCheckChunkWords}, nil
	}
	return j, nil
}

// miniCheckBody is one chunk's question at temperature 0, the answer a
// plain Yes or No (no JSON mode).
func (j *llmJudge) miniCheckBody(chunk, claim string) ([]byte, error) {
	system, user := MiniCheckSystemPrompt, MiniCheckUserPrompt(chunk, claim)
	if j.provider == ProviderOllama {
		return j.ollamaBody(system, user, miniCheckMaxTokens, false)
	}
	zero := 0.0
	return json.Marshal(openAIRequest{
		Model:       j.model,
		Messages:    []message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		MaxTokens:   miniCheckMaxTokens,
		Temperature: &zero,
	})
}
