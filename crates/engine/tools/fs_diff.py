"""Differential check of Maharajah move generation against Fairy-Stockfish (pip install pyffish).

Reads lines written by `cargo run -p maharajah-engine --example fs_diff_dump -- N SEED` and, for
each position, defines a Fairy-Stockfish variant whose promotion sets are the sides' and whose
double-step regions are exactly the unmoved pawns, then compares the perft-2 divide. Depth 2 is
exact: Fairy-Stockfish grants double steps by square, and a moved pawn needs at least two plies
to re-enter a vacated start square (see shared/reference/README.md).

usage: python3 fs_diff.py DUMP_FILE [SHARED_DIR] [chess|horde]
With chess or horde, Fairy-Stockfish's built-in variant of that name is used instead.
"""
import sys

import pyffish

dump = sys.argv[1]
shared = sys.argv[2] if len(sys.argv) > 2 else "../../../shared"
base = open(f"{shared}/reference/fairy-stockfish-positions.ini").read()
base = base[: base.index("[mh_01")]
builtin = sys.argv[3] if len(sys.argv) > 3 else None
rows = [line.rstrip("\n").split("|") for line in open(dump) if line.strip()]
ini = base
for i, (fen, pw, pb, uw, ub, div) in enumerate(rows):
    ini += (
        f"\n[p{i}:maharajah]\npromotionPieceTypesWhite = {pw}\npromotionPieceTypesBlack = {pb}\n"
        f"doubleStepRegionWhite = {uw or '-'}\ndoubleStepRegionBlack = {ub or '-'}\n"
    )
pyffish.load_variant_config(ini)
bad = 0
for i, (fen, pw, pb, uw, ub, div) in enumerate(rows):
    v = builtin or f"p{i}"
    ours = dict(x.split(":") for x in div.split(",")) if div else {}
    theirs = {m: str(len(pyffish.legal_moves(v, fen, [m]))) for m in pyffish.legal_moves(v, fen, [])}
    if ours != theirs:
        bad += 1
        diff = {m: (ours.get(m), theirs.get(m)) for m in set(ours) | set(theirs) if ours.get(m) != theirs.get(m)}
        print(i, fen, "unmoved:", uw, "|", ub, "(ours, fs):", diff)
print("positions", len(rows), "mismatches", bad)
sys.exit(1 if bad else 0)
