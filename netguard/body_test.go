package netguard

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/andybalholm/brotli"
)

func TestReadCapped(t *testing.T) {
	rows := []struct {
		size, limit int64
		truncated   bool
	}{
		{0, 10, false},
		{9, 10, false},
		{10, 10, false},
		{11, 10, true},
		{1 << 20, 10, true},
		{100 << 10, 100 << 10, false},
		{100<<10 + 1, 100 << 10, true},
		{5 << 20, 2 << 20, true},
	}
	for _, row := range rows {
		src := bytes.Repeat([]byte("z"), int(row.size))
		// OneByteReader: growth must not depend on large reads.
		for _, r := range []io.Reader{bytes.NewReader(src), iotest.OneByteReader(bytes.NewReader(src)), iotest.DataErrReader(bytes.NewReader(src))} {
			got, truncated, err := readCapped(r, row.limit)
			want := min(row.size, row.limit)
			if err != nil || truncated != row.truncated || int64(len(got)) != want {
				t.Errorf("size %d limit %d: len %d truncated %v err %v", row.size, row.limit, len(got), truncated, err)
			}
			if int64(cap(got)) > row.limit+1 {
				t.Errorf("size %d limit %d: buffer capacity %d", row.size, row.limit, cap(got))
			}
		}
	}
	boom := errors.New("boom")
	got, truncated, err := readCapped(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), 10)
	if string(got) != "abc" || truncated || !errors.Is(err, boom) {
		t.Errorf("failing reader: %q %v %v", got, truncated, err)
	}
}

func TestDecoder(t *testing.T) {
	const text = "the page"
	var gz, raw, br bytes.Buffer
	w := gzip.NewWriter(&gz)
	io.WriteString(w, text)
	w.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	io.WriteString(fw, text)
	fw.Close()
	bw := brotli.NewWriter(&br)
	io.WriteString(bw, text)
	bw.Close()
	zl := mustZlib(text)
	rows := []struct {
		codings []string
		body    []byte
		ok      bool
	}{
		{nil, []byte(text), true},
		{[]string{"identity"}, []byte(text), true},
		{[]string{" GZIP "}, gz.Bytes(), true},
		{[]string{"x-gzip"}, gz.Bytes(), true},
		{[]string{"deflate"}, zl, true},
		{[]string{"deflate"}, raw.Bytes(), true},
		{[]string{"br"}, br.Bytes(), true},
		{[]string{"gzip, gzip"}, gz.Bytes(), false},
		{[]string{"gzip", "identity"}, gz.Bytes(), false},
		{[]string{"zstd"}, []byte(text), false},
		{[]string{"compress"}, []byte(text), false},
	}
	for _, row := range rows {
		body, err := readBody(context.Background(), bytes.NewReader(row.body), row.codings, 1<<20)
		if row.ok != (err == nil) || row.ok && string(body) != text {
			t.Errorf("codings %q: %q, %v", row.codings, body, err)
		}
		if !row.ok && !errors.Is(err, ErrEncoding) {
			t.Errorf("codings %q: %v, want ErrEncoding", row.codings, err)
		}
	}
}

func mustZlib(s string) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	io.WriteString(w, s)
	w.Close()
	return buf.Bytes()
}

// A failed raw read is blamed on the connection, not the encoding.
func TestBodyFailure(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	rows := []struct {
		ctx    context.Context
		rawErr error
		want   error
	}{
		{context.Background(), nil, ErrEncoding},
		{context.Background(), io.EOF, ErrEncoding},
		{context.Background(), io.ErrUnexpectedEOF, ErrIncompleteBody},
		{context.Background(), errors.New("bad chunk length"), ErrProtocol},
		{done, io.ErrUnexpectedEOF, ErrCanceled},
	}
	for _, row := range rows {
		if got := bodyFailure(row.ctx, row.rawErr); !errors.Is(got, row.want) {
			t.Errorf("bodyFailure(%v) = %v, want %v", row.rawErr, got, row.want)
		}
	}
}
