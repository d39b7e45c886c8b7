package judge

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ---- requests ----

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// anthropicRequest is the Messages API body (apis.md §3).
type anthropicRequest struct {
	Model       string    `json:"model"`
	MaxTokens   int       `json:"max_tokens"`
	System      string    `json:"system"`
	Messages    []message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
}

// openAIRequest is the Chat Completions body (apis.md §4.1, §4.5).
type openAIRequest struct {
	Model               string          `json:"model"`
	Messages            []message       `json:"messages"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

// requestBody builds the provider's request for one verdict.
func (j *llmJudge) requestBody(claim, source string) ([]byte, error) {
	user := UserPrompt(claim, source)
	temp := j.temperature()
	if j.provider == ProviderAnthropic {
		return json.Marshal(anthropicRequest{
			Model:       j.model,
			MaxTokens:   maxTokens,
			System:      SystemPrompt,
			Messages:    []message{{Role: "user", Content: user}},
			Temperature: temp,
		})
	}
	return j.openAIBody(SystemPrompt, user, maxTokens)
}

// openAIBody is a Chat Completions request asking for a JSON object, with
// the system prompt and user turn given and a budget of maxTok tokens.
func (j *llmJudge) openAIBody(system, user string, maxTok int) ([]byte, error) {
	if j.provider == ProviderOllama {
		return j.ollamaBody(system, user, maxTok, true)
	}
	r := openAIRequest{Model: j.model, Temperature: j.temperature()}
	if j.provider == ProviderOpenAICompatible {
		// Local servers (Ollama, llama.cpp, vLLM) document max_tokens.
		r.MaxTokens = maxTok
	} else {
		// OpenAI: max_tokens is legacy and the o-series (and newer
		// families) reject it; max_completion_tokens works for all.
		r.MaxCompletionTokens = maxTok
	}
	if legacyO1(j.model) {
		// o1-mini and o1-preview took neither a system/developer message
		// nor response_format: the instructions go first in the user turn.
		r.Messages = []message{{Role: "user", Content: system + "\n\n" + user}}
	} else {
		r.Messages = []message{{Role: "system", Content: system}, {Role: "user", Content: user}}
		if j.provider == ProviderOpenAI {
			// JSON mode is OpenAI's; LM Studio refuses it with 400
			// "'response_format.type' must be 'json_schema' or 'text'",
			// and the prompt asks for the JSON anyway.
			r.ResponseFormat = &responseFormat{Type: "json_object"}
		}
	}
	return json.Marshal(r)
}

// temperature is seed 002's 0 where the model takes one, else nil.
func (j *llmJudge) temperature() *float64 {
	if !j.sendsTemperature() {
		return nil
	}
	zero := 0.0
	return &zero
}

// sendsTemperature reports whether the model takes seed 002's temperature
// 0: not when its Prices entry says NoTemperature, and never for an OpenAI
// o-series model, whatever the table says.
func (j *llmJudge) sendsTemperature() bool {
	if j.price != nil && j.price.NoTemperature {
		return false
	}
	return j.provider != ProviderOpenAI || !isOSeries(j.model)
}

func legacyO1(model string) bool {
	m := strings.ToLower(model)
	return strings.HasPrefix(m, "o1-mini") || strings.HasPrefix(m, "o1-preview")
}

// ---- responses ----

// decode reads the verdict text and usage from a 2xx answer in the
// provider's format.
func (j *llmJudge) decode(body []byte) (answer, error) {
	switch j.provider {
	case ProviderAnthropic:
		return j.decodeAnthropic(body)
	case ProviderOllama:
		return j.decodeOllama(body)
	}
	return j.decodeOpenAI(body)
}

// decodeAnthropic concatenates the text blocks of a Messages response.
func (j *llmJudge) decodeAnthropic(body []byte) (answer, error) {
	var r struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      *struct {
			InputTokens              int `json:"input_tokens"`
			OutputTokens             int `json:"output_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return answer{}, &Error{Kind: KindLLM, Message: "anthropic: undecodable response: " + j.sanitize(err.Error())}
	}
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	var a answer
	if r.Usage != nil {
		a.hasUsage = true
		a.inTok = r.Usage.InputTokens + r.Usage.CacheCreationInputTokens + r.Usage.CacheReadInputTokens
		a.outTok = r.Usage.OutputTokens
	}
	a.text = b.String()
	if strings.TrimSpace(a.text) == "" {
		return a, j.emptyAnswer(r.StopReason)
	}
	return a, nil
}

// decodeOpenAI reads choices[0].message.content (a string, or an array of
// text parts from some compatible servers).
func (j *llmJudge) decodeOpenAI(body []byte) (answer, error) {
	var r struct {
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
				Refusal *string         `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return answer{}, &Error{Kind: KindLLM, Message: j.provider + ": undecodable response: " + j.sanitize(err.Error())}
	}
	var a answer
	if r.Usage != nil {
		a.hasUsage = true
		a.inTok, a.outTok = r.Usage.PromptTokens, r.Usage.CompletionTokens
	}
	if len(r.Choices) == 0 {
		return a, &Error{Kind: KindMalformed, Message: j.provider + ": response has no choices"}
	}
	ch := r.Choices[0]
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
		return a, &Error{Kind: KindMalformed, Message: j.provider + ": model refused: " + j.sanitize(*ch.Message.Refusal)}
	}
	var s string
	if json.Unmarshal(ch.Message.Content, &s) != nil {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(ch.Message.Content, &parts) == nil {
			var b strings.Builder
			for _, p := range parts {
				if p.Type == "text" || p.Type == "output_text" {
					b.WriteString(p.Text)
				}
			}
			s = b.String()
		}
	}
	a.text = s
	if strings.TrimSpace(s) == "" {
		return a, j.emptyAnswer(ch.FinishReason)
	}
	return a, nil
}

// emptyAnswer is the error for a response without text: the model produced
// no verdict (refusal, or a budget spent on reasoning).
func (j *llmJudge) emptyAnswer(stop string) *Error {
	msg := j.provider + ": response carries no text"
	if stop != "" {
		msg += fmt.Sprintf(" (stop reason %q)", j.sanitize(stop))
	}
	return &Error{Kind: KindMalformed, Message: msg}
}

// contentBlock is an Anthropic text block; cacheControl marks the end of
// a prefix the API may cache.
type contentBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type blockMessage struct {
	Role    string         `json:"role"`
	Content []contentBlock `json:"content"`
}

// anthropicBlocksRequest is a Messages API body whose user turn is made of
// blocks.
type anthropicBlocksRequest struct {
	Model       string         `json:"model"`
	MaxTokens   int            `json:"max_tokens"`
	System      string         `json:"system"`
	Messages    []blockMessage `json:"messages"`
	Temperature *float64       `json:"temperature,omitempty"`
}

// batchBody builds the provider's request for a batch. On Anthropic's API
// the source block is marked for prompt caching ("ephemeral": five
// minutes): the system prompt and the source form the cached prefix, read
// at a tenth of the input price by the next call on the same source (the
// rest of a batch over MaxBatchClaims, a rerun). The API caches a prefix
// only above a model-dependent minimum length and ignores the mark below
// it. Single-claim calls carry no mark: a cache write costs more than a
// plain read and would only pay off on reuse.
func (j *llmJudge) batchBody(claims []string, source string) ([]byte, error) {
	src, cl := BatchUserPrompt(claims, source)
	if j.provider == ProviderAnthropic {
		return json.Marshal(anthropicBlocksRequest{
			Model:     j.model,
			MaxTokens: batchMaxTokens(len(claims)),
			System:    BatchSystemPrompt,
			Messages: []blockMessage{{Role: "user", Content: []contentBlock{
				{Type: "text", Text: src, CacheControl: &cacheControl{Type: "ephemeral"}},
				{Type: "text", Text: cl},
			}}},
			Temperature: j.temperature(),
		})
	}
	return j.openAIBody(BatchSystemPrompt, src+cl, batchMaxTokens(len(claims)))
}
