#!/usr/bin/env bash
# The type check and the lint (ESLint, Prettier) side by side: each runs on one core, and they
# share nothing, so on a 2-core machine (CI) this takes the longer of the two, not their sum.
# Both always run to the end; the script fails if either failed, and says which.
set -uo pipefail
cd "$(dirname "$0")/.."
npm run --silent typecheck > >(sed 's/^/[typecheck] /') 2>&1 &
typecheck=$!
npm run --silent lint > >(sed 's/^/[lint] /') 2>&1 &
lint=$!
wait "$typecheck"; t=$?
wait "$lint"; l=$?
[ "$t" -eq 0 ] || echo "static checks: the type check failed (exit $t)" >&2
[ "$l" -eq 0 ] || echo "static checks: the lint failed (exit $l)" >&2
[ "$t" -eq 0 ] && [ "$l" -eq 0 ]
