#!/usr/bin/env bash
# install-deps.sh installs what `make test` (and bench, soak) needs besides
# Go: a Chromium (scripts/install-browser.sh) and the Debian packages below,
# each only when its command is missing. Safe to run repeatedly: a second run
# prints one line per dependency and changes nothing. `make demo` runs only
# install-browser.sh: none of these is needed to use cdpkit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
bash ./install-browser.sh

# Each entry is "command:debian-package". Add a line when a test starts
# using a new program.
deps=(
	"firefox-esr:firefox-esr"
	"pdfinfo:poppler-utils"
	"node:nodejs"
	"npm:npm"
	"ffmpeg:ffmpeg"
	"chromedriver:chromium-driver"
	"nginx:nginx"
	"java:default-jre-headless"
)

missing=()
for d in "${deps[@]}"; do
	cmd=${d%%:*} pkg=${d#*:}
	if path=$(command -v "${cmd}"); then
		echo "deps: found ${path}"
	else
		missing+=("${pkg}")
	fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ "$(id -u)" -eq 0 ]]; then
	sudo=()
elif command -v sudo >/dev/null; then
	sudo=(sudo)
else
	echo "deps: missing ${missing[*]} and not running as root (no sudo available)." >&2
	echo "deps: install them as root with:" >&2
	echo "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing Debian packages ${missing[*]}"
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
