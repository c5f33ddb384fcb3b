#!/usr/bin/env bash
# install-peers.sh DIR installs the MCP servers `make bench-peers` compares
# cdpkit with, at pinned versions, into the npm prefix DIR (reused across
# runs). They run with the system Chromium, so their own browser downloads
# are skipped. Keep the versions in step with cmd/bench/peers.go.
set -euo pipefail

dir=${1:?usage: install-peers.sh DIR}
playwright_mcp=0.0.83
chrome_devtools_mcp=1.11.0

command -v npm >/dev/null || { echo "install-peers.sh: npm not found; bench-peers needs node and npm" >&2; exit 1; }

have() { # have PKG VERSION: is exactly that version installed?
	grep -q "\"version\": \"$2\"" "$dir/node_modules/$1/package.json" 2>/dev/null
}
if have @playwright/mcp "$playwright_mcp" && have chrome-devtools-mcp "$chrome_devtools_mcp"; then
	exit 0
fi

mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 \
	npm install --prefix "$dir" --no-audit --no-fund --save-exact --loglevel=error \
	"@playwright/mcp@$playwright_mcp" "chrome-devtools-mcp@$chrome_devtools_mcp"
