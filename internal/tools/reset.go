package tools

// takeReset reports, once, that the browser was replaced since the
// caller's last result: for a scope (an HTTP session), only if the scope
// had used the browser that was replaced, so the sessions of the other
// browsers of a pool, or sessions that started after it, never see it.
func (env *Env) takeReset() bool {
	if env.Scope != nil {
		return env.Scope.TakeReset()
	}
	return env.Browsers.TakeReset()
}
