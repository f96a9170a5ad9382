#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run every benchmark of a build and leave their JSON in BUILD/bench/.
# usage: test/bench/run.sh [BUILD]
set -euo pipefail
build=${1:-build}
mkdir -p "$build/bench"
meson test -C "$build" --benchmark --print-errorlogs
ls -1 "$build"/bench/*.json
