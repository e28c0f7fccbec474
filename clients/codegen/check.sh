#!/usr/bin/env bash
# Checks the GraphQL Code Generator set-up of docs/frontend.md: installs the
# pinned tools from package-lock.json (npm ci), generates the TypeScript
# types and typed documents from schema.graphqls and docs/examples, and
# type-checks them with src/usage.ts. A schema change that breaks an example
# document or a typed caller fails here. Runs from any directory; CI runs it
# from .ci/run.
set -euo pipefail
cd "$(dirname "$0")"

die() { echo "check.sh: $*" >&2; exit 1; }
command -v node >/dev/null || die "Node.js is not installed (need Node 20 or later)"
command -v npm >/dev/null || die "npm is not installed"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' ||
  die "Node $(node --version) is too old: the code generator needs Node 20 or later"
echo "node $(node --version), npm $(npm --version)"

# npm ci installs exactly the lock file's versions, and fails when
# package.json and the lock file disagree. It warns (EBADENGINE) that a few
# packages of the generator's URL loader ask for Node 22: this set-up reads
# a schema file and does not use them, and runs on Node 20.
npm ci --no-audit --no-fund
rm -rf src/generated
npm run --silent codegen
test -s src/generated/graphql.ts || die "the code generator wrote no src/generated/graphql.ts"
npm run --silent typecheck
echo "codegen check passed: src/generated/graphql.ts type-checks with src/usage.ts"
