#!/usr/bin/env python3
# check-guide.py — the guide describes the window as it is: the instruments page names every
# tab of the side column (the stack pages of ui/cml-window.ui and those the window adds
# in C, gtk_stack_add_titled (self->side_stack, …)) and says how many there are, names the
# Steer to a Target button of the 3-D view, and says nothing is "command-line only"; the
# getting-started page names every key of the keyboard-shortcuts window
# (ui/gtk/help-overlay.ui); no page is still a draft; every figure is shown at the size it
# was made (its text as readable as on the screen) and fits the page; the HTML's style
# wraps long lines of code.  Usage: check-guide.py SOURCE_ROOT
import glob
import re
import sys

src = sys.argv[1]
problems = []


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def plain(xml):
    """The page's text with its markup gone and its spaces made single."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", xml))


window_ui = read(src + "/ui/cml-window.ui")
instruments = read(src + "/help/C/instruments.page")
getting_started = read(src + "/help/C/getting-started.page")

# ---- the side column's tabs -----------------------------------------------------------------
stack = window_ui[window_ui.index('id="side_stack"'):]
stack = stack[:stack.index('id="side_switcher"')] if 'id="side_switcher"' in stack else stack
tabs = re.findall(r'<property name="title" translatable="yes">([^<]+)</property>', stack)
for c in sorted(glob.glob(src + "/src/app/*.c")):
    tabs += re.findall(r'gtk_stack_add_titled \(self->side_stack, [^,]+, "[^"]+", _\("([^"]+)"\)\)', read(c))
if len(tabs) < 3:
    problems.append("found only these tabs of the side column: %s" % tabs)
for t in tabs:
    if "<gui>%s</gui>" % t not in instruments:
        problems.append("the instruments page does not name the tab “%s”" % t)
words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
count = words[len(tabs)] if len(tabs) < len(words) else str(len(tabs))
said = re.findall(r"\b(\w+) (?:tabs|pages)\b", plain(instruments))
if count not in said:
    problems.append("the instruments page does not say the side column has %s tabs (it says: %s)" % (count, said))
for w in said:
    if w in words and w != count:
        problems.append("the instruments page speaks of %s tabs or pages; the window has %s" % (w, count))

# ---- the 3-D view's Steer to a Target --------------------------------------------------------
scene_ui = read(src + "/ui/cml-scene-view.ui")
for label in re.findall(r'<property name="label" translatable="yes">(Steer[^<]*)</property>', scene_ui):
    if "<gui>%s</gui>" % label not in instruments:
        problems.append("the instruments page does not name the button “%s”" % label)

# ---- nothing the window does is said to be for the command line only ------------------------
for m in re.finditer(r"[^.]*\b(?:command[- ]line only|only on the command line|a window cannot)\b[^.]*\.",
                     plain(instruments), re.IGNORECASE):
    problems.append("the instruments page says: “%s”" % m.group(0).strip())

# ---- every key of the shortcuts window ------------------------------------------------------
names = {"space": "Space", "Right": "→", "Left": "←", "plus": "+", "minus": "−",
         "question": "?", "Escape": "Escape", "Page_Down": "Page Down", "Page_Up": "Page Up",
         "1...9": "1"}
overlay = read(src + "/ui/gtk/help-overlay.ui")
for accel in re.findall(r'<property name="accelerator">([^<]+)</property>', overlay):
    accel = accel.replace("&lt;", "<").replace("&gt;", ">")
    for one in accel.split():
        mods = re.findall(r"<(\w+)>", one)
        key = re.sub(r"<\w+>", "", one)
        keys = [{"Control": "Ctrl", "Primary": "Ctrl"}.get(m, m) for m in mods]
        keys.append(names.get(key, key.upper() if len(key) == 1 else key))
        if len(keys) == 1:
            shown = "<key>%s</key>" % keys[0]
        else:
            shown = "<keyseq>" + "".join("<key>%s</key>" % k for k in keys) + "</keyseq>"
        if shown not in getting_started:
            problems.append("the getting-started page does not name the key %s (%s)" % (one, shown))

# ---- every page read and final; every figure shown at its own size, code that wraps --------
for page in sorted(glob.glob(src + "/help/C/*.page")):
    name = page.rsplit("/", 1)[1]
    text = read(page)
    for status in re.findall(r'<revision [^>]*status="([^"]+)"', text):
        if status != "final":
            problems.append("%s is marked %s (read it against the program, then final)" % (name, status))
    for media in re.findall(r"<media [^>]*>", text):
        figure = re.search(r'src="([^"]+)"', media).group(1)
        with open(src + "/help/C/" + figure, "rb") as f:
            head = f.read(24)
        width = int.from_bytes(head[16:20], "big") if head[:8] == b"\x89PNG\r\n\x1a\n" else None
        shown = re.search(r'width="(\d+)"', media)
        if shown and width is not None and int(shown.group(1)) != width:
            problems.append("%s shows %s, %d pixels wide, at %s: its text shrinks (make it at "
                            "the size shown, tools/help-figures)" % (name, figure, width, shown.group(1)))
        if width is not None and width > 960:
            problems.append("%s: %s is %d pixels wide, wider than a figure can be shown on the guide's page (960)"
                            % (name, figure, width))
xsl = read(src + "/help/html-custom.xsl")
if "pre-wrap" not in xsl:
    problems.append("help/html-custom.xsl does not wrap long lines of code (white-space: pre-wrap)")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
