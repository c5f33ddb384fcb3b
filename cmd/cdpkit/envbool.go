package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// envBools reads boolean CDPKIT_* variables, the defaults of switches,
// and keeps the errors of those set to no boolean, for parseConfig to
// refuse: a misspelt value must not turn a switch silently off.
type envBools struct {
	errs []error
}

// get reads name: 1, true, yes or on, and 0, false, no or off, in any
// case; unset or empty is false.
func (e *envBools) get(name string) bool {
	v := os.Getenv(name)
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	case "", "0", "false", "no", "off":
		return false
	}
	e.errs = append(e.errs, fmt.Errorf("%s=%q: want 1, true, yes or on, or 0, false, no or off", name, v))
	return false
}

// err is the errors get met, nil if none.
func (e *envBools) err() error { return errors.Join(e.errs...) }
