#!/usr/bin/env python3
"""How far the search's static evaluation lies from a deeper search's score, per data file.

    nnue show NET DATA VARIANT > SHOWN.txt      # crates/engine/examples/nnue.rs
    tools/eval-error.py SHOWN.txt [MORE.txt ...]

Each line of `nnue show` is a data line (`fen|score|result`) followed by the network's
correction, the hand-written evaluation and their sum as the search uses it (`searched`).
Prints, per file, the mean and the quantiles of |score - searched| in centipawns over the
labels within ±1,500 (decided positions left out). The pruning margins of the search are such
errors: where they are larger, a margin prunes moves a search would have kept.
"""
import sys


def errors(path):
    """|label - searched| of each line of `nnue show` output, labels within ±1,500."""
    out = []
    with open(path) as f:
        for line in f:
            data, rest = line.split("  net ", 1)
            label = float(data.split("|")[1])
            searched = float(rest.split("searched ")[1])
            if abs(label) <= 1500:
                out.append(abs(label - searched))
    return sorted(out)


def main():
    for path in sys.argv[1:]:
        e = errors(path)
        n = len(e)
        if n == 0:
            print(f"{path}: no labels")
            continue
        q = {p: e[min(n - 1, int(p * n))] for p in (0.5, 0.8, 0.9, 0.95, 0.99)}
        print(
            f"{path}: {n} labels, mean {sum(e) / n:.0f}, median {q[0.5]:.0f}, "
            f"80 % {q[0.8]:.0f}, 90 % {q[0.9]:.0f}, 95 % {q[0.95]:.0f}, 99 % {q[0.99]:.0f}"
        )


if __name__ == "__main__":
    main()
