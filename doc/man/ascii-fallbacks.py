#!/usr/bin/env python3
"""ascii-fallbacks.py — reads a manual page (roff, UTF-8) on standard input and writes it
with a fallback for every character outside ASCII declared after its .TH line, and one
long page on a terminal
(`.fchar`): groff draws a character from the fallback only where the output device has no
glyph for it — a terminal in the POSIX locale, where man would otherwise warn
"can't find special character" for ẏ, ᵀ or ⁻ and leave a blank."""
import re
import sys
import unicodedata


def fallback(c):
    """An ASCII stand-in for C: its compatibility decomposition without accents
    (ᵀ → T, ẏ → y), a few signs by hand, else '?'."""
    by_hand = {"\u2212": "-", "\u207b": "-", "\u2013": "-", "\u2014": "--", "\u2192": "->",
               "\u2190": "<-", "\u00d7": "x", "\u00b7": ".", "\u2026": "...", "\u2018": "'",
               "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00ab": "<<", "\u00bb": ">>",
               "\u0303": "~", "\u0307": ".", "\u0308": '"', "\u0302": "^", "\u2264": "<=",
               "\u2265": ">=", "\u2260": "!=", "\u2248": "~=", "\u221e": "inf", "\u2202": "d",
               "\u2207": "grad", "\u2208": " in ", "\u00b2": "^2", "\u00b3": "^3", "\u00b9": "^1"}
    if c in by_hand:
        return by_hand[c]
    # a dot above is a time derivative: ẏ → y'
    d = unicodedata.normalize("NFD", c)
    if len(d) == 2 and d[1] == "\u0307" and ord(d[0]) < 128:
        return d[0] + "'"
    out = "".join(ch for ch in unicodedata.normalize("NFKD", c) if not unicodedata.combining(ch))
    out = "".join(by_hand.get(ch, ch) for ch in out)
    if out and all(ord(ch) < 128 for ch in out):
        return out
    name = unicodedata.name(c, "")
    for word in ("ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA", "ETA", "THETA", "IOTA",
                 "KAPPA", "LAMDA", "MU", "NU", "XI", "OMICRON", "PI", "RHO", "SIGMA", "TAU",
                 "UPSILON", "PHI", "CHI", "PSI", "OMEGA"):
        if name.startswith("GREEK") and name.endswith(" " + word):
            w = word.lower().replace("lamda", "lambda")
            return w.capitalize() if "CAPITAL" in name else w
    return "?"


# groff's own names for Greek letters and a few signs, whose terminal stand-ins
# (<alpha>, <del>) are wider than the words they are in
GREEK = {"a": "alpha", "b": "beta", "g": "gamma", "d": "delta", "e": "epsilon", "z": "zeta",
         "y": "eta", "h": "theta", "i": "iota", "k": "kappa", "l": "lambda", "m": "mu", "n": "nu",
         "c": "xi", "o": "omicron", "p": "pi", "r": "rho", "s": "sigma", "t": "tau", "u": "upsilon",
         "f": "phi", "x": "chi", "q": "psi", "w": "omega"}
NAMED = {"pd": "d", "+f": "phi", "+h": "theta", "+p": "pi", "ts": "s"}
for _k, _v in list(GREEK.items()):
    NAMED["*" + _k] = _v
    NAMED["*" + _k.upper()] = _v.capitalize()


def groff_names(c):
    """The names groff's preconv gives C: uXXXX, and for a character with a canonical
    decomposition, the decomposed name (ẏ is u0079_0307)."""
    names = ["u%04X" % ord(c)]
    d = unicodedata.normalize("NFD", c)
    if len(d) > 1:
        names.append("_".join("%04X" % ord(ch) for ch in d).join(["u", ""]))
    return names


def main():
    text = sys.stdin.read()
    # raw characters, and the escapes pandoc writes for the rest (\[u1E8F])
    chars = {c for c in text if ord(c) > 127}
    chars |= {chr(int(h, 16)) for h in re.findall(r"\\\[u([0-9A-F]{4,6})\]", text)}
    chars = sorted(chars)
    lines = [".\\\" ASCII stand-ins, used only where the device has no glyph (a terminal in the POSIX locale)"]
    for c in chars:
        fb = fallback(c).replace("\\", "\\\\")
        for n in groff_names(c):
            lines.append(".fchar \\[%s] %s" % (n, fb))
    for name in sorted(set(re.findall(r"\\\[([^]]+)\]", text)) & set(NAMED)):
        lines.append(".fchar \\[%s] %s" % (name, NAMED[name]))
    # on a terminal the page is one long page (as man-db's continuous rendering has it):
    # a table cell then never "will not fit on one page", wherever the page breaks fall
    lines.append(".if n .pl 100000v")
    out, done = [], False
    for line in text.splitlines(keepends=True):
        out.append(line)
        if not done and line.startswith(".TH "):
            out.append("\n".join(lines) + "\n")
            done = True
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
