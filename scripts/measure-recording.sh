#!/usr/bin/env bash
# measure-recording.sh measures a screen recording through the CLI daemon:
# the daemon's RSS at the start, peak and end of a recording of a CSS
# animation, the frames captured per second, and the encode time. Usage:
#   scripts/measure-recording.sh [seconds]   (default 60)
# Needs Chromium (CHROMIUM_PATH or on PATH), ffmpeg, ffprobe and python3.
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'kill "${http:-}" 2>/dev/null || true; rm -rf "${work}"' EXIT
mkdir -p "${work}/www" "${work}/tmp"
cat > "${work}/www/anim.html" <<'HTML'
<!doctype html><title>anim</title>
<style>
body { margin: 0; background: #fff }
#box { width: 120px; height: 120px; background: #c33; animation: slide 1s linear infinite alternate }
@keyframes slide { from { transform: translateX(0) rotate(0) } to { transform: translateX(400px) rotate(180deg) } }
</style><div id=box></div>
HTML
(cd "${root}" && go build -o "${work}/cdpkit" ./cmd/cdpkit)
port=$((20000 + RANDOM % 20000))
python3 -m http.server "${port}" --bind 127.0.0.1 --directory "${work}/www" >/dev/null 2>&1 &
http=$!
export CDPKIT_STATE_DIR="${work}/state" CDPKIT_ARTIFACT_DIR="${work}/art" CDPKIT_SESSION=measure TMPDIR="${work}/tmp"
cdpkit() { "${work}/cdpkit" "$@"; }
rss() { awk '/VmRSS/{print $2}' "/proc/$1/status"; }
for _ in 1 2 3 4 5 6 7 8 9 10; do cdpkit open "http://127.0.0.1:${port}/anim.html" >/dev/null && break; sleep 0.5; done
pid=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['pid'])" "${work}/state/measure.json")
cdpkit record start >/dev/null
start_rss=$(rss "${pid}") peak=${start_rss}
t0=$(date +%s.%N)
for _ in $(seq 1 "${secs}"); do
	sleep 1
	r=$(rss "${pid}"); ((r > peak)) && peak=${r}
done
t1=$(date +%s.%N)
( while sleep 0.2; do r=$(rss "${pid}" 2>/dev/null) || break; echo "${r}"; done ) > "${work}/encode-rss" &
sampler=$!
for _ in 1 2 3; do cdpkit --json --timeout 2m record stop > "${work}/stop.json" && break; done
kill "${sampler}"
end_rss=$(rss "${pid}")
enc_peak=$(sort -n "${work}/encode-rss" | tail -1)
cdpkit close >/dev/null
python3 - "${work}/stop.json" "${start_rss}" "${peak}" "${enc_peak:-0}" "${end_rss}" "${t0}" "${t1}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
start, peak, encpeak, end, t0, t1 = (float(x) for x in sys.argv[2:])
print(f"daemon RSS: start {start/1024:.1f} MiB, peak while capturing {peak/1024:.1f} MiB, "
      f"peak while encoding {encpeak/1024:.1f} MiB, end {end/1024:.1f} MiB")
print(f"captured {r['frameCount']} frames over {r['durationMs']/1000:.1f} s: {r['frameCount']/(r['durationMs']/1000):.1f} fps; "
      f"{r['encodedFrames']} encoded, {r['droppedFrames']} dropped")
print(f"encode: {r['encodeMs']/1000:.1f} s with {r['encoder']} for {r['width']}x{r['height']}; wall between calls {t1-t0:.1f} s")
PY
