package netguard

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/andybalholm/brotli"
)

// acceptEncoding lists what Fetch can decode under its cap. Asking for
// compression (instead of identity) keeps real pages small on the wire; the
// cap counts decoded bytes, so a bomb costs no more than a plain body.
const acceptEncoding = "gzip, deflate, br"

// decoder returns a reader of the decoded body for the Content-Encoding
// values of a response. Exactly one known coding is decoded; stacked
// codings ("gzip, gzip") are refused rather than unwrapped in a loop, and
// unknown ones (zstd, compress) are refused rather than passed on as if
// they were the content.
func decoder(body io.Reader, codings []string) (io.Reader, error) {
	coding := strings.ToLower(strings.TrimSpace(strings.Join(codings, ",")))
	switch coding {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		return gzip.NewReader(body)
	case "deflate":
		// RFC 9110 deflate is zlib-wrapped, but servers have long sent
		// raw DEFLATE under the same name; a zlib header is recognisable
		// (CMF/FLG checksum), so try it first.
		br := bufio.NewReader(body)
		if head, err := br.Peek(2); err == nil && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
			return zlib.NewReader(br)
		}
		return flate.NewReader(br), nil
	case "br":
		// The decoder allocates a ring buffer of the stream's declared
		// window: up to 16 MiB, since this reader refuses the large-window
		// extension. That is the one allocation MaxBodyBytes does not
		// bound; it is fixed per fetch, whatever the stream expands to.
		return brotli.NewReader(body), nil
	}
	return nil, fmt.Errorf("content encoding %q", clip(coding))
}

// readCapped reads r to EOF, keeping at most limit bytes; truncated reports
// that there was more. The buffer grows by doubling but never past
// limit+1, the one extra byte being how overflow is noticed, so the memory
// a body costs is bounded by the cap however long the stream is.
func readCapped(r io.Reader, limit int64) (body []byte, truncated bool, err error) {
	buf := make([]byte, 0, min(32<<10, limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return buf[:limit], true, nil
			}
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			return buf[:limit], true, nil
		case err == io.EOF:
			return buf, false, nil
		case err != nil:
			return buf, false, err
		}
	}
}

// rawReader records the first error of the undecoded body, so that a
// failed read can be blamed on the connection or on the encoding.
type rawReader struct {
	r   io.Reader
	err error
}

func (r *rawReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// readBody reads the decoded response body under the cap. The error, if
// any, wraps ErrBodyTooLarge, ErrEncoding, ErrIncompleteBody, ErrProtocol,
// or a network failure; the body read so far is returned with it.
func readBody(ctx context.Context, body io.Reader, codings []string, limit int64) ([]byte, error) {
	raw := &rawReader{r: body}
	dec, err := decoder(raw, codings)
	var data []byte
	var truncated bool
	if err == nil {
		data, truncated, err = readCapped(dec, limit)
	}
	switch {
	case err != nil:
		return data, fmt.Errorf("%w: %s", bodyFailure(ctx, raw.err), RedactText(err.Error()))
	case truncated:
		return data, fmt.Errorf("more than %d bytes: %w", limit, ErrBodyTooLarge)
	}
	return data, nil
}

// bodyFailure names the sentinel for a failed body read, given the raw
// body's own error (nil or io.EOF when the connection delivered everything
// it was asked for, so the decoder is at fault).
func bodyFailure(ctx context.Context, rawErr error) error {
	var opErr *net.OpError
	switch {
	case ctx.Err() != nil:
		return failure(ctx, rawErr)
	case rawErr == nil || errors.Is(rawErr, io.EOF):
		return ErrEncoding
	case errors.Is(rawErr, io.ErrUnexpectedEOF):
		// Go's framing reports a short Content-Length body or a missing
		// final chunk this way.
		return ErrIncompleteBody
	case errors.As(rawErr, &opErr):
		return failure(ctx, rawErr)
	}
	if f := failure(ctx, rawErr); !errors.Is(f, ErrNetwork) {
		return f
	}
	// Not a socket error, so the framing itself was broken (a malformed
	// chunk size, for one).
	return ErrProtocol
}
