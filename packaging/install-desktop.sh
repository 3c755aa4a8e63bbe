#!/usr/bin/env bash
# Add attnviz to the desktop (Linux, per user, no root):
#   ./install-desktop.sh            from inside the bundle folder (dist/attnviz/)
#   ./install-desktop.sh --remove   takes it out again
# Writes, under ${XDG_DATA_HOME:-~/.local/share}: the menu entry
# applications/io.github.attnviz.Attnviz.desktop (Exec = this bundle's executable), the icon
# in every size under icons/hicolor/, the MIME type of .attnviz sessions (any case of the
# suffix) under mime/packages/ and the AppStream metainfo under metainfo/. Nothing else.
# The bundle may sit in any folder: its path goes into the entry quoted as the Desktop Entry
# spec says (or, if it cannot be, nothing is written at all).
set -euo pipefail
# $(...) drops trailing newlines: keep them with a sentinel (a folder name may end in one).
dir=$(dirname -- "$0"; echo x) && dir=${dir%$'\nx'}
here=$(cd -- "$dir" && pwd; echo x) && here=${here%$'\nx'}
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

# A value of a desktop entry (spec, "Possible value types"): \ as \\, newline, tab and
# carriage return as \n, \t, \r; any other control character cannot be written (return 1).
entry_string() {
    local LC_ALL=C s=$1 out="" c i
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
            \\) out+='\\' ;;
            $'\n') out+='\n' ;;
            $'\t') out+='\t' ;;
            $'\r') out+='\r' ;;
            [[:cntrl:]]) return 1 ;;
            *) out+=$c ;;
        esac
    done
    printf '%s' "$out"
}

# One argument of the Exec key (spec, "The Exec key"): in double quotes, with ", `, $ and \
# escaped by a backslash; the string escapes above then apply on top. (The spec writes a
# literal % as %%, but GIO looks for the program before it expands %%: a path holding % is
# refused below.)
exec_argument() {
    local LC_ALL=C s=$1 out="" c i
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
            '"' | '`' | '$' | \\) out+="\\$c" ;;
            *) out+=$c ;;
        esac
    done
    entry_string "\"$out\""
}

refuse() {
    echo "cannot add attnviz to the desktop: the folder's path $1; move the bundle to" \
        "a folder without it (nothing was written)" >&2
    exit 1
}

exe=$here/attnviz
res=$here/_internal/resources/icons
[[ -x $exe && -d $res ]] || { echo "run me from the attnviz bundle folder" >&2; exit 1; }
# Everything the entry needs is worked out before anything is written: a path the entry
# cannot hold is refused with the whole desktop as it was.
if command -v iconv >/dev/null && ! printf '%s' "$exe" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1
then
    refuse "is not UTF-8 text, which a desktop entry must be"
fi
[[ $exe != *%* ]] || refuse "holds '%', which desktop menus (GIO) cannot launch"
exec_line=$(exec_argument "$exe") || refuse "holds a control character no desktop entry can"
try_line=$(entry_string "$exe") || refuse "holds a control character no desktop entry can"
mkdir -p "$apps" "$icons/scalable/apps" "$mime/packages" "$meta"
for s in $sizes; do
    mkdir -p "$icons/${s}x${s}/apps"
    cp "$res/attnviz-$s.png" "$icons/${s}x${s}/apps/$id.png"
done
cp "$res/attnviz.svg" "$icons/scalable/apps/$id.svg"
cp "$here/$id.xml" "$mime/packages/$id.xml"
cp "$here/$id.metainfo.xml" "$meta/$id.metainfo.xml"
# The entry with this bundle's Exec and TryExec, written whole then renamed into place.
entry=$(mktemp "$apps/.$id.XXXXXX")
trap 'rm -f -- "$entry"' EXIT  # a write that fails leaves no half entry behind
while IFS= read -r line || [[ -n $line ]]; do
    case $line in
        Exec=*) printf 'Exec=%s %%f\n' "$exec_line" ;;
        TryExec=*) printf 'TryExec=%s\n' "$try_line" ;;
        *) printf '%s\n' "$line" ;;
    esac
done <"$here/$id.desktop" >"$entry"
chmod 644 "$entry"
mv -f -- "$entry" "$apps/$id.desktop"
rm -f "$apps/attnviz.desktop"  # the first release's entry, if it is there
refresh
echo "attnviz added to the desktop ($apps/$id.desktop)"
if ! command -v update-desktop-database >/dev/null; then
    # Without the menu's MIME cache GIO file managers do not offer attnviz for sessions.
    echo "to open .attnviz sessions from the file manager: install desktop-file-utils and" \
        "run update-desktop-database \"$apps\"" >&2
fi
