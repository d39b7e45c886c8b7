// Package judge decides whether a fetched source supports a claim that cites
// it: the third phase of `citegate verify` (issue 6), after extraction and
// fetching.
//
// Five judges share one interface:
//
//   - anthropic: the Anthropic Messages API (POST {base}/v1/messages);
//   - openai: OpenAI Chat Completions (POST {base}/v1/chat/completions);
//   - openai-compatible: the same wire format at a caller-given base URL
//     (llama.cpp, Ollama, vLLM, ...), key optional, cost unknown;
//   - ollama: Ollama's native chat API (POST {base}/api/chat, not
//     streamed), key optional, cost unknown (ollama.go);
//   - lexical: a built-in, offline, deterministic judge that needs no key
//     and no network (offline.go): it commits only when the evidence is
//     clear and says "uncertain" otherwise.
//
// Every judge answers with one of three outcomes (issue 11): supported,
// unsupported or uncertain ([Verdict.Outcome]), and seed 002's boolean as
// its best guess ([Verdict.Supported]). What a judge reads is narrowed by
// [Passages].
//
// The LLM judges follow the reference tool verify_citations (seed 002): the
// same user prompt ([UserPrompt], source capped at 12,000 characters),
// verdict parser ([ParseVerdict], plus [ParseOutcome] for the verdict),
// 256-token verdicts at temperature 0 where the model accepts a
// temperature, and the same pessimistic pre-call cost estimate
// ([Judge.EstimateMaxCostUSD]); the system prompt is seed 002's with one
// amendment asking for the three-way verdict ([SystemPrompt],
// [SeedSystemPrompt]).
//
// Two more protocols serve the LLM judges: claims that cite the same
// source can share one call ([BatchJudge]: the source once, the claims
// numbered, an array of verdicts; on Anthropic's API the source is marked
// for prompt caching), and a MiniCheck model served by an openai-compatible
// server reads "Document: … Claim: …" per chunk and answers Yes or No
// (minicheck.go).
//
// Files: judge.go (the interface, New), offline.go and lexical.go (the
// offline judge), passages.go (what a judge reads), text.go and lexicon.go
// (the offline judge's tokens and word lists, on parse/textkit), prompt.go,
// wire.go and llm.go (the LLM judges), batch.go (batched verdicts),
// minicheck.go (the MiniCheck protocol), ollama.go (Ollama's native API),
// loading.go (waiting out a model that is still loading), prices.go.
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
//     URL unless it is a loopback address;
//   - each key goes to one place: ANTHROPIC_API_KEY to api.anthropic.com,
//     OPENAI_API_KEY to api.openai.com, CITEGATE_JUDGE_API_KEY to any other
//     base URL (the operator's own server);
//   - a 429 is retried at most three times, after its Retry-After (up to
//     30 s) or a backoff, and the wait ends with the caller's context.
package judge
