#!/usr/bin/env python3
"""Compare two `uci_match --log` files played on the same seed, start by start.

    tools/compare-match-logs.py NEW.log OLD.log

With one seed `uci_match` plays the same starts (game 2k and 2k+1 share a start, colours
swapped), so engine A's pair score on each start can be compared between two builds. Prints
both builds' scores over the starts both finished (voids left out) and the mean difference
of the pair scores with its 95 % interval, in points, and the Elo difference of the two
scores.
"""
import math
import sys


def load(path):
    """Engine A's score per game number."""
    scores = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            game, a_white, result = int(fields[0]), fields[1], fields[2]
            if result == "*":
                continue
            white = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            scores[game] = white if a_white == "A" else 1.0 - white
    return scores


def elo(score):
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    new, old = load(sys.argv[1]), load(sys.argv[2])
    starts = sorted(
        s
        for s in {g // 2 for g in new}
        if all(g in d for g in (2 * s, 2 * s + 1) for d in (new, old))
    )
    if len(starts) < 2:
        sys.exit("fewer than two starts finished in both logs")
    diffs = [(new[2 * s] + new[2 * s + 1] - old[2 * s] - old[2 * s + 1]) / 2 for s in starts]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    s_new = sum(new[2 * s] + new[2 * s + 1] for s in starts) / (2 * n)
    s_old = sum(old[2 * s] + old[2 * s + 1] for s in starts) / (2 * n)
    print(
        f"{n} starts: {100 * s_new:.1f} % against {100 * s_old:.1f} %; "
        f"difference {100 * mean:+.1f} ± {196 * sd / math.sqrt(n):.1f} points (95 %), "
        f"Elo {elo(s_new) - elo(s_old):+.0f}"
    )


if __name__ == "__main__":
    main()
