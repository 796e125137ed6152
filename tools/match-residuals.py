#!/usr/bin/env python3
"""What an engine's scores miss, read from `uci_match --log` files: per role, in centipawns.

    tools/match-residuals.py [--ply N] [--engine A|B] LOG...

For every finished game, the position after N plies (default 20) is rebuilt from the start
and the moves (only the material is needed: captures, en passant and promotions), and the
engine's score there (A's by default; its score at ply N or N+1, whichever it gave) is read
from the log. The games' results are then fitted by a logistic model

    P(White wins) = sigmoid(k * score / 400 * ln 10 + sum over roles of c_role * d_role)

where d_role is White's count of that role less Black's. Printed per role: c_role in the
score's own centipawns (c_role / (k * ln 10 / 400)) with its 95 % interval. A role whose
figure is clear of zero is worth that much more (or, negative, less) in these games than the
engine's score says; k is how far the score is to be trusted (1: as it is, below 1: too
confident). Draws count half a win. At ply 0 of built armies of equal points the counts are
tied to each other and the figures mean nothing; read plies of 10 and more.

Session 35 found with it that in Maharajah games of built armies this engine's score values a
pawn about 50 centipawns too high (BENCHMARKS.md, "Engine, session 35").
"""
import math
import sys

ROLES = "pnbrqmca"


def board_of(fen):
    """The board of a FEN as {(file, rank): letter}, files and ranks from 0."""
    board = {}
    for row_index, row in enumerate(fen.split()[0].split("/")):
        rank, file, digits = 7 - row_index, 0, ""
        for ch in row + "/":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch.isalpha():
                board[(file, rank)] = ch
                file += 1
    return board


def play(board, move):
    """Apply a UCI move for its material only; `False` where no piece stands on its square."""
    square = lambda s: (ord(s[0]) - ord("a"), int(s[1:]) - 1)
    promotion = move[-1] if move[-1].isalpha() else None
    start, target = square(move[:2]), square(move[2 : len(move) - (1 if promotion else 0)])
    piece = board.get(start)
    if piece is None:
        return False
    taken = board.get(target)
    if taken is not None and taken.isupper() == piece.isupper():
        return True  # castling written as the king taking its own rook: no material changes
    if piece in "Pp" and start[0] != target[0] and taken is None:
        board.pop((target[0], start[1]), None)  # en passant
    del board[start]
    if promotion:
        piece = promotion.upper() if piece.isupper() else promotion.lower()
    board[target] = piece
    return True


def solve(a, b):
    """x with a x = b (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col] != 0:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def inverse(a):
    n = len(a)
    cols = [solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def fit(rows):
    """Logistic regression (Newton's method) of fractional results on [scaled score, counts]."""
    n = len(rows[0][0])
    w = [0.0] * n
    w[0] = 1.0
    for _ in range(40):
        grad = [0.0] * n
        hess = [[1e-3 if i == j else 0.0 for j in range(n)] for i in range(n)]
        for x, y in rows:
            z = sum(a * b for a, b in zip(w, x))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            v = max(p * (1 - p), 1e-6)
            for i in range(n):
                grad[i] += (y - p) * x[i]
                for j in range(n):
                    hess[i][j] += v * x[i] * x[j]
        step = solve(hess, grad)
        w = [a + b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w, inverse(hess)


def main():
    args = sys.argv[1:]
    ply, engine = 20, "A"
    while args and args[0].startswith("--"):
        if args[0] == "--ply" and len(args) > 1:
            ply, args = int(args[1]), args[2:]
        elif args[0] == "--engine" and len(args) > 1 and args[1] in ("A", "B"):
            engine, args = args[1], args[2:]
        else:
            sys.exit(__doc__)
    if not args:
        sys.exit(__doc__)
    rows = []
    for path in args:
        with open(path) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) < 7 or fields[2] not in ("1-0", "0-1", "1/2-1/2"):
                    continue
                white, result, fen, moves = fields[1], fields[2], fields[4], fields[5].split()
                scores = [int(s) for s in fields[6].split()]
                if len(scores) < ply + 2:
                    continue
                board = board_of(fen)
                if not all(play(board, m) for m in moves[:ply]):
                    continue
                # Scores are White's view; ply k's is the side to move's engine's.
                white_moves_at_ply = (ply % 2 == 0) == (fen.split()[1] == "w")
                engine_moves = white_moves_at_ply == (white == engine)
                score = scores[ply] if engine_moves else scores[ply + 1]
                score = max(-1500, min(1500, score))
                counts = [
                    sum(1 for p in board.values() if p == r.upper())
                    - sum(1 for p in board.values() if p == r)
                    for r in ROLES
                ]
                y = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
                rows.append(([score / 400 * math.log(10)] + counts, y))
    if not rows:
        sys.exit("no finished game reaches that ply")
    w, cov = fit(rows)
    unit = w[0] * math.log(10) / 400
    print(f"{len(rows)} games at ply {ply}, engine {engine}'s scores; trust k = {w[0]:.2f}")
    for i, role in enumerate(ROLES, start=1):
        if all(x[i] == 0 for x, _ in rows):
            print(f"  {role}: never differs")
            continue
        half = 1.96 * math.sqrt(max(cov[i][i], 0.0)) / abs(unit)
        print(f"  {role}: {w[i] / unit:+5.0f} ± {half:.0f} cp")


if __name__ == "__main__":
    main()
