#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layers.sh LIBDIR: src/lib's layers are enforced, not only written down.
#
# The layers, bottom up, are the order of the folder list in LIBDIR/README
# (the lines "  NAME/  ..." under "Layers"): a module may include headers of
# its own folder or of a folder listed before it, never one listed after.
# Within a folder, the modules' includes must form no cycle (a.c or a.h
# including b.h while b.c or b.h includes a.h, at any length).  Includes are
# written with the folder ("wire/sse.h"); a bare "sse.h" is refused too, so
# that the rule reads off the text.  Prints each offence as
# "FILE:LINE: includes X (layer L above M)" and exits 1; 0 when clean.
# It also refuses a module below cli that dies or exits (gp_die, gp_x*,
# exit(), or the dying map): the library returns errors.
set -eu
lib=${1:-src/lib}
order=$(awk '/^Layers/{on=1; next} on && /^  [a-z]+\//{sub(/^  /,""); sub(/\/.*/,""); print; next} on && /^[^ ]/ && !/^Layers/{if (n++) exit}' "$lib/README")
[ -n "$order" ] || { echo "check-layers: $lib/README lists no layers" >&2; exit 2; }
rank() { echo "$order" | awk -v l="$1" '$0 == l {print NR; found=1} END {if (!found) print 0}'; }
bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for dir in "$lib"/*/; do
	layer=$(basename "$dir")
	r=$(rank "$layer")
	if [ "$r" = 0 ]; then echo "$lib/$layer: a folder that $lib/README does not list under Layers"; bad=1; continue; fi
	for f in "$dir"*.c "$dir"*.h; do
		[ -e "$f" ] || continue
		mod=$(basename "$f"); mod=${mod%.*}
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r l; do
			n=${l%%:*}
			inc=$(echo "$l" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
			case $inc in
			*/*) il=${inc%%/*}; im=$(basename "$inc"); im=${im%.*} ;;
			*) echo "$f:$n: includes \"$inc\" without its folder"; echo x >>"$edges.bad"; continue ;;
			esac
			ir=$(rank "$il")
			if [ "$ir" = 0 ]; then echo "$f:$n: includes \"$inc\": no such layer"; echo x >>"$edges.bad"
			elif [ "$ir" -gt "$r" ]; then echo "$f:$n: includes \"$inc\" (layer $il is above $layer)"; echo x >>"$edges.bad"
			elif [ "$il" = "$layer" ] && [ "$im" != "$mod" ]; then echo "$layer/$mod $layer/$im" >>"$edges"
			fi
		done
	done
done
[ -e "$edges.bad" ] && { bad=1; rm -f "$edges.bad"; }
# Cycles within a layer: tsort reports them.
if [ -s "$edges" ]; then
	if ! out=$(sort -u "$edges" | tsort 2>&1 >/dev/null); then :; fi
	if [ -n "$out" ]; then echo "$out" | sed 's/^tsort: /check-layers: cycle: /'; bad=1; fi
fi
# The library returns errors: below cli no module dies or exits.  log's dying
# half (gp_die, the gp_x* allocators), vec's gp_xgrow and map (whose memory
# comes from them: tool code only) are the three files that define it.
for f in "$lib"/*/*.c; do
	case ${f#"$lib"/} in cli/*|base/log.c|base/vec.c|base/map.c) continue ;; esac
	grep -nE '(^|[^_[:alnum:]])(gp_die[a-z_]*|gp_x[a-z]+|GP_XGROW|exit|gp_map_[a-z_]+|gp_u64set_[a-z_]+)\(' "$f" |
		sed "s|^\([0-9]*\):.*|$f:\1: dies or exits (the library returns errors; only cli and the tools die)|"
done >"$edges.exit"
[ -s "$edges.exit" ] && { cat "$edges.exit"; bad=1; }
rm -f "$edges.exit"
[ $bad = 0 ] && echo "check-layers: $(echo "$order" | wc -l) layers, no upward include, no cycle, no exit below cli"
exit $bad
