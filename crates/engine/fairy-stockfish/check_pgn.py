"""Checks PGN exported by maharajah-engine against Fairy-Stockfish (pip install pyffish).

Reads a JSON list of games on standard input, each `{"pgn": TEXT, "uci": [MOVES]}` (the moves of
the PGN in UCI notation, as our engine played them). For each game it takes the start from the FEN
tag: `[Variant "Maharajah"]` games play a per-game section of `maharajah39` (variants.ini beside
this file) whose promotion sets and double-step regions come from the extended FEN's status and
unmoved-pawn fields; `[Variant "From Position"]` and untagged games play Fairy-Stockfish's own
chess. Every move must be legal there, and its SAN in the PGN must be what Fairy-Stockfish writes
for it.

usage: python3 check_pgn.py [VARIANTS_INI] < games.json     exit 0 when every move agrees
"""
import json
import os
import re
import sys

import pyffish

here = os.path.dirname(os.path.abspath(__file__))
ini_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "variants.ini")
base = open(ini_path).read()
games = json.load(sys.stdin)
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def parse(pgn):
    tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', pgn, re.M))
    body = "\n".join(l for l in pgn.splitlines() if not l.startswith("["))
    sans = [
        t
        for t in body.split()
        if not re.fullmatch(r"\d+\.+", t) and t not in ("1-0", "0-1", "1/2-1/2", "*")
    ]
    return tags, sans


def squares(field):
    return [] if field == "-" else [field[i : i + 2] for i in range(0, len(field), 2)]


sections = []
plans = []
for i, game in enumerate(games):
    tags, sans = parse(game["pgn"])
    if len(sans) != len(game["uci"]):
        print(f"game {i}: {len(sans)} SAN moves in the PGN, {len(game['uci'])} played")
        sys.exit(1)
    sans = list(zip(sans, game["uci"]))
    fen = tags.get("FEN", START)
    variant = tags.get("Variant", "chess")
    if variant == "Maharajah":
        fields = fen.split()
        status, unmoved = fields[6], fields[7]
        promo = {"c": "qrbn", "v": "qrbnmca"}
        white = " ".join(s for s in squares(unmoved) if s[1] in "1234") or "-"
        black = " ".join(s for s in squares(unmoved) if s[1] in "5678") or "-"
        sections.append(
            f"\n[game{i}:maharajah39]\npromotionPieceTypesWhite = {promo[status[0]]}\n"
            f"promotionPieceTypesBlack = {promo[status[1]]}\n"
            f"doubleStepRegionWhite = {white}\ndoubleStepRegionBlack = {black}\n"
        )
        plans.append((f"game{i}", " ".join(fields[:6]), sans))
    elif variant in ("From Position", "chess"):
        plans.append(("chess", fen, sans))
    else:
        print(f"game {i}: variant {variant!r} is not one this check knows")
        sys.exit(2)
pyffish.load_variant_config(base + "".join(sections))

bad = 0
moves_checked = 0
for i, (variant, fen, sans) in enumerate(plans):
    played = []
    for ply, (san, uci) in enumerate(sans, 1):
        current = pyffish.get_fen(variant, fen, played)
        legal = pyffish.legal_moves(variant, current, [])
        theirs = pyffish.get_san(variant, current, uci) if uci in legal else None
        if theirs != san:
            bad += 1
            why = "is not legal" if theirs is None else f"is {theirs} there"
            print(f"game {i} ({variant}) ply {ply}: {san} ({uci}) {why} in {current}")
            break
        played.append(uci)
        moves_checked += 1
print(f"games {len(plans)} moves {moves_checked} disagreements {bad}")
sys.exit(1 if bad else 0)
