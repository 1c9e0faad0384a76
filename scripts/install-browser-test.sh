#!/usr/bin/env bash
# Installs what the browser test of `fam serve` (tests/browser/odds.mjs)
# needs: Debian's chromium, when /usr/bin/chromium is missing, and the
# pinned playwright-core from tests/browser/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium
fi

if ! command -v npm > /dev/null; then
    echo "install-browser-test: npm is missing (install Node.js 20 or later)" >&2
    exit 1
fi
(cd tests/browser && npm ci --no-audit --no-fund)
