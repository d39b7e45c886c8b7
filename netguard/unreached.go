package netguard

import "errors"

// unreachedError marks a failure from before any server answered: the name
// did not resolve (for a reason other than its not existing) or no address
// accepted a connection. With the network down every fetch fails this way,
// and a run must say so rather than blame the sites.
type unreachedError struct{ err error }

func (u *unreachedError) Error() string { return u.err.Error() }
func (u *unreachedError) Unwrap() error { return u.err }

// Unreached reports whether a Fetch error came before any server answered:
// DNS failed (not NXDOMAIN, which is an answer) or no connection opened,
// timeouts at either stage included. Refusals, cancellations and every
// failure after a connection opened (TLS, resets, protocol) are not.
func Unreached(err error) bool {
	var u *unreachedError
	return errors.As(err, &u)
}

// markUnreached wraps a hop's transport failure as unreached when no
// connection was opened.
func markUnreached(err error, connected bool) error {
	if connected || IsRefusal(err) || errors.Is(err, ErrNoSuchHost) || errors.Is(err, ErrCanceled) {
		return err
	}
	return &unreachedError{err}
}
