package mcp

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestLineFilterEdges: what reaches the SDK is exactly the good lines,
// trimmed, one newline each; every other line is answered. The cap counts
// the line's bytes without its newline; a line at the cap passes, one byte
// more is refused; CRLF and a last line without a newline are read.
func TestLineFilterEdges(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	long := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"p":"` + strings.Repeat("x", 20) + `"}}`
	max := len(long)
	in := strings.Join([]string{ping + "\r", "", "  ", long, long[:len(long)-3] + `x"}}`, "{", ping}, "\n") // last line unterminated
	var out bytes.Buffer
	f := &lineFilter{in: bufio.NewReaderSize(strings.NewReader(in), 16), out: &out, max: max}
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := ping + "\n" + long + "\n" + ping + "\n"; string(got) != want {
		t.Errorf("passed to the SDK:\n%q\nwant\n%q", got, want)
	}
	replies := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(replies) != 2 || !strings.Contains(replies[0], `"code":-32600`) || !strings.Contains(replies[0], "message over") ||
		!strings.Contains(replies[1], `"code":-32700`) || !strings.Contains(replies[1], `"id":null`) {
		t.Errorf("replies: %q", replies)
	}
}
