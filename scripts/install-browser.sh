#!/usr/bin/env bash
# install-browser.sh makes sure a Chromium cdpkit can drive is installed.
#
# If CHROMIUM_PATH names an executable, or a known Chromium binary is on PATH,
# it reports that one and exits. Otherwise it installs Debian's chromium
# package with apt-get, using sudo only when not already root. Safe to run
# repeatedly: a second run prints one line and changes nothing.
set -euo pipefail

candidates=(chromium chromium-browser google-chrome google-chrome-stable)

# version prints the browser's version line. Debian's chromium wrapper
# script writes shell noise to stderr, so stderr is dropped.
version() {
	"$1" --version 2>/dev/null || echo "unknown version"
}

if [[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]]; then
	echo "browser: using CHROMIUM_PATH=${CHROMIUM_PATH} ($(version "${CHROMIUM_PATH}"))"
	exit 0
fi
for name in "${candidates[@]}"; do
	if path=$(command -v "${name}"); then
		echo "browser: found ${path} ($(version "${path}"))"
		exit 0
	fi
done

if [[ "$(id -u)" -eq 0 ]]; then
	sudo=()
elif command -v sudo >/dev/null; then
	sudo=(sudo)
else
	echo "browser: no Chromium found and not running as root (no sudo available)." >&2
	echo "browser: install it as root with:" >&2
	echo "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium" >&2
	echo "browser: or set CHROMIUM_PATH to an existing Chromium executable." >&2
	exit 1
fi

echo "browser: installing Debian package chromium"
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
echo "browser: installed $(version chromium)"
