package driver

// TabOptions configure a new tab. Nil means defaults.
type TabOptions struct {
	// Background opens the tab behind the others: the active tab stays
	// active and in front.
	Background bool
	// Scope owns the tab; nil means the unscoped view. The tab becomes
	// the scope's active tab, not the browser-wide one.
	Scope *Scope
}
