#!/usr/bin/env bash
# Add attnviz to the desktop (Linux, per user, no root):
#   ./install-desktop.sh            from inside the bundle folder (dist/attnviz/)
#   ./install-desktop.sh --remove   takes it out again
# Writes, under ${XDG_DATA_HOME:-~/.local/share}: the menu entry
# applications/io.github.attnviz.Attnviz.desktop (Exec = this bundle's executable), the icon
# in every size under icons/hicolor/, the MIME type of .attnviz sessions (any case of the
# suffix) under mime/packages/ and the AppStream metainfo under metainfo/. Nothing else.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
id=io.github.attnviz.Attnviz
data=${XDG_DATA_HOME:-$HOME/.local/share}
apps=$data/applications
icons=$data/icons/hicolor
mime=$data/mime
meta=$data/metainfo
sizes="16 32 48 64 128 256 512"

refresh() {
    command -v update-desktop-database >/dev/null && update-desktop-database -q "$apps" || true
    command -v update-mime-database >/dev/null && update-mime-database "$mime" >/dev/null || true
    command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$icons" || true
}

if [[ ${1:-} == --remove ]]; then
    # The names of this release and of the first one (attnviz.desktop, attnviz.png).
    rm -f "$apps/$id.desktop" "$apps/attnviz.desktop" "$mime/packages/$id.xml" \
        "$meta/$id.metainfo.xml" "$icons/scalable/apps/$id.svg" "$icons/scalable/apps/attnviz.svg"
    for s in $sizes; do rm -f "$icons/${s}x${s}/apps/$id.png" "$icons/${s}x${s}/apps/attnviz.png"; done
    refresh
    echo "attnviz removed from the desktop"
    exit 0
fi

exe=$here/attnviz
res=$here/_internal/resources/icons
[[ -x $exe && -d $res ]] || { echo "run me from the attnviz bundle folder" >&2; exit 1; }
mkdir -p "$apps" "$icons/scalable/apps" "$mime/packages" "$meta"
for s in $sizes; do
    mkdir -p "$icons/${s}x${s}/apps"
    cp "$res/attnviz-$s.png" "$icons/${s}x${s}/apps/$id.png"
done
cp "$res/attnviz.svg" "$icons/scalable/apps/$id.svg"
cp "$here/$id.xml" "$mime/packages/$id.xml"
cp "$here/$id.metainfo.xml" "$meta/$id.metainfo.xml"
# Quote the path for the Exec key (spaces in the folder name are common on laptops).
sed -e "s|^Exec=.*|Exec=\"$exe\" %f|" -e "s|^TryExec=.*|TryExec=$exe|" \
    "$here/$id.desktop" > "$apps/$id.desktop"
rm -f "$apps/attnviz.desktop"  # the first release's entry, if it is there
refresh
echo "attnviz added to the desktop ($apps/$id.desktop)"
if ! command -v update-desktop-database >/dev/null; then
    # Without the menu's MIME cache GIO file managers do not offer attnviz for sessions.
    echo "to open .attnviz sessions from the file manager: install desktop-file-utils and" \
        "run update-desktop-database \"$apps\"" >&2
fi
