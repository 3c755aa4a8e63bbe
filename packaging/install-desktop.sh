#!/usr/bin/env bash
# Add attnviz to the desktop's application menu (Linux, per user, no root):
#   ./install-desktop.sh            from inside the bundle folder (dist/attnviz/)
#   ./install-desktop.sh --remove   takes it out again
# Writes ~/.local/share/applications/attnviz.desktop (Exec = this bundle's executable) and
# the icon in every size under ~/.local/share/icons/hicolor/. Nothing else is touched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
apps=$data/applications
icons=$data/icons/hicolor
sizes="16 32 48 64 128 256 512"

if [[ ${1:-} == --remove ]]; then
    rm -f "$apps/attnviz.desktop" "$icons/scalable/apps/attnviz.svg"
    for s in $sizes; do rm -f "$icons/${s}x${s}/apps/attnviz.png"; done
    echo "attnviz removed from the application menu"
    exit 0
fi

exe=$here/attnviz
res=$here/_internal/resources/icons
[[ -x $exe && -d $res ]] || { echo "run me from the attnviz bundle folder" >&2; exit 1; }
mkdir -p "$apps" "$icons/scalable/apps"
for s in $sizes; do
    mkdir -p "$icons/${s}x${s}/apps"
    cp "$res/attnviz-$s.png" "$icons/${s}x${s}/apps/attnviz.png"
done
cp "$res/attnviz.svg" "$icons/scalable/apps/attnviz.svg"
# Quote the path for the Exec key (spaces in the folder name are common on laptops).
sed -e "s|^Exec=.*|Exec=\"$exe\" %f|" -e "s|^TryExec=.*|TryExec=$exe|" \
    "$here/attnviz.desktop" > "$apps/attnviz.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$apps" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$icons" || true
echo "attnviz added to the application menu ($apps/attnviz.desktop)"
