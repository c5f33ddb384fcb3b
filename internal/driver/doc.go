// Package driver is the backend-neutral contract between cdpkit's tools
// and a browser backend: Driver (a browser, per scope) and TabDriver (a
// tab's core: navigation, snapshot, element input, screenshots, dialogs,
// evaluation, waiting, its queue and health), the roles a backend may
// play besides (contract.go for tabs, roles.go for drivers and backends),
// the value types and errors they speak in, scopes, tab-selector parsing,
// and the Manager that hands the tools a backend's browser.
//
// It imports no backend and no protocol package: Chromium over CDP
// (internal/browser) and Firefox over WebDriver BiDi (internal/firefox)
// implement it side by side, and a tool finds a role by type assertion.
package driver
