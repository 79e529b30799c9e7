#!/usr/bin/env bash
# Installs libchdb, ClickHouse 26.x built as a shared library, from the npm package
# @chdb/lib-linux-x64-gnu into a cache outside the repository (about 560 MB unpacked), once:
# later runs on the same machine find it there. The compatibility tests load it from there,
# or from ENERGY_LIBCHDB.
set -euo pipefail
version=26.5.3
dir=${ENERGY_LIBCHDB_CACHE:-/var/cache/energy-chdb}
if [ -f "$dir/package/libchdb.so" ] && grep -q "\"version\": \"$version\"" "$dir/package/package.json"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "installing npm"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq npm >/dev/null
fi
mkdir -p "$dir"
cd "$dir"
rm -rf package ./*.tgz
npm pack --silent "@chdb/lib-linux-x64-gnu@$version" >/dev/null
tar xzf chdb-lib-linux-x64-gnu-$version.tgz
rm chdb-lib-linux-x64-gnu-$version.tgz
echo "libchdb $version in $dir/package"
