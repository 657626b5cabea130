#!/usr/bin/env bash
# Makes the installed app's icons (Public/assets/icons/*.png, committed) from Public/assets/favicon.svg
# with rsvg-convert (Debian's librsvg2-bin). Run it again after changing the favicon.
#   icon-192.png, icon-512.png   purpose "any": the favicon as it is (rounded square, transparent corners)
#   maskable-192.png, -512.png   purpose "maskable": the same glyph on a full-bleed square, so that
#                                whatever shape a launcher cuts (circle, squircle) is filled to the
#                                edge; the glyph lies within 22.4 of the 32 units from the centre,
#                                inside the 40 % safe zone (25.6) every mask keeps.
# And the API's image for a photo whose display copy is still being made
# (Public/assets/img/preparing.png, committed; the seed's app decodes JPEG and PNG) from
# scripts/assets/preparing.svg: a camera and a clock, no words (every language's app shows it).
set -euo pipefail
cd "$(dirname "$0")/.."
source=Public/assets/favicon.svg
out=Public/assets/icons
mkdir -p "$out"
# The favicon without its rounded corners: rx="14" on the background square goes.
maskable=$(sed 's/<rect width="64" height="64" rx="14"/<rect width="64" height="64"/' "$source")
grep -q '<rect width="64" height="64" fill' <<<"$maskable" || { echo "favicon.svg changed: adjust the maskable edit" >&2; exit 1; }
for size in 192 512; do
    rsvg-convert --width "$size" --height "$size" --output "$out/icon-$size.png" "$source"
    rsvg-convert --width "$size" --height "$size" --output "$out/maskable-$size.png" <<<"$maskable"
done
mkdir -p Public/assets/img
rsvg-convert --width 512 --height 512 --output Public/assets/img/preparing.png scripts/assets/preparing.svg
ls -l "$out" Public/assets/img
