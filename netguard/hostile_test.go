package netguard

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// ssrf.md §3 coverage. Each row names the test that covers it.
//
//	R1-R7, R12, R13, R15  TestRedirectRefused
//	R8                    TestRedirectLoop
//	R9, R10               TestRedirectLimit
//	R11                   TestRedirectWithoutLocation
//	R14                   TestRedirectDowngrade
//	R16                   TestRedirectHeaders, TestRedirectRefused (hop URLs)
//	R17                   TestRefreshNotFollowed
//	S1-S9, B1-B12, B14, B15, C4-C6, C8   TestHostile (rows named by id)
//	S9                    also TestResolverFailures
//	C6, C8                also TestRedirectMethods (HEAD)
//	C7                    TestRedirectLimit (FinalURL is the last hop, redacted)
//	T1-T6                 TestTLS
//
// Not covered, and why:
//
//	B13  HTTP/2 CONTINUATION flood: not applicable, Fetch speaks HTTP/1.1
//	     only (TestProtocols). Transport's API clients do use HTTP/2; there
//	     the defence is the toolchain (CVE-2023-45288, Go >= 1.22.2) plus
//	     MaxResponseHeaderBytes, which bounds HTTP/2 header lists too.
//	C1-C3 invalid UTF-8, content sniffing, charsets: Fetch returns bytes;
//	     decoding text is the job of whoever reads it (the engine), which
//	     must sanitise before storing.
//	T7   a certificate for an internal name on a public IP: irrelevant to
//	     SSRF, because the dialled IP decides (TestDialCatalogue).

// hostileRow is one misbehaving server and the outcome Fetch must report.
type hostileRow struct {
	id      string
	name    string
	raw     func(c net.Conn)                             // a raw TCP script, or
	handler func(w http.ResponseWriter, r *http.Request) // an http.Handler
	https   bool                                         // fetch https:// (raw scripts only)
	method  string
	want    error // nil: success
	check   func(t *testing.T, resp *Response)
}

var (
	bombsOnce sync.Once
	bombs     map[string][]byte
)

// bomb returns 8 MiB of zeros (128 times the test cap) compressed with
// coding, a few KiB each, or a short gzip stream for "small-gzip".
func bomb(coding string) []byte {
	bombsOnce.Do(func() {
		bombs = map[string][]byte{}
		zeros := make([]byte, 8<<20)
		compress := func(name string, data []byte, newWriter func(io.Writer) io.WriteCloser) {
			var buf bytes.Buffer
			w := newWriter(&buf)
			w.Write(data)
			w.Close()
			bombs[name] = buf.Bytes()
		}
		compress("gzip", zeros, func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
		compress("deflate", zeros, func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) })
		compress("raw-deflate", zeros, func(w io.Writer) io.WriteCloser {
			fw, _ := flate.NewWriter(w, flate.DefaultCompression)
			return fw
		})
		compress("br", zeros, func(w io.Writer) io.WriteCloser { return brotli.NewWriter(w) })
		compress("small-gzip", []byte(strings.Repeat("a short page that compresses. ", 20)),
			func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
	})
	return bombs[coding]
}

func serveBomb(coding, name string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", coding)
		w.Write(bomb(name))
	}
}

// hang blocks until the client goes away.
func hang(r *http.Request) { <-r.Context().Done() }

func respond(text string) func(c net.Conn) {
	return func(c net.Conn) {
		readRequest(c)
		io.WriteString(c, text)
		waitClosed(c)
	}
}

func wantStatus(code int) func(t *testing.T, resp *Response) {
	return func(t *testing.T, resp *Response) {
		if resp == nil || resp.StatusCode != code {
			t.Errorf("Response = %+v, want status %d", resp, code)
		}
	}
}

func wantBody(body string, truncated bool) func(t *testing.T, resp *Response) {
	return func(t *testing.T, resp *Response) {
		if resp == nil || string(resp.Body) != body || resp.Truncated != truncated {
			t.Errorf("Response = %+v, want body %q, truncated %v", resp, body, truncated)
		}
	}
}

// wantCapped checks a body that hit the cap: exactly the cap kept, and no
// more memory held than the cap (plus the one byte that detects overflow).
func wantCapped(t *testing.T, resp *Response) {
	if resp == nil || !resp.Truncated || int64(len(resp.Body)) != testLimits.MaxBodyBytes {
		t.Fatalf("Response = %+v, want a truncated body of exactly %d bytes", resp, testLimits.MaxBodyBytes)
	}
	if c := int64(cap(resp.Body)); c > testLimits.MaxBodyBytes+1 {
		t.Errorf("body buffer holds %d bytes for a %d-byte cap", c, testLimits.MaxBodyBytes)
	}
}

func wantTruncated(t *testing.T, resp *Response) {
	if resp == nil || resp.StatusCode != 200 || !resp.Truncated {
		t.Errorf("Response = %+v, want status 200 and Truncated", resp)
	}
}

func hostileRows() []hostileRow {
	endless := func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	return []hostileRow{
		// §3.2 Slow, hanging and broken transfers.
		{id: "S1", name: "never sends headers", raw: func(c net.Conn) { readRequest(c); waitClosed(c) }, want: ErrTimeout},
		{id: "S2", name: "hangs after headers", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "10")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			hang(r)
		}, want: ErrTimeout, check: wantTruncated},
		{id: "S3", name: "slow drip", handler: func(w http.ResponseWriter, r *http.Request) {
			for r.Context().Err() == nil {
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				time.Sleep(20 * time.Millisecond)
			}
		}, want: ErrTimeout, check: func(t *testing.T, resp *Response) {
			wantTruncated(t, resp)
			if resp != nil && len(resp.Body) == 0 {
				t.Error("the bytes that did arrive were dropped")
			}
		}},
		{id: "S4", name: "headers dripped byte by byte", raw: func(c net.Conn) {
			readRequest(c)
			for _, b := range []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Slow: yes\r\n\r\n") {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			waitClosed(c)
		}, want: ErrTimeout},
		{id: "S5", name: "TCP accepted, TLS never starts", raw: waitClosed, https: true, want: ErrTimeout},
		{id: "S6", name: "reset mid-body", raw: func(c net.Conn) {
			readRequest(c)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
			time.Sleep(20 * time.Millisecond)
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}, want: ErrConnReset, check: wantBody("partial", true)},
		{id: "S6", name: "reset before any response", raw: func(c net.Conn) {
			readRequest(c)
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}, want: ErrConnReset},
		{id: "S6", name: "closed before any response", raw: func(c net.Conn) { readRequest(c) }, want: ErrConnReset},
		{id: "S7", name: "Content-Length larger than the body", raw: func(c net.Conn) {
			readRequest(c)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")
		}, want: ErrIncompleteBody, check: wantBody("only this", true)},
		{id: "S7", name: "Content-Length smaller than the body", raw: respond("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, and then some"),
			check: wantBody("hello", false)},
		{id: "S7", name: "chunked body cut before the last chunk", raw: func(c net.Conn) {
			readRequest(c)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
		}, want: ErrIncompleteBody, check: wantBody("hello", true)},
		// S8 and S9 are TestConnRefused and TestResolverFailures.

		// §3.3 Size and encoding abuse.
		{id: "B1", name: "gzip bomb", handler: serveBomb("gzip", "gzip"), want: ErrBodyTooLarge, check: wantCapped},
		{id: "B1", name: "x-gzip bomb", handler: serveBomb("x-gzip", "gzip"), want: ErrBodyTooLarge, check: wantCapped},
		{id: "B2", name: "stacked gzip", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip, gzip")
			w.Write(bomb("gzip"))
		}, want: ErrEncoding},
		{id: "B2", name: "two Content-Encoding headers", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Encoding"] = []string{"gzip", "gzip"}
			w.Write(bomb("gzip"))
		}, want: ErrEncoding},
		{id: "B3", name: "deflate (zlib) bomb", handler: serveBomb("deflate", "deflate"), want: ErrBodyTooLarge, check: wantCapped},
		{id: "B3", name: "deflate (raw) bomb", handler: serveBomb("deflate", "raw-deflate"), want: ErrBodyTooLarge, check: wantCapped},
		{id: "B3", name: "brotli bomb", handler: serveBomb("br", "br"), want: ErrBodyTooLarge, check: wantCapped},
		{id: "B3", name: "unknown coding", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "zstd")
			w.Write([]byte("(\xb5/\xfd garbage"))
		}, want: ErrEncoding},
		{id: "B4", name: "gzip header on plain text", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("this is not gzip"))
		}, want: ErrEncoding, check: wantStatus(200)},
		{id: "B4", name: "truncated gzip stream", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb("small-gzip")[:len(bomb("small-gzip"))/2])
		}, want: ErrEncoding, check: wantTruncated},
		{id: "B4", name: "corrupt brotli", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "br")
			w.Write(bytes.Repeat([]byte{0xff}, 100))
		}, want: ErrEncoding},
		{id: "B5", name: "endless chunked body", handler: endless, want: ErrBodyTooLarge, check: wantCapped},
		{id: "B6", name: "Content-Length over the cap", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(10<<20))
			endless(w, r)
		}, want: ErrBodyTooLarge, check: wantCapped},
		{id: "B6", name: "body of exactly the cap", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write(bytes.Repeat([]byte("y"), int(testLimits.MaxBodyBytes)))
		}, check: func(t *testing.T, resp *Response) {
			if resp == nil || resp.Truncated || int64(len(resp.Body)) != testLimits.MaxBodyBytes {
				t.Errorf("Response = %+v, want the whole body", resp)
			}
		}},
		{id: "B7", name: "one huge header", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Huge", strings.Repeat("a", 100<<10))
		}, want: ErrHeaderTooLarge},
		{id: "B7", name: "20000 headers", handler: func(w http.ResponseWriter, r *http.Request) {
			for i := range 20000 {
				w.Header().Set("X-H"+strconv.Itoa(i), "v")
			}
		}, want: ErrHeaderTooLarge},
		{id: "B8", name: "50 x 103 Early Hints", raw: respond(strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n", 50) +
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), check: wantBody("ok", false)},
		{id: "B8", name: "1xx flood", raw: respond(strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n", 2000) +
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), want: ErrHeaderTooLarge},
		{id: "B9", name: "two different Content-Length headers", raw: respond("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc"), want: ErrProtocol},
		{id: "B10", name: "chunked and Content-Length", raw: respond("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
			check: wantBody("ok", false)},
		{id: "B11", name: "HTTP/0.9 response", raw: respond("<html>no status line</html>\r\n\r\n"), want: ErrProtocol},
		{id: "B11", name: "garbage status", raw: respond("HTTP/1.1 abc\r\n\r\n"), want: ErrProtocol},
		{id: "B12", name: "huge chunk-size line", raw: respond("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1" + strings.Repeat(";ext=x", 2000) + "\r\na\r\n0\r\n\r\n"),
			want: ErrProtocol, check: wantTruncated},
		{id: "B12", name: "invalid chunk size", raw: respond("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
			want: ErrProtocol, check: wantTruncated},
		{id: "B14", name: "Set-Cookie storm", handler: func(w http.ResponseWriter, r *http.Request) {
			for i := range 200 {
				http.SetCookie(w, &http.Cookie{Name: "c" + strconv.Itoa(i), Value: "v"})
			}
			fmt.Fprint(w, "ok")
		}, check: func(t *testing.T, resp *Response) {
			if resp == nil || len(resp.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("cookies handed to the caller: %+v", resp)
			}
		}},
		{id: "B15", name: "never-ending event stream", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				fmt.Fprint(w, "data: tick\n\n")
				w.(http.Flusher).Flush()
				time.Sleep(10 * time.Millisecond)
			}
		}, want: ErrTimeout, check: wantTruncated},

		// §3.4 Status semantics (C1-C3, C7: see the table above).
		{id: "C4", name: "429 Retry-After 999999", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "999999")
			w.WriteHeader(http.StatusTooManyRequests)
		}, check: func(t *testing.T, resp *Response) {
			if resp == nil || resp.StatusCode != 429 || resp.RetryAfter != testLimits.MaxRetryAfter {
				t.Errorf("Response = %+v, want 429 with RetryAfter capped at %v", resp, testLimits.MaxRetryAfter)
			}
		}},
		{id: "C4", name: "429 Retry-After far-future date", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")
			w.WriteHeader(http.StatusTooManyRequests)
		}, check: func(t *testing.T, resp *Response) {
			if resp == nil || resp.RetryAfter != testLimits.MaxRetryAfter {
				t.Errorf("Response = %+v, want RetryAfter capped", resp)
			}
		}},
		{id: "C5", name: "503 Retry-After 2", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusServiceUnavailable)
		}, check: func(t *testing.T, resp *Response) {
			if resp == nil || resp.StatusCode != 503 || resp.RetryAfter != 2*time.Second {
				t.Errorf("Response = %+v, want 503 with RetryAfter 2s", resp)
			}
		}},
		{id: "C5", name: "503 without Retry-After", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}, check: func(t *testing.T, resp *Response) {
			if resp == nil || resp.StatusCode != 503 || resp.RetryAfter != 0 {
				t.Errorf("Response = %+v", resp)
			}
		}},
		{id: "C6", name: "401", handler: statusHandler(401), check: wantStatus(401)},
		{id: "C6", name: "403", handler: statusHandler(403), check: wantStatus(403)},
		{id: "C6", name: "404", handler: statusHandler(404), check: wantStatus(404)},
		{id: "C6", name: "410", handler: statusHandler(410), check: wantStatus(410)},
		{id: "C6", name: "451", handler: statusHandler(451), check: wantStatus(451)},
		{id: "C8", name: "HEAD of a bomb reads nothing", method: http.MethodHead, handler: serveBomb("gzip", "gzip"),
			check: func(t *testing.T, resp *Response) {
				if resp == nil || resp.StatusCode != 200 || len(resp.Body) != 0 || resp.Truncated ||
					resp.Header.Get("Content-Encoding") != "gzip" {
					t.Errorf("Response = %+v", resp)
				}
			}},
	}
}

func statusHandler(code int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		fmt.Fprint(w, http.StatusText(code))
	}
}

// startHostile starts a row's server and returns its port.
func startHostile(t *testing.T, row hostileRow) int {
	if row.raw != nil {
		return rawServer(t, row.raw)
	}
	srv := httptest.NewServer(http.HandlerFunc(row.handler))
	t.Cleanup(srv.Close)
	return portOf(t, srv.Listener.Addr().String())
}

// TestHostile runs ssrf.md §3.2-§3.4 against loopback servers admitted
// through the rig's allow rule for exactly their listener. Every fetch must
// end within its hop deadline (plus scheduling slack), with the right
// sentinel, no secret in the error, and a body within the cap.
func TestHostile(t *testing.T) {
	bomb("gzip") // compress once, before any clock starts
	for _, row := range hostileRows() {
		t.Run(row.id+" "+row.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, startHostile(t, row))
			u := r.base + "/page?token=SECRET"
			if row.https {
				u = "https" + strings.TrimPrefix(u, "http")
			}
			start := time.Now()
			resp, err := r.g.Fetch(context.Background(), Request{Method: row.method, URL: u})
			within(t, start, testLimits.HopTimeout+2*time.Second)
			switch {
			case row.want == nil && err != nil:
				t.Fatalf("Fetch = %v, want success", err)
			case row.want != nil && !errors.Is(err, row.want):
				t.Fatalf("Fetch = %v, want %v", err, row.want)
			case err != nil && strings.Contains(err.Error(), "SECRET"):
				t.Errorf("error leaks the token: %v", err)
			case err != nil && IsRefusal(err):
				t.Errorf("a server failure reported as a policy refusal: %v", err)
			}
			if resp != nil {
				if int64(len(resp.Body)) > testLimits.MaxBodyBytes {
					t.Errorf("body of %d bytes over the cap", len(resp.Body))
				}
				if err != nil && resp.StatusCode != 0 && resp.Body != nil && !resp.Truncated {
					t.Errorf("a failed body read is not marked Truncated")
				}
				if strings.Contains(resp.FinalURL, "SECRET") {
					t.Errorf("FinalURL leaks the token: %s", resp.FinalURL)
				}
			}
			if row.check != nil {
				row.check(t, resp)
			}
		})
	}
}

// ssrf.md §3 S8: a refused connection is its own failure.
func TestConnRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := portOf(t, ln.Addr().String())
	ln.Close()
	r := newRig(t, port)
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/?token=SECRET"})
	if !errors.Is(err, ErrConnRefused) || resp != nil || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("Fetch = %v, %v; want ErrConnRefused", resp, err)
	}
	if Reason(err) != "connection refused" {
		t.Errorf("Reason = %q", Reason(err))
	}
}

// The caller's context bounds the whole chain, and its cancellation is
// reported as such, not as a timeout.
func TestFetchCanceled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hang(r) }))
	defer srv.Close()
	r := newRig(t, portOf(t, srv.Listener.Addr().String()))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := r.g.Fetch(ctx, Request{URL: r.base + "/"})
	within(t, start, testLimits.HopTimeout)
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("Fetch = %v, want ErrCanceled", err)
	}
}

// ssrf.md §2 #93: percent-encoded CRLF stays encoded on the wire.
func TestFetchCRLFStaysEncoded(t *testing.T) {
	var mu sync.Mutex
	var seen *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Clone(context.Background())
		mu.Unlock()
	}))
	defer srv.Close()
	r := newRig(t, portOf(t, srv.Listener.Addr().String()))
	if _, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/%0d%0aX-Injected:%20yes"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen.Header.Get("X-Injected") != "" || !strings.Contains(seen.RequestURI, "%0d%0a") {
		t.Errorf("request line %q, headers %v", seen.RequestURI, seen.Header)
	}
}
