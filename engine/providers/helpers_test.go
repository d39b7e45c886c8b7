package providers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// targetSecret is planted in targets' query strings: it must never appear in
// an error message.
const targetSecret = "tgt-s3cret-9f8e7d6c5b4a"

// countingTransport counts the response body bytes the client consumed, so
// tests can prove a huge body was not read past the cap.
type countingTransport struct {
	base http.RoundTripper
	read atomic.Int64
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: &t.read}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func newCountingClient() (*http.Client, *countingTransport) {
	ct := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
	return &http.Client{Transport: ct}, ct
}

// assertNoSecret fails if secret shows up in the error (text, %+v and every
// field of *Error) or in any field of the content.
func assertNoSecret(t *testing.T, secret string, c *Content, err error) {
	t.Helper()
	if secret == "" {
		t.Fatal("assertNoSecret with empty secret")
	}
	var texts []string
	if err != nil {
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		var pe *Error
		if errors.As(err, &pe) {
			texts = append(texts, pe.Provider, pe.Target, pe.Code, pe.Detail)
		}
	}
	if c != nil {
		texts = append(texts, c.Provider, c.FinalURL, c.ContentType, c.Charset, c.Title, string(c.Body), fmt.Sprintf("%#v", *c))
		if v := c.Verdict; v != nil {
			texts = append(texts, v.Status, v.Notes, v.URL, v.Title, v.Publisher, v.EvidenceSnippet, fmt.Sprintf("%#v", *v))
		}
		if bytes.Contains(c.Body, []byte(secret)) {
			t.Errorf("secret in Content.Body")
		}
	}
	for _, s := range texts {
		if strings.Contains(s, secret) {
			t.Errorf("secret leaked in %q", s)
		}
	}
}

// checkErr asserts err matches want (nil for success) and returns the
// *Error when there is one.
func checkErr(t *testing.T, err, want error) *Error {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return nil
	}
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want errors.Is %v", err, want)
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not *Error", err)
	}
	// Exactly one sentinel.
	n := 0
	for _, s := range []error{ErrNoCredentials, ErrInvalidTarget, ErrUnauthorized, ErrQuota,
		ErrProviderBlocked, ErrProviderTimeout, ErrProviderFailed} {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("error %v matches %d sentinels, want 1", err, n)
	}
	return pe
}

// waitOrDone blocks a fake handler until the client gives up, or d passes.
func waitOrDone(r *http.Request, d time.Duration) {
	select {
	case <-r.Context().Done():
	case <-time.After(d):
	}
}

// writeForever streams filler until the client goes away (or 50 MB).
func writeForever(w http.ResponseWriter, prefix string) {
	if _, err := io.WriteString(w, prefix); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	for written := 0; written < 50<<20; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// assertRefusedUnsent checks a Fetch that must fail before any request:
// the wanted sentinel and message, no content, zero requests, no secret.
func assertRefusedUnsent(t *testing.T, c *Content, err, wantErr error, want string, requests int64, secret string) {
	t.Helper()
	checkErr(t, err, wantErr)
	if c != nil {
		t.Errorf("content returned: %+v", c)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	if requests != 0 {
		t.Errorf("%d requests made, want none", requests)
	}
	assertNoSecret(t, secret, c, err)
}
