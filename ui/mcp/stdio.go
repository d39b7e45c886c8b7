package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one JSON-RPC line on stdin. It leaves room for
// verify_citations' 16 MiB output after JSON escaping. A longer line is read
// to its end without being kept, answered with -32600, and the session goes
// on.
const MaxLineBytes = 32 << 20

// Serve runs srv over newline-delimited JSON-RPC on in and out until in
// ends or ctx is done. The SDK's stdio transport ends the session on the
// first line it cannot decode; here every line is checked first, and a bad
// one is answered by the server itself (-32700 for a line that is not JSON,
// -32600 for JSON that is not one JSON-RPC message, batches included, and
// for an over-long line) while the session keeps serving. Only well-formed
// single messages reach the SDK.
func Serve(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	f := &lineFilter{in: bufio.NewReaderSize(in, 64<<10), out: w, max: MaxLineBytes}
	// The SDK keeps its own cap per frame; a line this filter passes is never
	// over it.
	t := &mcp.IOTransport{Reader: io.NopCloser(f), Writer: w, MaxLineLength: MaxLineBytes + 1}
	return srv.Run(ctx, t)
}

// lockedWriter makes the filter's replies and the SDK's messages whole
// lines on out: the SDK writes each message in one Write call, and so does
// the filter, under the same lock.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// lineFilter is the SDK's stdin: it yields only the lines that decode as
// one JSON-RPC message, each trimmed and ended by one newline, and answers
// every other line on out.
type lineFilter struct {
	in  *bufio.Reader
	out io.Writer
	max int
	buf []byte // the rest of the current good line
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		line, tooLong, err := f.readLine()
		if len(line) == 0 && !tooLong && err != nil {
			return 0, err
		}
		if reply := check(line, tooLong, f.max); reply != nil {
			if _, werr := f.out.Write(reply); werr != nil {
				return 0, werr
			}
		} else if len(line) > 0 {
			f.buf = append(append(f.buf[:0], line...), '\n')
		}
		if err != nil && len(f.buf) == 0 {
			return 0, err
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// readLine reads one line without its newline, trimmed. A line over max
// bytes is read to its end and dropped (tooLong). err is io.EOF at the end
// of the input, with the last unterminated line, if any.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	var b []byte
	for {
		chunk, rerr := f.in.ReadSlice('\n')
		if !tooLong {
			if len(b)+len(chunk) > f.max+1 { // +1: the newline
				tooLong, b = true, nil
			} else {
				b = append(b, chunk...)
			}
		}
		switch {
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case rerr != nil:
			return bytes.TrimSpace(b), tooLong, rerr
		}
		return bytes.TrimSpace(b), tooLong, nil
	}
}

// check returns the reply to a line the SDK must not see, or nil for a line
// it may (one JSON-RPC request, notification or response; or an empty line,
// which is skipped).
func check(line []byte, tooLong bool, limit int) []byte {
	switch {
	case tooLong:
		return errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over %d MiB: not read; send a shorter message", limit>>20))
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		return errorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON; send one JSON-RPC 2.0 message per line")
	case line[0] == '[':
		return errorReply(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported; send one message per line")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return errorReply(requestID(line), jsonrpc.CodeInvalidRequest,
			`invalid request: not a JSON-RPC 2.0 message (it needs "jsonrpc":"2.0", a string "method", and a string or number "id" for a request)`)
	}
	return nil
}

// requestID is the line's id when it is a string or a number, else nil
// (JSON-RPC: null when the id cannot be told).
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// errorReply is a JSON-RPC error response line.
func errorReply(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil { // cannot happen: every field is a plain value
		b = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return append(b, '\n')
}
