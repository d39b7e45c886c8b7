package ui

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"strings"
)

// openBrowser opens an http or https URL the way a desktop does: the first
// command of $BROWSER (a colon-separated list, as xdg-utils reads it; "%s"
// stands for the URL, else it is appended), else xdg-open. Any other scheme
// is refused, so a citation's odd URL never reaches a desktop handler. The
// command is started, not waited for: a browser outlives the UI.
func openBrowser(raw string, getenv func(string) string, start func(name string, args ...string) error) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("only http and https URLs are opened")
	}
	name, args := "xdg-open", []string{raw}
	if b := strings.TrimSpace(strings.Split(getenv("BROWSER"), ":")[0]); b != "" {
		fields := strings.Fields(b)
		name, args = fields[0], fields[1:]
		replaced := false
		for i, a := range args {
			if strings.Contains(a, "%s") {
				args[i], replaced = strings.ReplaceAll(a, "%s", raw), true
			}
		}
		if !replaced {
			args = append(args, raw)
		}
	}
	return start(name, args...)
}

// startDetached starts a command with no terminal of ours: the UI owns the
// screen, so the browser's output must not land on it.
func startDetached(name string, args ...string) error {
	// Not the UI's context: a browser outlives the UI.
	cmd := exec.CommandContext(context.Background(), name, args...)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
