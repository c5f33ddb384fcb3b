#!/usr/bin/env node
// The `cdpkit` command of the npm package cdpkit. cdpkit itself is a Go
// binary: npm installs it with whichever optional dependency
// @cdpkit/<platform>-<arch> has os and cpu fields matching this machine, and
// this script finds that package and runs its binary in its place. stdin,
// stdout and stderr are the binary's own (MCP over stdio passes straight
// through), signals sent to this process are passed on, and this process ends
// the way the binary ended: same exit code, or same signal.
// Plain Node, no dependencies. See docs/decisions/2026-12-03-npm-packages.md.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');
const os = require('node:os');

const target = `${process.platform}-${process.arch}`;
const pkg = `@cdpkit/${target}`;
const exe = process.platform === 'win32' ? 'cdpkit.exe' : 'cdpkit';

function die(message) {
  process.stderr.write(`cdpkit (npm): ${message}\n`);
  process.exit(1);
}

// binaryPath returns the path of this platform's cdpkit binary, or ends the
// process saying why there is none.
function binaryPath() {
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', exe);
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') {
      die(`cannot look for ${pkg}: ${err.message}`);
    }
  }
  const known = Object.keys(require('../package.json').optionalDependencies || {})
    .map((name) => name.slice('@cdpkit/'.length));
  if (!known.includes(target)) {
    die(`there is no prebuilt cdpkit for ${target} (there is for ${known.join(', ')}). ` +
      'Build it with Go instead: go install github.com/cdpkit/cdpkit/cmd/cdpkit@latest');
  }
  die(`${pkg}, the package holding the binary for ${target}, is not installed. npm leaves it out ` +
    'when optional dependencies are omitted (--omit=optional, --no-optional) or when a lockfile ' +
    'written on another platform is reused; install cdpkit again without those.');
}

const binary = binaryPath();
const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });

// A terminal's Ctrl-C reaches both processes already; passing it on again is
// harmless, and it is what makes `kill -INT <this pid>` work.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
function pass(signal) {
  child.kill(signal);
}
for (const signal of forwarded) {
  process.on(signal, pass);
}

child.on('error', (err) => die(`cannot run ${binary}: ${err.message}`));
child.on('exit', (code, signal) => {
  if (signal === null) {
    process.exit(code);
  }
  // End by the same signal: stop catching it and send it to ourselves. Should
  // it not be fatal here, exit as a shell reports a signalled child.
  for (const s of forwarded) {
    process.removeListener(s, pass);
  }
  process.exitCode = 128 + (os.constants.signals[signal] || 0);
  process.kill(process.pid, signal);
});
