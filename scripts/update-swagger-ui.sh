#!/usr/bin/env bash
# Replaces the Swagger UI files under apidocs/docs/ with those of swagger-ui-dist VERSION from
# the npm registry. Usage: bash scripts/update-swagger-ui.sh 5.35.0
set -euo pipefail
version=${1:?usage: $0 VERSION}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "swagger-ui-dist@$version" >/dev/null && tar xzf "swagger-ui-dist-$version.tgz")
for f in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE favicon-32x32.png; do
  cp "$tmp/package/$f" apidocs/docs/
done
sed -i "s/swagger-ui-dist [0-9][0-9.]*/swagger-ui-dist $version/" apidocs/docs/README.md
echo "apidocs/docs now holds swagger-ui-dist $version"
