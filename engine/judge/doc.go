// Package judge decides whether a fetched source supports a claim that cites
// it: the third phase of `citegate verify` (issue 6), after extraction and
// fetching.
//
// Four judges share one interface:
//
//   - anthropic: the Anthropic Messages API (POST {base}/v1/messages);
//   - openai: OpenAI Chat Completions (POST {base}/v1/chat/completions);
//   - openai-compatible: the same wire format at a caller-given base URL
//     (llama.cpp, Ollama, vLLM, ...), key optional, cost unknown;
//   - lexical: a built-in, offline, deterministic scorer that needs no key
//     and no network.
//
// The LLM judges follow the reference tool verify_citations (seed 002): the
// same system prompt ([SystemPrompt]), user prompt ([UserPrompt], source
// capped at 12,000 characters), verdict parser ([ParseVerdict]), 256-token
// verdicts at temperature 0 where the model accepts a temperature, and the
// same pessimistic pre-call cost estimate ([Judge.EstimateMaxCostUSD]).
//
// Safety rules every judge keeps:
//
//   - the HTTP client always comes from the caller (Config.Client), who
//     passes netguard's guarded transport; the judge never builds one, and
//     it never follows redirects (an API key must not travel to another
//     host);
//   - response bodies are read up to 1 MiB;
//   - the API key never appears in an error, a verdict or a log line: every
//     provider-supplied string is redacted with netguard.RedactText and the
//     key is scrubbed from it;
//   - a key is never sent in clear text: a judge refuses a plain-http base
//     URL unless it is a loopback address.
package judge
