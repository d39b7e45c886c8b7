package judge

import (
	"encoding/json"
	"net/url"
	"strings"
)

// DefaultOllamaBaseURL is where `ollama serve` listens unless OLLAMA_HOST
// says otherwise.
const DefaultOllamaBaseURL = "http://127.0.0.1:11434"

// ollamaPort is Ollama's default port: a base URL on it without "/v1" is
// taken for Ollama's native API (its "/v1" is the openai-compatible one).
const ollamaPort = "11434"

// ollamaNative reports a base URL that names Ollama's native API: port
// 11434, path not ending in "/v1".
func ollamaNative(base string) bool {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Port() != ollamaPort {
		return false
	}
	return !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1")
}

// ollamaRequest is the body of POST /api/chat. Stream is always sent as
// false: the API streams by default, one JSON object per line.
type ollamaRequest struct {
	Model    string        `json:"model"`
	Messages []message     `json:"messages"`
	Stream   bool          `json:"stream"`
	Format   string        `json:"format,omitempty"` // "json": the answer is a JSON object
	Options  ollamaOptions `json:"options"`
}

// ollamaOptions are the model parameters the judge sets; num_predict is
// Ollama's max_tokens.
type ollamaOptions struct {
	Temperature *float64 `json:"temperature,omitempty"`
	NumPredict  int      `json:"num_predict,omitempty"`
}

// ollamaBody is an /api/chat request with the system prompt and user turn
// given, a budget of maxTok tokens and, when asJSON, the answer
// constrained to JSON (the verdict protocols; MiniCheck answers Yes/No).
func (j *llmJudge) ollamaBody(system, user string, maxTok int, asJSON bool) ([]byte, error) {
	r := ollamaRequest{
		Model:    j.model,
		Messages: []message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		Options:  ollamaOptions{Temperature: j.temperature(), NumPredict: maxTok},
	}
	if asJSON {
		r.Format = "json"
	}
	return json.Marshal(r)
}

// decodeOllama reads a non-streamed /api/chat answer: message.content,
// with prompt_eval_count and eval_count as usage.
func (j *llmJudge) decodeOllama(body []byte) (answer, error) {
	var r struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		Done            bool   `json:"done"`
		DoneReason      string `json:"done_reason"`
		PromptEvalCount *int   `json:"prompt_eval_count"`
		EvalCount       *int   `json:"eval_count"`
		Error           string `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return answer{}, &Error{Kind: KindLLM, Message: "ollama: undecodable response: " + j.sanitize(err.Error())}
	}
	if r.Error != "" {
		return answer{}, &Error{Kind: KindLLM, Message: "ollama: " + j.sanitize(r.Error)}
	}
	var a answer
	if r.PromptEvalCount != nil || r.EvalCount != nil {
		a.hasUsage = true
		if r.PromptEvalCount != nil {
			a.inTok = *r.PromptEvalCount
		}
		if r.EvalCount != nil {
			a.outTok = *r.EvalCount
		}
	}
	a.text = r.Message.Content
	if strings.TrimSpace(a.text) == "" {
		return a, j.emptyAnswer(r.DoneReason)
	}
	return a, nil
}
