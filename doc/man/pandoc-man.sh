#!/bin/sh
# pandoc-man.sh OUTPUT [PANDOC OPTIONS] INPUT... — a manual page from Markdown.  pandoc sets
# a table's columns 70 en wide in all, which overflows an 80-column terminal once the
# page's indent is added; the widths are scaled to 90 % so that every table fits.  Every
# character outside ASCII gets a stand-in for terminals without it (ascii-fallbacks.py).
set -e
out=$1
shift
pandoc --standalone --to man "$@" | perl -pe 's/lw\(([\d.]+)n\)/sprintf("lw(%.1fn)", $1 * 0.9)/ge' |
  python3 "$(dirname "$0")/ascii-fallbacks.py" > "$out.tmp"
mv "$out.tmp" "$out"
