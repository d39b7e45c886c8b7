package ui

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/ladder"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
	"github.com/citegate/citegate/ui/cli"
	citemcp "github.com/citegate/citegate/ui/mcp"
	"github.com/citegate/citegate/ui/tui"
)

// The reference topics of `citegate help TOPIC` live beside the code they
// describe: each package embeds its own help/*.md (Help), and a topic is
// the file's name. This file only gathers them.
var helpSources = []fs.FS{engine.Help, classify.Help, ladder.Help, verify.Help, netguard.Help, parse.Help, cli.Help, Help, tui.Help, citemcp.Help}

// helpTopic is one topic: its name, its first heading and its text.
type helpTopic struct{ name, title, text string }

// helpTopics lists every embedded topic, sorted by name.
func helpTopics() []helpTopic {
	var out []helpTopic
	for _, src := range helpSources {
		names, _ := fs.Glob(src, "help/*.md")
		for _, n := range names {
			data, err := fs.ReadFile(src, n)
			if err != nil {
				continue
			}
			text := string(data)
			title := strings.TrimPrefix(firstLine(text), "# ")
			out = append(out, helpTopic{name: strings.TrimSuffix(path.Base(n), ".md"), title: title, text: text})
		}
	}
	slices.SortFunc(out, func(a, b helpTopic) int { return strings.Compare(a.name, b.name) })
	return out
}

func firstLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	if sc.Scan() {
		return sc.Text()
	}
	return ""
}

// runHelp prints the list of topics, or one topic.
func runHelp(c *cli.Command, s cli.Streams) int {
	topics := helpTopics()
	if c.Topic == "" {
		fmt.Fprint(s.Out, cli.Usage())
		fmt.Fprintln(s.Out, "\nReference topics (citegate help TOPIC):")
		for _, t := range topics {
			fmt.Fprintf(s.Out, "  %-12s %s\n", t.name, t.title)
		}
		return cli.ExitOK
	}
	for _, t := range topics {
		if t.name == c.Topic {
			fmt.Fprint(s.Out, t.text)
			return cli.ExitOK
		}
	}
	names := make([]string, len(topics))
	for i, t := range topics {
		names[i] = t.name
	}
	msg := fmt.Sprintf("unknown help topic %q; topics: %s", c.Topic, strings.Join(names, ", "))
	if near := cli.Closest(c.Topic, names); near != "" {
		msg = fmt.Sprintf("unknown help topic %q (did you mean %q?); topics: %s", c.Topic, near, strings.Join(names, ", "))
	}
	fmt.Fprintln(s.Err, "citegate: "+msg)
	return cli.ExitUsage
}
