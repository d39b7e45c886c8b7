package judge

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// llamaLoading is llama.cpp's server's answer while its model loads.
const llamaLoading = `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`

// fakeClock is a judge's clock that only its sleep moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) install(j *llmJudge, waits *[]time.Duration) {
	c.t = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	j.now = func() time.Time { return c.t }
	j.sleep = func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		c.t = c.t.Add(d)
		return nil
	}
}

// TestLoadingModelIsWaitedOut: llama.cpp's 503 "Loading model" is retried
// with a doubling backoff, a bounded number of times and within one judge
// timeout; other 5xx answers are not retried. Single calls, batches and
// MiniCheck's questions alike.
func TestLoadingModelIsWaitedOut(t *testing.T) {
	ms := func(v ...int) (d []time.Duration) {
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	for _, tc := range []struct {
		name      string
		status    int
		body      string
		failures  int // answers before a verdict
		timeout   time.Duration
		wantWaits []time.Duration
		wantErr   string // "" when the verdict comes
	}{
		{"loaded after two", 503, llamaLoading, 2, time.Minute, ms(500, 1000), ""},
		{"never loads: tries bounded", 503, llamaLoading, 99, time.Minute, ms(500, 1000, 2000, 4000, 8000, 8000),
			"HTTP 503: unavailable_error: Loading model (model still loading after 6 retries over 23.5s"},
		{"never loads: judge timeout bounds", 503, llamaLoading, 99, 2 * time.Second, ms(500, 1000),
			"HTTP 503: unavailable_error: Loading model (model still loading after 2 retries over 1.5s, within the judge timeout 2s)"},
		{"other 503", 503, `{"error":{"code":503,"message":"Service Unavailable","type":"server_error"}}`, 1, time.Minute, nil,
			"HTTP 503: server_error: Service Unavailable"},
		{"500", 500, `{"error":{"code":500,"message":"boom","type":"server_error"}}`, 1, time.Minute, nil, "HTTP 500"},
	} {
		for _, call := range []string{"single", "batch", "minicheck"} {
			t.Run(tc.name+"/"+call, func(t *testing.T) {
				var n atomic.Int32
				f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, req recorded) {
					if int(n.Add(1)) <= tc.failures {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(tc.status)
						_, _ = w.Write([]byte(tc.body))
						return
					}
					text := goodVerdict
					switch {
					case strings.Contains(req.Raw, "CLAIMS:"):
						text = `{"verdicts": [` + item(1, "supported", true) + `]}`
					case call == "minicheck":
						text = "Yes"
					}
					writeJSON(w, 200, openAIAnswer(text, 1, 1))
				})
				cfg := Config{Model: "local", Provider: ProviderOpenAICompatible, BaseURL: f.URL, Client: f.Client(), Getenv: env(), Timeout: tc.timeout}
				if call == "minicheck" {
					cfg.Protocol = ProtocolMiniCheck
				}
				j, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				var waits []time.Duration
				var clock fakeClock
				switch jj := j.(type) {
				case *llmJudge:
					clock.install(jj, &waits)
				case *miniCheckJudge:
					clock.install(jj.llm, &waits)
				}
				var v Verdict
				if call == "batch" {
					vs, errs := j.(BatchJudge).JudgeBatch(context.Background(), []string{"A."}, "Source.")
					v, err = vs[0], errs[0]
				} else {
					v, err = j.Judge(context.Background(), "A.", "Source.")
				}
				if tc.wantErr == "" && (err != nil || v.Outcome != VerdictSupported) {
					t.Fatalf("got %+v, %v", v, err)
				}
				if tc.wantErr != "" {
					if je := asError(t, err); je.HTTPStatus != tc.status || !strings.Contains(je.Message, tc.wantErr) {
						t.Fatalf("error %v, want %q", err, tc.wantErr)
					}
				}
				if got := int(n.Load()); got != len(tc.wantWaits)+1 {
					t.Errorf("%d requests, want %d", got, len(tc.wantWaits)+1)
				}
				if len(waits) != len(tc.wantWaits) {
					t.Fatalf("waits %v, want %v", waits, tc.wantWaits)
				}
				for i := range waits {
					if waits[i] != tc.wantWaits[i] {
						t.Errorf("waits %v, want %v", waits, tc.wantWaits)
					}
				}
			})
		}
	}
}

// TestLoadingRetriesShareTheJudgeTimeout: once the model was found
// loading, an attempt that hangs ends at the first attempt's judge
// timeout, not a fresh one.
func TestLoadingRetriesShareTheJudgeTimeout(t *testing.T) {
	var n atomic.Int32
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, _ recorded) {
		if n.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(503)
			_, _ = w.Write([]byte(llamaLoading))
			return
		}
		waitOrDone(r)
	})
	j, err := New(Config{Model: "local", Provider: ProviderOpenAICompatible, BaseURL: f.URL, Client: f.Client(), Getenv: env(), Timeout: 800 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = j.Judge(context.Background(), "A.", "Source.")
	if je := asError(t, err); je.Kind != KindTimeout {
		t.Fatalf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the call took %s, want about one judge timeout (800ms)", d)
	}
}
