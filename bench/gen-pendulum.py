#!/usr/bin/env python3
"""Writes bench/models/pendulum/pendulum-N.cml: the planar pendulum of N equal links, in the style
of pendulum-5.cml (the angles a_i from the downward vertical, the kinetic energy with its
coupled mass matrix m l^2 (N - max(i, j) + 1) cos(a_i - a_j), the gravity potential with
z_k = -l (cos a_1 + ... + cos a_k)).  The scaling benchmark (bench/scaling.py) runs these.

    bench/gen-pendulum.py 2 5 10 20 50        # writes bench/models/pendulum/pendulum-{2,5,...}.cml

(A directory of their own: the tests that derive every model of bench/models/ would spend
minutes on the 20- and 50-link ones.  bench/models/pendulum-5.cml, the start-up benchmark's,
has the same equations as pendulum/pendulum-5.cml.)
    bench/gen-pendulum.py --stdout 7          # prints one
    bench/gen-pendulum.py --scene 20 50       # pendulum-N-scene.cml: the same with a scene

The --scene variant draws the chain in the window (a rod and a mass per link, the paths of
the middle and the last mass): what the window's frame rate is measured on at scale.  Only
the first rod and mass are named, so that the legend stays two lines long.
"""

import os
import sys

WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight",
         9: "Nine", 10: "Ten", 20: "Twenty", 50: "Fifty"}
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
           9: "nine", 10: "ten", 20: "twenty", 50: "fifty"}


def kinetic(n):
    terms = []
    for i in range(1, n + 1):
        terms.append("%d*w%d^2" % (n - i + 1, i))
        for j in range(i + 1, n + 1):
            terms.append("2*%d*cos(a%d - a%d)*w%d*w%d" % (n - j + 1, i, j, i, j))
    return "m*l^2/2*(" + " + ".join(terms) + ")"


def potential(n):
    return "m*g*l*(" + " + ".join("%d*cos(a%d)" % (n - i + 1, i)
                                  for i in range(1, n + 1)) + ")"


def chain_x(k):
    return "l*(" + " + ".join("sin(a%d)" % i for i in range(1, k + 1)) + ")"


def chain_z(k):
    return "-l*(" + " + ".join("cos(a%d)" % i for i in range(1, k + 1)) + ")"


def scene(n):
    out = []
    for k in range(1, n + 1):
        start = "0, 0, 0" if k == 1 else "%s, 0, %s" % (chain_x(k - 1), chain_z(k - 1))
        out.append("[scene rod%d]\ntype = arrow\n" % k)
        if k == 1:
            out.append("label = rods (length l)\nlabel[es] = varillas (longitud l)\n")
        out.append("from = %s\nvector = l*sin(a%d), 0, -l*cos(a%d)\ncolor = orange\n\n" % (start, k, k))
        out.append("[scene mass%d]\ntype = point\n" % k)
        if k == 1:
            out.append("label = masses m\nlabel[es] = masas m\n")
        out.append("position = %s, 0, %s\nradius = 0.08\ncolor = red\n\n" % (chain_x(k), chain_z(k)))
    for k in sorted({max(1, n // 2), n}):
        out.append("[scene path%d]\ntype = trail\nlabel = path of mass %d\nlabel[es] = trayectoria de la masa %d\n"
                   "point = %s, 0, %s\nlength = 20\ncolor = blue\n\n" % (k, k, k, chain_x(k), chain_z(k)))
    return "".join(out).rstrip("\n") + "\n"


def model(n, with_scene=False):
    word = WORDS.get(n, str(n))
    number = NUMBERS.get(n, str(n))
    idx = range(1, n + 1)
    out = []
    out.append("# A planar pendulum of %s equal links (mass m at the end of each massless rod of "
               "length l),\n" % number)
    out.append("# written as a user would write it: the angles a_i from the downward vertical, "
               "the kinetic\n")
    out.append("# energy with its coupled inertia (the mass matrix m l^2 (n - max(i, j) + 1) "
               "cos(a_i - a_j),\n")
    out.append("# i, j = 1 ... %d), the gravity potential with z_k = -l (cos a_1 + ... + cos a_k).  "
               "Not a\n" % n)
    out.append("# built-in: a model of the scaling benchmark (bench/scaling.py), written by "
               "bench/gen-pendulum.py.\n")
    out.append("[model]\nname = pendulum-%d%s\n" % (n, "-scene" if with_scene else ""))
    out.append("title = %s-link planar pendulum\n" % word)
    out.append("description = %s equal point masses on massless rods of length l, hinged in a "
               "chain and swinging in a vertical plane under gravity: Euler-Lagrange equations "
               "on TQ, Q = (S^1)^%d.\n" % (word, n))
    out.append("time-unit = s\n\n")
    out.append("[parameters]\n"
               "m = 1 | 0.1 .. 10 | kg | mass at the end of each link\n"
               "l = 1 | 0.1 .. 10 | m | length of each link\n"
               "g = 9.81 | 0 .. 20 | m/s^2 | gravitational acceleration\n\n")
    out.append("[algebroid]\n")
    out.append("base = " + ", ".join("a%d" % i for i in idx) + "\n")
    out.append("fibre = " + ", ".join("w%d" % i for i in idx) + "\n")
    out.append("sections = " + ", ".join("e%d" % i for i in idx) + "\n\n")
    out.append("[anchor]\n" + "".join("e%d = a%d: 1\n" % (i, i) for i in idx) + "\n")
    T, V = kinetic(n), potential(n)
    out.append("[dynamics]\nlagrangian = %s + %s\n\n" % (T, V))
    out.append("[initial]\n")
    for i in idx:
        # the five-link file's 0.1 ... 0.5, spread over the chain for longer ones
        a = 0.1 * i if n <= 5 else round(0.5 * i / n, 6)
        out.append("a%d = %s\nw%d = 0\n" % (i, repr(a) if n > 5 else "%.1f" % a, i))
    out.append("\n[monitors]\nenergy = %s - (%s) | conserved\n\n" % (T, V))
    out.append("[units]\n" + "".join("a%d = rad\nw%d = rad/s\n" % (i, i) for i in idx))
    out.append("energy = J\n")
    if with_scene:
        out.append("\n" + scene(n))
    return "".join(out)


def main(argv):
    if len(argv) >= 2 and argv[0] == "--stdout":
        sys.stdout.write(model(int(argv[1])))
        return 0
    with_scene = len(argv) >= 1 and argv[0] == "--scene"
    if with_scene:
        argv = argv[1:]
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "pendulum")
    os.makedirs(here, exist_ok=True)
    for a in argv:
        n = int(a)
        if n < 1:
            sys.stderr.write("gen-pendulum: N must be at least 1\n")
            return 2
        path = os.path.join(here, "pendulum-%d%s.cml" % (n, "-scene" if with_scene else ""))
        with open(path + ".tmp", "w") as f:
            f.write(model(n, with_scene))
        os.replace(path + ".tmp", path)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
