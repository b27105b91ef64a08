#!/usr/bin/env python3
# test-spanish-cli.py — what cmlab-cli tells a person in Spanish has no English sentence:
# `list` and `info MODEL` (and `info MODEL --as vakonomic` where a model can be read so)
# for every built-in model, run with LANGUAGE=es.  Two checks on every line, the
# references left out (a work is cited as it was printed):
#   - no English text of the catalogue: no piece of an msgid of po/es.po (cut at its
#     printf directives and line ends, of three words or more) that its translation does
#     not contain itself;
#   - no common English word ("the", "of", "over", "is", "rank", "conserved", …) as a
#     word of its own: these are no Spanish words and no names of symbols in the built-in
#     models, so formulae do not trip it, while any English sentence has some.
# Each model is shown in English first, with a cache of derived systems of the test's own.
# TAP output; skipped when the build has no Spanish catalogue (no gettext at setup).
# Usage: test-spanish-cli.py CMLAB_CLI SOURCE_ROOT
import os
import re
import subprocess
import sys
import tempfile

cli, src = sys.argv[1], sys.argv[2]
# the catalogue the built cmlab-cli reads (the build tree's po/); a build set up without
# gettext's msgfmt has none, and nothing here can be in Spanish
catalogue = os.path.join(os.path.dirname(os.path.abspath(cli)), "..", "..", "po", "es", "LC_MESSAGES", "cmlab.mo")
if not os.path.isfile(catalogue):
    print("1..0 # SKIP the Spanish catalogue was not built (gettext's msgfmt was missing at "
          "setup; Debian: gettext, then meson setup again)")
    sys.exit(0)
# a cache of derived systems of our own: each model is derived in English first, then
# shown in Spanish (the constraint algorithm's steps must not come back in English)
cache = tempfile.TemporaryDirectory()

ENGLISH_WORDS = [
    "the", "of", "over", "is", "and", "with", "not", "along", "by", "which", "are", "from",
    "at", "to", "its", "this", "that", "when", "every", "for", "only", "through", "instead",
    "rank", "dimension", "conserved", "random", "states", "monitor", "momentum",
    "Lagrangian", "constraint", "constraints", "undecided", "nothing", "none", "holds",
    "model", "declared", "reading", "unless", "given", "start", "follow",
]
word_re = re.compile(r"(?<![\w'])(" + "|".join(ENGLISH_WORDS) + r")(?![\w'])", re.IGNORECASE)

n = 0
failed = False


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        failed = True


def run(args, lang, stream="stdout"):
    env = dict(os.environ)
    for k in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        env.pop(k, None)
    env["LC_ALL"] = "C.UTF-8"
    env["CMLAB_DERIVED_CACHE"] = cache.name
    if lang:
        env["LANGUAGE"] = lang
    p = subprocess.run([cli] + args, env=env, capture_output=True, text=True, timeout=600)
    return p.returncode, getattr(p, stream)


# ---- the English pieces of the catalogue ---------------------------------------------------
def po_entries(path):
    entries, cur, field = [], None, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("msgid "):
                if cur:
                    entries.append(cur)
                cur, field = {"msgid": "", "msgstr": "", "fuzzy": False}, "msgid"
                line = line[6:]
            elif line.startswith("msgid_plural "):
                field, line = "plural", line[13:]
                cur["plural"] = ""
            elif line.startswith("msgstr"):
                field, line = "msgstr", line[line.index(" ") + 1:]
            elif line.startswith("msgctxt"):
                continue
            elif not line.startswith('"'):
                continue
            if cur is not None and line.startswith('"'):
                s = line[1:-1].encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
                cur[field] = cur.get(field, "") + s
    if cur:
        entries.append(cur)
    return [e for e in entries if e["msgid"] and e["msgstr"]]


directive = re.compile(r"%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|j|t|L|" + r"'" + r")?[diouxXeEfFgGcsp%]|%[A-Z_0-9]+")
pieces = set()
for e in po_entries(os.path.join(src, "po", "es.po")):
    for msgid in (e["msgid"], e.get("plural", "")):
        for piece in re.split(directive, msgid):
            for part in piece.split("\n"):
                part = part.strip(" :;,.()")
                if len(re.findall(r"[A-Za-z]{2,}", part)) >= 3 and part not in e["msgstr"]:
                    pieces.add(part)
ok(len(pieces) > 100, "the catalogue gives %d English pieces to look for" % len(pieces))


def english_lines(text):
    bad = []
    in_refs = False
    for line in text.split("\n"):
        if line.strip() == "Referencias:":
            in_refs = True
            continue
        if in_refs:
            if line.startswith("  "):
                continue
            in_refs = False
        m = word_re.search(line)
        if m:
            bad.append("English word “%s”: %s" % (m.group(1), line.strip()))
            continue
        for p in pieces:
            if p in line:
                bad.append("English text “%s”: %s" % (p, line.strip()))
                break
    return bad


def check(label, text):
    bad = english_lines(text)
    ok(not bad, "%s has no English sentence%s" % (label, "".join("\n#   " + b for b in bad[:12])))


rc, out = run(["list"], None)
models = [l.split()[0] for l in out.split("\n") if l.strip()]
ok(rc == 0 and len(models) >= 10, "cmlab-cli list names the built-in models (%d)" % len(models))

rc, out = run(["list"], "es")
check("LANGUAGE=es cmlab-cli list", out)
for m in models:
    run(["info", m], "en")
    rc, out = run(["info", m], "es")
    ok(rc == 0, "LANGUAGE=es cmlab-cli info %s runs" % m)
    check("LANGUAGE=es cmlab-cli info %s" % m, out)
    rc, out = run(["info", m, "--as", "vakonomic"], "es")
    if rc == 0:
        check("LANGUAGE=es cmlab-cli info %s --as vakonomic" % m, out)

# what a mistyped command line is told
for args in (["info", "ninguno"], ["simulate", "rolling-ball", "--set", "r=99", "--t-end", "1", "--dt-out", "1"],
             ["simulate", "plate-ball", "--set", "sigma=0.5", "--t-end", "1", "--dt-out", "1"],
             ["simulate", "heavy-top", "--set", "sigma=1", "--t-end", "1", "--dt-out", "1"]):
    rc, err = run(args, "es", "stderr")
    ok(rc != 0 and err.strip(), "LANGUAGE=es cmlab-cli %s is refused" % " ".join(args))
    check("LANGUAGE=es cmlab-cli %s (its error)" % " ".join(args), err)

# what a malformed model file is told: a line that is no key = value, defaults the model's requirement
# refuses, a requirement without its comparison (in English first: the check trips on it)
with open(os.path.join(src, "models", "rigid-body.cml"), encoding="utf-8") as f:
    rigid = f.read()
broken = tempfile.TemporaryDirectory()
for name, text in (("linea", rigid + "\nesto no es una clave\n"),
                   ("requisito", rigid.replace("\nI1 = 1 | 0.1 .. 10 |", "\nI1 = 9 | 0.1 .. 10 |", 1)),
                   ("comparacion", rigid.replace("\nrequire = I1 <= I2 + I3,", "\nrequire = I1 + I2 + I3,", 1))):
    path = os.path.join(broken.name, name + ".cml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    rc, err = run(["info", path], "en", "stderr")
    ok(rc != 0 and len(english_lines(err)) > 0, "cmlab-cli info of a malformed model (%s) is refused in English" % name)
    rc, err = run(["info", path], "es", "stderr")
    ok(rc != 0 and err.strip(), "LANGUAGE=es cmlab-cli info of a malformed model (%s) is refused" % name)
    check("LANGUAGE=es cmlab-cli info of a malformed model (%s) (its error)" % name, err)

# the check itself: the English account trips it
rc, out = run(["info", "rolling-ball"], "en")
ok(len(english_lines(out)) > 10, "the check finds the English of cmlab-cli info rolling-ball")

print("1..%d" % n)
sys.exit(1 if failed else 0)
