//! Verifiable dice for networked tables: hash-chain commitments, one revealed link per party and
//! turn, rolls derived from every link of the turn. Pure: the seeds come from the caller.
//!
//! # Construction
//! 1. **Commit.** Before the game, every party (each seated device, and the room for its CPU
//!    seats) draws a secret 32-byte seed `s` and builds a hash chain of `n` links:
//!    `x_n = s`, `x_{i-1} = SHA-256(x_i)`, down to the **commitment** `x_0`. It publishes `x_0`
//!    only. `n` is the most rolls a game can have (one per turn: `4 × round_limit`,
//!    [`chain_length`]). Every commitment is fixed and known to everyone before any link is
//!    revealed.
//! 2. **Reveal.** For turn `t` (the `t`-th roll of the game, from 1) every party reveals its link
//!    `x_t`. Everyone checks `SHA-256(x_t) == x_{t-1}`, the party's previous link (the
//!    commitment for `t = 1`). A link that does not check is refused ([`DiceError::BadLink`]).
//! 3. **Roll.** The roll of turn `t` is derived from every link revealed for it, in party order:
//!    `r = SHA-256("chaturaji-roll" ‖ t ‖ x_t(p1) ‖ x_t(p2) ‖ …)`, extended by
//!    `SHA-256(r ‖ k)` blocks, read byte by byte and mapped to faces by rejection sampling:
//!    a byte `b` gives face `b mod 6 + 1` only if `b < 252` (cubic dice; long dice use
//!    `b mod 4 + 2`, `256` being a multiple of 4), so every face is exactly equally likely
//!    ([`faces_from_links`]).
//!
//! # Why nobody can choose or foresee a roll
//! * A party's links are fixed by its commitment: a different `x_t` would need a second SHA-256
//!   preimage of `x_{t-1}`. So after the commitments nobody can change its contribution.
//! * A party that picks its seed after seeing the others' commitments learns nothing from them:
//!   the commitments hide the links (preimage resistance), and the roll needs the links.
//! * Link `x_t` is revealed only at turn `t`, and `x_{t-1}` does not give it away, so a roll is
//!   unknown to everyone until the turn's links are out: no player can plan for the coming dice.
//! * Every client holds a [`Verifier`] and checks every link and every roll itself.
//!
//! # A party that does not reveal in time
//! The room gives each turn a reveal deadline. A party that misses it is **dropped from the dice
//! for the rest of the game** ([`Verifier::roll`] with `None` for it): the turn's roll is derived
//! from the other parties' links, and its later links are refused. A dropped device's seat is
//! played by its CPU stand-in, whose dice come from the remaining parties like every roll: no
//! one picks them. While at least one party is honest, the rolls stay uniform and unforeseeable.
//!
//! **What an abort can buy.** The last party to reveal at turn `t` may already know the roll
//! its link gives and can withhold the link to get the roll without it instead. That is a choice
//! between two rolls, once per party per game (it is dropped afterwards): an outcome of
//! probability `p` per roll becomes at most `1 − (1 − p)² = 2p − p²` likely on that one turn
//! (a double six, `p = 1/36`: at most 5.5 % instead of 2.8 %), and never more than that on any
//! other turn. With `k` parties, at most `k − 1` such choices per game. The same holds for the
//! room: it is a party like the others, and it runs identically on the online server and on the
//! LAN host.
//!
//! # Records
//! A game record keeps the commitments and every turn's revealed links ([`DiceProof`]); the
//! `chaturaji` replay program re-verifies every link and every roll and reports the first that
//! does not verify.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::dice::DiceKind;
use crate::settings::Settings;

/// One link of a hash chain (also a commitment: link 0).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Link(pub [u8; 32]);

impl Link {
    /// The previous link of the chain: `SHA-256(self)`.
    #[must_use]
    pub fn previous(&self) -> Link {
        Link(Sha256::digest(self.0).into())
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Link({self})")
    }
}

/// A link that is not 64 hexadecimal digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a link is 64 hexadecimal digits, not {0:?}")]
pub struct ParseLinkError(pub String);

impl std::str::FromStr for Link {
    type Err = ParseLinkError;
    fn from_str(s: &str) -> Result<Link, ParseLinkError> {
        let bad = || ParseLinkError(s.to_owned());
        if s.len() != 64 || !s.is_ascii() {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Link(out))
    }
}

impl Serialize for Link {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Link {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Link, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The most rolls a game with these settings can have: one per turn, `4 × round_limit`.
#[must_use]
pub fn chain_length(settings: &Settings) -> u32 {
    settings.round_limit.saturating_mul(4)
}

/// A party's secret hash chain. Only [`HashChain::commitment`] is published before the game;
/// [`HashChain::link`] is revealed turn by turn.
#[derive(Clone)]
pub struct HashChain {
    /// `links[i]` is link `i`; `links[0]` is the commitment.
    links: Vec<Link>,
}

impl fmt::Debug for HashChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The secret links are not printed.
        write!(f, "HashChain {{ commitment: {}, length: {} }}", self.commitment(), self.length())
    }
}

impl HashChain {
    /// The chain of `length` links ending in the secret `seed` (draw it from a cryptographic
    /// random source).
    #[must_use]
    pub fn new(seed: [u8; 32], length: u32) -> HashChain {
        let mut links = vec![Link(seed)];
        for _ in 0..length {
            let before = links[links.len() - 1].previous();
            links.push(before);
        }
        links.reverse();
        HashChain { links }
    }

    /// Link 0, published before the game.
    #[must_use]
    pub fn commitment(&self) -> Link {
        self.links[0]
    }

    /// How many links can be revealed (rolls it covers).
    #[must_use]
    pub fn length(&self) -> u32 {
        (self.links.len() - 1) as u32
    }

    /// The link to reveal for roll `turn` (from 1), or `None` past the chain's end.
    #[must_use]
    pub fn link(&self, turn: u32) -> Option<Link> {
        (turn >= 1).then(|| self.links.get(turn as usize).copied()).flatten()
    }
}

/// Why a turn's links do not give a roll.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum DiceError {
    /// A party's link does not hash to its previous link: forged or tampered.
    #[error("roll {turn}: the link of party {party} does not verify against its previous link")]
    BadLink {
        /// The party's index.
        party: usize,
        /// The roll, from 1.
        turn: u32,
    },
    /// A party dropped earlier revealed a link again.
    #[error("roll {turn}: party {party} was dropped from the dice and may not reveal again")]
    Dropped {
        /// The party's index.
        party: usize,
        /// The roll, from 1.
        turn: u32,
    },
    /// The turn lists a different number of links than there are parties.
    #[error("roll {turn}: {given} links given for {parties} parties")]
    WrongCount {
        /// The roll, from 1.
        turn: u32,
        /// Links given.
        given: usize,
        /// Parties committed.
        parties: usize,
    },
    /// No party is left to reveal.
    #[error("roll {turn}: every party has been dropped, no fair roll is possible")]
    NoParty {
        /// The roll, from 1.
        turn: u32,
    },
    /// More rolls than the chains cover.
    #[error("roll {turn}: the chains cover only {length} rolls")]
    ChainExhausted {
        /// The roll, from 1.
        turn: u32,
        /// The chain length.
        length: u32,
    },
}

/// The two faces of roll `turn` from the links revealed for it (in party order, absent parties
/// left out), by rejection sampling: every face is exactly equally likely.
#[must_use]
pub fn faces_from_links(turn: u32, links: &[Link], kind: DiceKind) -> [u8; 2] {
    let mut hasher = Sha256::new();
    hasher.update(b"chaturaji-roll");
    hasher.update(turn.to_be_bytes());
    for link in links {
        hasher.update(link.0);
    }
    let root: [u8; 32] = hasher.finalize().into();
    let (sides, low, limit) = match kind {
        DiceKind::Cubic => (6u8, 1u8, 252u8),
        DiceKind::Long => (4, 2, 0),
    };
    let mut faces = [0u8; 2];
    let mut found = 0;
    let mut block = root;
    let mut counter = 0u32;
    loop {
        for &b in &block {
            // limit 0 means every byte is accepted (256 is a multiple of the sides).
            if limit == 0 || b < limit {
                faces[found] = b % sides + low;
                found += 1;
                if found == 2 {
                    return faces;
                }
            }
        }
        counter += 1;
        let mut next = Sha256::new();
        next.update(root);
        next.update(counter.to_be_bytes());
        block = next.finalize().into();
    }
}

/// What every client keeps to check the dice: each party's last verified link and whether it
/// was dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verifier {
    kind: DiceKind,
    length: u32,
    /// Per party: its last verified link, `None` once dropped.
    last: Vec<Option<Link>>,
    /// Rolls verified so far.
    turn: u32,
}

impl Verifier {
    /// A verifier from every party's commitment (all of them, fixed before the first reveal).
    #[must_use]
    pub fn new(commitments: &[Link], length: u32, kind: DiceKind) -> Verifier {
        Verifier { kind, length, last: commitments.iter().copied().map(Some).collect(), turn: 0 }
    }

    /// Rolls verified so far.
    #[must_use]
    pub fn rolls(&self) -> u32 {
        self.turn
    }

    /// Whether party `index` still contributes to the dice.
    #[must_use]
    pub fn is_active(&self, index: usize) -> bool {
        self.last.get(index).is_some_and(Option::is_some)
    }

    /// Verifies the links of the next roll (`None` for a party that did not reveal in time: it
    /// is dropped for good) and returns the two faces. On an error nothing changes.
    ///
    /// # Errors
    /// [`DiceError`]: a link that does not verify, a dropped party revealing, the wrong number
    /// of links, no party left, or a roll past the chains' end.
    pub fn roll(&mut self, links: &[Option<Link>]) -> Result<[u8; 2], DiceError> {
        let turn = self.turn + 1;
        if links.len() != self.last.len() {
            return Err(DiceError::WrongCount {
                turn,
                given: links.len(),
                parties: self.last.len(),
            });
        }
        if turn > self.length {
            return Err(DiceError::ChainExhausted { turn, length: self.length });
        }
        for (party, (link, last)) in links.iter().zip(&self.last).enumerate() {
            match (link, last) {
                (Some(_), None) => return Err(DiceError::Dropped { party, turn }),
                (Some(link), Some(last)) if link.previous() != *last => {
                    return Err(DiceError::BadLink { party, turn })
                }
                _ => {}
            }
        }
        let present: Vec<Link> = links.iter().flatten().copied().collect();
        if present.is_empty() {
            return Err(DiceError::NoParty { turn });
        }
        for (link, last) in links.iter().zip(self.last.iter_mut()) {
            *last = *link;
        }
        self.turn = turn;
        Ok(faces_from_links(turn, &present, self.kind))
    }
}

/// One committed party of a verified-dice game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Party {
    /// Who it is (`room`, a seat, a device name): for people reading the record.
    pub name: String,
    /// Its chain's link 0.
    pub commitment: Link,
}

/// Everything needed to re-verify a game's dice: the commitments and every roll's links.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiceProof {
    /// Chain length (the most rolls covered).
    pub length: u32,
    /// The parties, in the order their links are listed and hashed.
    pub parties: Vec<Party>,
    /// Per roll, in order: each party's revealed link, `null` for a party that did not reveal.
    #[serde(default)]
    pub rolls: Vec<Vec<Option<Link>>>,
}

impl DiceProof {
    /// A proof with the parties' commitments and no roll yet.
    #[must_use]
    pub fn new(length: u32, parties: Vec<Party>) -> DiceProof {
        DiceProof { length, parties, rolls: Vec::new() }
    }

    /// Per party, the link its next reveal must hash to (its last revealed link, or its
    /// commitment), or `None` once it has been dropped from the dice.
    #[must_use]
    pub fn last_links(&self) -> Vec<Option<Link>> {
        let mut last: Vec<Option<Link>> = self.parties.iter().map(|p| Some(p.commitment)).collect();
        for roll in &self.rolls {
            for (slot, link) in last.iter_mut().zip(roll) {
                *slot = slot.and(*link);
            }
        }
        last
    }

    /// A fresh verifier for these commitments.
    #[must_use]
    pub fn verifier(&self, kind: DiceKind) -> Verifier {
        let commitments: Vec<Link> = self.parties.iter().map(|p| p.commitment).collect();
        Verifier::new(&commitments, self.length, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(byte: u8) -> HashChain {
        HashChain::new([byte; 32], 20)
    }

    #[test]
    fn links_hash_back_to_the_commitment() {
        let c = chain(1);
        assert_eq!(c.length(), 20);
        assert_eq!(c.link(1).map(|l| l.previous()), Some(c.commitment()));
        assert_eq!(c.link(20), Some(Link([1; 32])), "the last link is the seed");
        assert_eq!((c.link(0), c.link(21)), (None, None));
        let text = c.commitment().to_string();
        assert_eq!(text.parse::<Link>(), Ok(c.commitment()));
        assert!("xyz".parse::<Link>().is_err());
        assert!(!format!("{c:?}").contains(&Link([1; 32]).to_string()), "the seed stays secret");
    }

    #[test]
    fn a_tampered_link_is_detected_and_changes_nothing() {
        let (a, b) = (chain(1), chain(2));
        let mut v = Verifier::new(&[a.commitment(), b.commitment()], 20, DiceKind::Cubic);
        v.roll(&[a.link(1), b.link(1)]).expect("honest roll");
        let mut forged = b.link(2).expect("link");
        forged.0[7] ^= 1;
        let before = v.clone();
        assert_eq!(
            v.roll(&[a.link(2), Some(forged)]),
            Err(DiceError::BadLink { party: 1, turn: 2 })
        );
        assert_eq!(v, before);
        // Replaying an old link, or skipping one, does not verify either.
        assert_eq!(v.roll(&[a.link(1), b.link(2)]), Err(DiceError::BadLink { party: 0, turn: 2 }));
        assert_eq!(v.roll(&[a.link(3), b.link(2)]), Err(DiceError::BadLink { party: 0, turn: 2 }));
        assert!(v.roll(&[a.link(2), b.link(2)]).is_ok());
    }

    #[test]
    fn faces_are_uniform_without_modulo_bias() {
        // Every byte value once: cubic dice accept 252 of 256, 42 per face.
        let mut counts = [0u32; 7];
        for b in 0..=255u8 {
            if b < 252 {
                counts[usize::from(b % 6 + 1)] += 1;
            }
        }
        assert_eq!(&counts[1..], &[42; 6]);
        // Over many derived rolls every face appears, in range, about equally often.
        let mut seen = [0u32; 7];
        for turn in 1..=6000 {
            for face in faces_from_links(turn, &[Link([9; 32])], DiceKind::Cubic) {
                seen[usize::from(face)] += 1;
            }
        }
        assert_eq!(seen[0], 0);
        assert!(seen[1..].iter().all(|&n| (1850..2150).contains(&n)), "{seen:?}");
        for turn in 1..200 {
            let [x, y] = faces_from_links(turn, &[Link([3; 32])], DiceKind::Long);
            assert!((2..=5).contains(&x) && (2..=5).contains(&y));
        }
    }

    #[test]
    fn no_single_party_chooses_a_roll_after_the_commitments() {
        // Commit before reveal: the verifier is built from every commitment at once, and from
        // then on each party's links are fixed. A party that knows the others' commitments and
        // grinds its own seed cannot steer the roll: the roll depends on the others' links,
        // which their commitments do not reveal. Here party B tries several seeds against A's
        // commitment; for each, A's link (unknown to B) decides the roll: over 400 possible A
        // chains every B seed still meets every one of the 36 outcomes.
        let b_seeds: Vec<HashChain> = (0..4u8).map(|i| HashChain::new([i; 32], 1)).collect();
        for b in &b_seeds {
            let mut outcomes = std::collections::BTreeSet::new();
            for a_seed in 0..400u32 {
                let mut seed = [0u8; 32];
                seed[..4].copy_from_slice(&a_seed.to_be_bytes());
                let a = HashChain::new(seed, 1);
                let mut v = Verifier::new(&[a.commitment(), b.commitment()], 1, DiceKind::Cubic);
                outcomes.insert(v.roll(&[a.link(1), b.link(1)]).expect("honest"));
            }
            assert_eq!(outcomes.len(), 36, "B's seed alone fixes nothing");
        }
        // After the commitments, the only links a party can reveal are its chain's: having
        // seen A's link, B cannot swap in a link of another seed.
        let (a, b) = (chain(5), chain(6));
        let other = chain(7);
        let mut v = Verifier::new(&[a.commitment(), b.commitment()], 20, DiceKind::Cubic);
        assert_eq!(
            v.roll(&[a.link(1), other.link(1)]),
            Err(DiceError::BadLink { party: 1, turn: 1 })
        );
        // And the roll changes with every party's link: one party's link alone never fixes it.
        let with =
            faces_from_links(1, &[a.link(1).expect("l"), b.link(1).expect("l")], DiceKind::Cubic);
        let turns: Vec<[u8; 2]> = (1..=20)
            .map(|t| {
                faces_from_links(
                    t,
                    &[a.link(t).expect("l"), b.link(1).expect("l")],
                    DiceKind::Cubic,
                )
            })
            .collect();
        assert!(turns.iter().any(|f| *f != with));
    }

    #[test]
    fn a_party_that_misses_its_reveal_is_dropped_for_good() {
        let (a, b, c) = (chain(1), chain(2), chain(3));
        let mut v =
            Verifier::new(&[a.commitment(), b.commitment(), c.commitment()], 20, DiceKind::Cubic);
        v.roll(&[a.link(1), b.link(1), c.link(1)]).expect("all reveal");
        // C misses roll 2: the roll comes from A and B alone.
        let faces = v.roll(&[a.link(2), b.link(2), None]).expect("without C");
        let links = [a.link(2).expect("l"), b.link(2).expect("l")];
        assert_eq!(faces, faces_from_links(2, &links, DiceKind::Cubic));
        assert!(!v.is_active(2));
        // C may not come back to the dice (that would let it choose twice).
        assert_eq!(
            v.roll(&[a.link(3), b.link(3), c.link(3)]),
            Err(DiceError::Dropped { party: 2, turn: 3 })
        );
        assert!(v.roll(&[a.link(3), b.link(3), None]).is_ok());
        assert_eq!(v.roll(&[None, None, None]), Err(DiceError::NoParty { turn: 4 }));
        assert_eq!(v.roll(&[None]), Err(DiceError::WrongCount { turn: 4, given: 1, parties: 3 }));
    }

    #[test]
    fn the_chains_cover_a_whole_game() {
        assert_eq!(chain_length(&Settings::default()), 120);
        let a = HashChain::new([4; 32], 2);
        let mut v = Verifier::new(&[a.commitment()], 2, DiceKind::Long);
        v.roll(&[a.link(1)]).expect("1");
        v.roll(&[a.link(2)]).expect("2");
        assert_eq!(v.roll(&[a.link(2)]), Err(DiceError::ChainExhausted { turn: 3, length: 2 }));
    }
}
