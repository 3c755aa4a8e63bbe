#!/usr/bin/env bash
# Install the .deb with apt, run attnviz --self-test through the desktop entry's own command,
# then remove it and check that nothing of it is left: `make deb-test` (CI runs it).
# Needs root and apt; elsewhere it says so and stops without failing.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls dist/attnviz_*_amd64.deb | tail -n 1)
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    echo "deb-test: skipped (installing a package needs root and apt)"
    exit 0
fi
entry=/usr/share/applications/io.github.attnviz.Attnviz.desktop
# Quiet apt, but its errors still reach the log.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$deb" >/dev/null
command=$(sed -n 's/^Exec=\(.*\) %f$/\1/p' "$entry")
[[ $command == /usr/bin/attnviz ]] || { echo "deb-test: the entry runs '$command'" >&2; exit 1; }
home=$(mktemp -d)
QT_QPA_PLATFORM=offscreen HOME=$home "$command" --self-test
[[ -f /usr/share/mime/packages/io.github.attnviz.Attnviz.xml ]]
[[ -f /usr/share/metainfo/io.github.attnviz.Attnviz.metainfo.xml ]]
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq attnviz >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get autoremove -y -qq >/dev/null  # its dependencies too
left=$(ls -d /opt/attnviz /usr/bin/attnviz "$entry" 2>/dev/null || true)
[[ -z $left ]] || { echo "deb-test: left behind: $left" >&2; exit 1; }
rm -rf "$home"
echo "deb-test: $deb installed, --self-test run from its menu entry, removed cleanly"
