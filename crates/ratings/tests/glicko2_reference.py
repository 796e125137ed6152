#!/usr/bin/env python3
"""An independent Glicko-2 (Glickman's "Example of the Glicko-2 system", steps 1-8), for the
reference figures of the Rust tests: `python3 glicko2_reference.py` prints the paper's example
and the four-place game of `a_four_place_update` (places 1, 2, 2, 4; a shared place scores 0.5)."""
import math

SCALE = 173.7178


def update(player, games, tau=0.5, periods=1.0):
    r, rd, sigma = player
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    g = lambda p: 1 / math.sqrt(1 + 3 * p * p / math.pi ** 2)
    v_inv, s = 0.0, 0.0
    for (rj, rdj, _), score in games:
        muj, phij = (rj - 1500) / SCALE, rdj / SCALE
        e = 1 / (1 + math.exp(-g(phij) * (mu - muj)))
        v_inv += g(phij) ** 2 * e * (1 - e)
        s += g(phij) * (score - e)
    v = 1 / v_inv
    delta = v * s
    a = math.log(sigma ** 2)

    def f(x):
        ex = math.exp(x)
        return ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2) - (x - a) / tau ** 2

    A = a
    if delta ** 2 > phi ** 2 + v:
        B = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fa, fb = f(A), f(B)
    while abs(B - A) > 0.000001:
        C = A + (A - B) * fa / (fb - fa)
        fc = f(C)
        if fc * fb <= 0:
            A, fa = B, fb
        else:
            fa /= 2
        B, fb = C, fc
    sigma2 = math.exp(A / 2)
    phistar = math.sqrt(phi ** 2 + periods * sigma2 ** 2)
    phi2 = 1 / math.sqrt(1 / phistar ** 2 + 1 / v)
    mu2 = mu + phi2 ** 2 * s
    return (mu2 * SCALE + 1500, phi2 * SCALE, sigma2)


print("paper:", update((1500, 200, 0.06), [((1400, 30, 0.06), 1), ((1550, 100, 0.06), 0), ((1700, 300, 0.06), 0)]))
players = [(1600, 120, 0.06), (1500, 200, 0.06), (1450, 80, 0.06), (1700, 300, 0.06)]
places = [1, 2, 2, 4]
score = lambda a, b: 1.0 if a < b else 0.5 if a == b else 0.0
for i, p in enumerate(players):
    games = [(players[j], score(places[i], places[j])) for j in range(4) if j != i]
    print(i, "(%.4f, %.4f, %.6f)" % update(p, games))
