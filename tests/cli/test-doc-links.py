#!/usr/bin/env python3
# test-doc-links.py — the README is a front door and the manual behind it holds together.
#
# README.md has at most 250 lines and no line wider than the 100 columns .editorconfig
# sets; its Quick start keeps its two commands (the first may be wrapped after `&&`, the
# words stay the same); every relative link and picture of README.md and doc/*.md names a
# file or folder that exists, and a `#anchor` names a heading of the Markdown file it
# points at (headings as GitHub makes anchors of them: lower case, punctuation dropped,
# spaces to hyphens, a repeated heading -1, -2, …).  Links to other sites are not
# followed.  Text in code blocks and `code spans` is not a link.
#
# Usage: test-doc-links.py SOURCE_ROOT [FILE.md...]  (the files default to README.md and
# doc/*.md).  TAP on standard output.
import glob
import os
import re
import sys
import unicodedata

root = os.path.abspath(sys.argv[1])
files = sys.argv[2:] or (["README.md"] + sorted(os.path.relpath(p, root) for p in
                                                glob.glob(os.path.join(root, "doc", "*.md"))))
MAX_LINES = 250
MAX_COLUMNS = 100
# The Quick start's two commands, as .ci/run and people use them.
QUICK_START = [
    "S=$(command -v sudo); $S apt-get update && $S apt-get install -y "
    "$(grep -v '^#' tools/debian-packages) && meson setup _build && ninja -C _build && "
    "./_build/src/app/cmlab --play",
    "./tools/run-tests",
]

n = 0
failed = False


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        failed = True


def columns(line):
    """The columns LINE takes on a terminal: wide characters two, combining marks none."""
    width = 0
    for c in line:
        if unicodedata.combining(c):
            continue
        width += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return width


def prose_lines(text):
    """(number, line) of the lines outside fenced code blocks."""
    fence = None
    for i, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m:
            if fence is None:
                fence = m.group(1)[:3]
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            yield i, line


def code_blocks(text):
    """The fenced code blocks of TEXT, each as its lines."""
    blocks, current, fence = [], None, None
    for line in text.split("\n"):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m and fence is None:
            fence, current = m.group(1)[:3], []
        elif m and m.group(1).startswith(fence):
            blocks.append(current)
            fence, current = None, None
        elif current is not None:
            current.append(line)
    return blocks


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


anchor_cache = {}


def anchors(path):
    """The anchors of the headings of the Markdown file PATH."""
    if path not in anchor_cache:
        seen = {}
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text):
            m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = slug(m.group(1))
            k = seen.get(s, 0)
            seen[s] = k + 1
            seen.setdefault(s if k == 0 else "%s-%d" % (s, k), 1)
        anchor_cache[path] = set(seen)
    return anchor_cache[path]


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")


DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")


def links(text):
    """(line number, target) of every inline link, picture and link definition outside
    code.  A link's text and target are on one line (a target on the next line is not
    seen, and is an error of its own: see below)."""
    for i, line in prose_lines(text):
        m = DEFINITION.match(line)
        if m:
            yield i, m.group(1)
            continue
        line = re.sub(r"(`+)(?:(?!\1).)+\1", "", line)  # code spans
        for m in LINK.finditer(line):
            yield i, m.group(1)
        if re.search(r"\]\(\s*$", line):
            yield i, "(a link whose target is on the next line)"


readme_path = os.path.join(root, "README.md")
with open(readme_path, encoding="utf-8") as f:
    readme = f.read()
readme_lines = readme.rstrip("\n").split("\n")
ok(len(readme_lines) <= MAX_LINES,
   "README.md has %d lines (at most %d)" % (len(readme_lines), MAX_LINES))
wide = [(i, columns(l)) for i, l in enumerate(readme_lines, 1) if columns(l) > MAX_COLUMNS]
ok(not wide, "no line of README.md is wider than %d columns%s" % (
    MAX_COLUMNS, "" if not wide else ": " + ", ".join("line %d (%d)" % w for w in wide[:20])
    + (" and %d more" % (len(wide) - 20) if len(wide) > 20 else "")))

# The commands of the code blocks, lines ending in `&&`, `|` or `\` joined to the next.
commands = []
for block in code_blocks(readme):
    joined = ""
    for line in block:
        joined += " " + line.strip()
        if re.search(r"(&&|\|\||\|)$", joined):
            continue
        if joined.endswith("\\"):
            joined = joined[:-1]
            continue
        commands.append(" ".join(joined.split()))
        joined = ""
for command in QUICK_START:
    ok(command in commands, "README.md gives the Quick start's command: %s" % command)

for name in files:
    path = os.path.join(root, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    bad = []
    count = 0
    for line_no, target in links(text):
        count += 1
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # another site, or mail
        file_part, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part \
            else path
        if not os.path.exists(dest):
            bad.append("line %d: %s (no such file)" % (line_no, target))
            continue
        if not os.path.realpath(dest).startswith(root + os.sep) and dest != root:
            bad.append("line %d: %s (outside the project)" % (line_no, target))
            continue
        if anchor and dest.endswith(".md") and anchor not in anchors(dest):
            bad.append("line %d: %s (no heading makes #%s)" % (line_no, target, anchor))
    ok(not bad, "%s: every one of its %d links resolves%s" % (
        name, count, "" if not bad else ": " + "; ".join(bad)))

print("1..%d" % n)
sys.exit(1 if failed else 0)
