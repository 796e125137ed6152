//! The room's side of the verifiable dice ([`maharajah_chaturaji::fair`]): collecting the seated
//! devices' commitments, asking every party for its link at each roll, dropping a party that
//! misses the window. Pure: time comes in as `now`; the room's own chain comes from its secret
//! key. The wire side is documented in [`maharajah_protocol::chaturaji`].

use maharajah_chaturaji::fair::{DiceProof, HashChain, Link, Party};
use maharajah_chaturaji::{BySeat, Seat};
use maharajah_engine::clock::Millis;
use maharajah_protocol::chaturaji::{seat_party, ChaturajiAction, ROOM_PARTY};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The seed of the room's hash chain for game `game`: `SHA-256(tag ‖ key ‖ game)`. The key is
/// drawn from the operating system's random source when the room is created and never leaves
/// the server's store, so nobody else can compute the room's links before they are revealed.
pub(crate) fn room_seed(key: &Link, game: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"chaturaji-room-chain");
    h.update(key.0);
    h.update(game.to_be_bytes());
    h.finalize().into()
}

/// A roll the room is gathering links for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingRoll {
    /// The seat that rolls.
    pub seat: Seat,
    /// The person's action (a `roll`), or `None` when the room rolls for the seat.
    pub person: Option<ChaturajiAction>,
    /// The game step the roll was asked at (its ack names it).
    pub step: u32,
    /// The roll, from 1.
    pub roll: u32,
    /// Per party: the link received; the room's own is filled in when the reveals open.
    pub links: Vec<Option<Link>>,
    /// Per party: whether the room still waits for it.
    pub waiting: Vec<bool>,
    /// The reveals were asked for (`reveal_requested` sent); false while commitments are
    /// still being collected.
    pub open: bool,
}

/// The verifiable dice of the current game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomDice {
    /// The commitments received from person seats while the window is open.
    pub commits: BySeat<Option<Link>>,
    /// Who the parties are once fixed: `None` for the room, then the seats, in proof order.
    pub parties: Option<Vec<Option<Seat>>>,
    /// The roll in progress, if any.
    pub pending: Option<PendingRoll>,
    /// When the commit window closes (reset to a full window after a restart).
    #[serde(skip)]
    pub commit_deadline: Millis,
    /// When the reveal window of the pending roll closes.
    #[serde(skip)]
    pub reveal_deadline: Millis,
}

impl RoomDice {
    /// The dice of a game that starts at `now`: commitments are collected until `deadline`.
    pub fn new(deadline: Millis) -> RoomDice {
        RoomDice {
            commits: BySeat::splat(None),
            parties: None,
            pending: None,
            commit_deadline: deadline,
            reveal_deadline: deadline,
        }
    }

    /// Whether commitments are still being collected.
    pub fn is_committing(&self) -> bool {
        self.parties.is_none()
    }

    /// The proof of the parties, from the room's commitment and the seats' (in seat order).
    /// Fixes the parties.
    pub fn fix(&mut self, room: Link, length: u32) -> DiceProof {
        let mut parties = vec![None];
        let mut proof = vec![Party { name: ROOM_PARTY.to_owned(), commitment: room }];
        for seat in Seat::ALL {
            if let Some(commitment) = self.commits[seat] {
                parties.push(Some(seat));
                proof.push(Party { name: seat_party(seat), commitment });
            }
        }
        self.parties = Some(parties);
        DiceProof::new(length, proof)
    }

    /// The party index of `seat`, once the parties are fixed.
    pub fn party_of(&self, seat: Seat) -> Option<usize> {
        self.parties.as_ref()?.iter().position(|p| *p == Some(seat))
    }

    /// The room's chain for game `game`.
    pub fn room_chain(key: &Link, game: u32, length: u32) -> HashChain {
        HashChain::new(room_seed(key, game), length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_chain_is_secret_per_key_and_game() {
        let (a, b) = (Link([1; 32]), Link([2; 32]));
        let c = |k: &Link, g| RoomDice::room_chain(k, g, 4).commitment();
        assert_eq!(c(&a, 1), c(&a, 1), "a restart rebuilds the same chain");
        assert_ne!(c(&a, 1), c(&a, 2), "each game has its own chain");
        assert_ne!(c(&a, 1), c(&b, 1), "another key gives another chain");
    }
}
