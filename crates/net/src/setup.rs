//! The client side of the fair hidden lock-in (maharajah.md §5, issue 8 §3).
//!
//! Each device commits to `SHA-256(domain || canonical army || "\n" || nonce)` with a fresh
//! 32-byte random nonce ([`maharajah_protocol::army::commitment`]) before it sees anything of
//! the other army. [`HiddenSetup`] watches the room events and lets the army out
//! ([`HiddenSetup::reveal`]) only once its own commitment and the opponent's are both fixed and
//! the room has opened the reveal — so even a modified host, which sees our reveal first, has
//! already bound itself to its own army. When the game starts, both published armies are checked:
//! ours must be exactly what we committed to, the opponent's must obey the army rules (checked
//! with the engine) and, when the opening nonce is available, open the opponent's commitment.
//! Anything else is refused with a [`RevealError`] naming what went wrong.

use maharajah_protocol::army::{
    canonical_army, check_army, commitment, normalize_commitment, opens, parse_nonce, NONCE_BYTES,
};
use maharajah_protocol::{ByColor, Color, RoomEvent, Snapshot};
use rand::RngCore;

/// Why a local setup step cannot be taken (nothing was sent).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// Our own army breaks the army rules.
    #[error("this army cannot be used: {0}")]
    InvalidArmy(String),
    /// Revealing before our commitment is stored.
    #[error("the army cannot be revealed before its commitment is stored")]
    NotCommitted,
    /// Revealing before the opponent's commitment is fixed would let them tailor their army.
    #[error("the army stays hidden until the opponent has committed to theirs")]
    OpponentNotCommitted,
    /// The room has not opened the reveal yet.
    #[error("the room has not opened the reveal yet")]
    RevealNotOpen,
}

/// Why the opponent's (or the host's) setup is refused. The game must not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RevealError {
    /// The opponent's army does not open the commitment it sent.
    #[error("the {0:?} army does not match the commitment it locked in: it was changed after the lock-in")]
    CommitmentMismatch(Color),
    /// The opponent's army breaks the army rules.
    #[error("the {seat:?} army breaks the army rules: {reason}")]
    InvalidArmy {
        /// Whose army.
        seat: Color,
        /// The engine's words.
        reason: String,
    },
    /// The army published for our seat is not the one we committed to.
    #[error("the host published a different army for this device than the one it locked in")]
    OwnArmyAltered,
    /// The opponent's commitment arrived (or changed) after the reveal was open.
    #[error("the {0:?} commitment came too late: after the reveal was opened")]
    LateCommitment(Color),
    /// The opponent sent our own commitment back as theirs.
    #[error("the opponent copied this device's commitment")]
    CopiedCommitment,
    /// The game started without a commitment from the opponent having been seen.
    #[error("the game started before the opponent's army was locked in")]
    NoCommitment,
    /// The game started without both armies.
    #[error("the game started without publishing both armies")]
    MissingArmies,
    /// An army or nonce is not well-formed text.
    #[error("malformed setup data: {0}")]
    Malformed(String),
}

/// What the start of the game proved about the opponent's army.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedStart {
    /// The opponent's army (canonical text).
    pub opponent_army: String,
    /// True when the opponent's nonce was available (the room's `armies_opened`) and the army
    /// opened its commitment; false when this client only saw the start (e.g. resynced by
    /// snapshot after the opening), so only the army rules were checked (see the crate README).
    pub commitment_checked: bool,
}

/// One device's hidden setup: its army, nonce and commitment, and what it has seen of the other.
#[derive(Clone, Debug)]
pub struct HiddenSetup {
    seat: Color,
    army: String,
    nonce: [u8; NONCE_BYTES],
    commitment: String,
    own_committed: bool,
    opponent_commitment: Option<String>,
    reveal_open: bool,
    revealed: bool,
    /// The armies the room opened (with both nonces) and what checking them proved; the
    /// `game_started` that follows must publish the same armies.
    opened: Option<(ByColor<String>, VerifiedStart)>,
}

/// Checks an army (protocol text) for `color` with the engine's army rules; returns it canonical.
///
/// # Errors
///
/// The reason, in the engine's words.
pub fn validate_army(color: Color, text: &str) -> Result<String, String> {
    check_army(color, text).map_err(|e| e.to_string())
}

impl HiddenSetup {
    /// Prepares the setup of `seat` with `army`, drawing a fresh nonce from the thread's
    /// cryptographic generator.
    ///
    /// # Errors
    ///
    /// [`SetupError::InvalidArmy`] if the army breaks the army rules.
    pub fn new(seat: Color, army: &str) -> Result<HiddenSetup, SetupError> {
        let mut nonce = [0u8; NONCE_BYTES];
        rand::rng().fill_bytes(&mut nonce);
        HiddenSetup::with_nonce(seat, army, nonce)
    }

    /// As [`HiddenSetup::new`] with a given nonce (tests; never reuse a nonce in play).
    ///
    /// # Errors
    ///
    /// As [`HiddenSetup::new`].
    pub fn with_nonce(
        seat: Color,
        army: &str,
        nonce: [u8; NONCE_BYTES],
    ) -> Result<HiddenSetup, SetupError> {
        let army = validate_army(seat, army).map_err(SetupError::InvalidArmy)?;
        let commitment =
            commitment(&army, &nonce).map_err(|e| SetupError::InvalidArmy(e.to_string()))?;
        Ok(HiddenSetup {
            seat,
            army,
            nonce,
            commitment,
            own_committed: false,
            opponent_commitment: None,
            reveal_open: false,
            revealed: false,
            opened: None,
        })
    }

    /// The seat.
    pub fn seat(&self) -> Color {
        self.seat
    }

    /// Our army, canonical.
    pub fn army(&self) -> &str {
        &self.army
    }

    /// The commitment to send (64 hex digits).
    pub fn commitment(&self) -> &str {
        &self.commitment
    }

    /// The opponent's commitment, once seen.
    pub fn opponent_commitment(&self) -> Option<&str> {
        self.opponent_commitment.as_deref()
    }

    /// Whether [`HiddenSetup::reveal`] would succeed now.
    pub fn is_ready_to_reveal(&self) -> bool {
        self.reveal().is_ok()
    }

    /// Feeds the room state after a resync by snapshot: the commitments it lists are checked as
    /// if their `committed` events had been seen, and once it carries both armies and nonces the
    /// opponent's army is checked against its commitment. Returns the verified start when the
    /// snapshot shows a game that already started.
    ///
    /// # Errors
    ///
    /// As [`HiddenSetup::observe`]: our own commitment listed differently, an opponent commitment
    /// that changed, copies ours, or is not opened by the published army and nonce.
    pub fn observe_snapshot(&mut self, s: &Snapshot) -> Result<Option<VerifiedStart>, RevealError> {
        let other = self.seat.other();
        if let Some(own) = s.commitments.get(self.seat) {
            if !own.eq_ignore_ascii_case(&self.commitment) {
                return Err(RevealError::OwnArmyAltered);
            }
        }
        if s.seats.get(self.seat).committed {
            self.own_committed = true;
        }
        if let Some(theirs) = s.commitments.get(other) {
            let c =
                normalize_commitment(theirs).map_err(|e| RevealError::Malformed(e.to_string()))?;
            if self.opponent_commitment.as_ref().is_some_and(|old| *old != c) {
                return Err(RevealError::LateCommitment(other));
            }
            if c == self.commitment {
                return Err(RevealError::CopiedCommitment);
            }
            self.opponent_commitment = Some(c);
        }
        let both = s.seats.white.committed && s.seats.black.committed;
        if both && s.phase == maharajah_protocol::Phase::Setup {
            self.reveal_open = true;
        }
        match (&s.armies, &s.nonces) {
            (Some(armies), Some(nonces)) if self.opponent_commitment.is_some() => {
                let verified = self.verify_start(armies, Some(nonces))?;
                self.opened = Some((armies.clone(), verified.clone()));
                Ok(s.start_fen.as_ref().map(|_| verified))
            }
            (Some(armies), _) if s.start_fen.is_some() => self.verify_start(armies, None).map(Some),
            _ => Ok(None),
        }
    }

    /// Feeds one room event. Returns the verified start on `game_started`.
    ///
    /// # Errors
    ///
    /// [`RevealError`] when the opponent's commitment comes late or is a copy, or when the
    /// published armies do not stand the checks of [`HiddenSetup::verify_start`].
    pub fn observe(&mut self, event: &RoomEvent) -> Result<Option<VerifiedStart>, RevealError> {
        match event {
            RoomEvent::Committed { seat, commitment } if *seat == self.seat => {
                if commitment.eq_ignore_ascii_case(&self.commitment) {
                    self.own_committed = true;
                } else {
                    return Err(RevealError::OwnArmyAltered);
                }
            }
            RoomEvent::Committed { seat, commitment } => {
                let c = normalize_commitment(commitment)
                    .map_err(|e| RevealError::Malformed(e.to_string()))?;
                if self.reveal_open || self.revealed {
                    return Err(RevealError::LateCommitment(*seat));
                }
                if let Some(old) = &self.opponent_commitment {
                    if *old != c {
                        return Err(RevealError::LateCommitment(*seat));
                    }
                }
                if c == self.commitment {
                    return Err(RevealError::CopiedCommitment);
                }
                self.opponent_commitment = Some(c);
            }
            RoomEvent::RevealOpen => self.reveal_open = true,
            RoomEvent::ArmiesOpened { armies, nonces } => {
                let verified = self.verify_start(armies, Some(nonces))?;
                self.opened = Some((armies.clone(), verified));
            }
            RoomEvent::SetupRejected { .. } => {
                // Setup starts over: a new army and a new nonce are needed (a new HiddenSetup).
                self.own_committed = false;
                self.opponent_commitment = None;
                self.reveal_open = false;
                self.revealed = false;
                self.opened = None;
            }
            RoomEvent::GameStarted { armies, .. } => {
                let armies = armies.as_ref().ok_or(RevealError::MissingArmies)?;
                return match &self.opened {
                    // The armies were opened with their nonces: the game must start with them.
                    Some((opened, verified)) => {
                        let same = |c: Color| {
                            canonical_army(opened.get(c)).ok() == canonical_army(armies.get(c)).ok()
                        };
                        if !same(self.seat) {
                            Err(RevealError::OwnArmyAltered)
                        } else if !same(self.seat.other()) {
                            Err(RevealError::CommitmentMismatch(self.seat.other()))
                        } else {
                            Ok(Some(verified.clone()))
                        }
                    }
                    // Resynced past the opening (snapshot): the rules are still checked.
                    None => self.verify_start(armies, None).map(Some),
                };
            }
            _ => {}
        }
        Ok(None)
    }

    /// The army and the nonce (hex) to send in `reveal`, only once both commitments are fixed
    /// and the room has opened the reveal. Marks the army as revealed.
    ///
    /// # Errors
    ///
    /// [`SetupError::NotCommitted`], [`SetupError::OpponentNotCommitted`],
    /// [`SetupError::RevealNotOpen`].
    pub fn reveal(&self) -> Result<(String, String), SetupError> {
        if !self.own_committed {
            return Err(SetupError::NotCommitted);
        }
        if self.opponent_commitment.is_none() {
            return Err(SetupError::OpponentNotCommitted);
        }
        if !self.reveal_open {
            return Err(SetupError::RevealNotOpen);
        }
        Ok((self.army.clone(), hex::encode(self.nonce)))
    }

    /// Records that the reveal was sent: any opponent commitment seen from now on is late.
    pub fn mark_revealed(&mut self) {
        self.revealed = true;
    }

    /// Checks the opponent's reveal (army and nonce hex) against its commitment and the army
    /// rules; returns the army, canonical.
    ///
    /// # Errors
    ///
    /// [`RevealError::NoCommitment`], [`RevealError::Malformed`],
    /// [`RevealError::CommitmentMismatch`], [`RevealError::InvalidArmy`].
    pub fn verify_opponent(&self, army: &str, nonce_hex: &str) -> Result<String, RevealError> {
        let other = self.seat.other();
        let c = self.opponent_commitment.as_deref().ok_or(RevealError::NoCommitment)?;
        let nonce = parse_nonce(nonce_hex).map_err(|e| RevealError::Malformed(e.to_string()))?;
        let ok = opens(c, army, &nonce).map_err(|e| RevealError::Malformed(e.to_string()))?;
        if !ok {
            return Err(RevealError::CommitmentMismatch(other));
        }
        validate_army(other, army)
            .map_err(|reason| RevealError::InvalidArmy { seat: other, reason })
    }

    /// Checks the armies published at the start: ours unchanged, the opponent's valid and —
    /// when `nonces` are given — opening its commitment.
    ///
    /// # Errors
    ///
    /// [`RevealError::OwnArmyAltered`], [`RevealError::NoCommitment`], and those of
    /// [`HiddenSetup::verify_opponent`].
    pub fn verify_start(
        &self,
        armies: &ByColor<String>,
        nonces: Option<&ByColor<String>>,
    ) -> Result<VerifiedStart, RevealError> {
        let other = self.seat.other();
        let ours = canonical_army(armies.get(self.seat))
            .map_err(|e| RevealError::Malformed(e.to_string()))?;
        if ours != self.army {
            return Err(RevealError::OwnArmyAltered);
        }
        if self.opponent_commitment.is_none() {
            return Err(RevealError::NoCommitment);
        }
        let theirs = armies.get(other);
        match nonces {
            Some(n) => {
                let opponent_army = self.verify_opponent(theirs, n.get(other))?;
                Ok(VerifiedStart { opponent_army, commitment_checked: true })
            }
            None => {
                let opponent_army = validate_army(other, theirs)
                    .map_err(|reason| RevealError::InvalidArmy { seat: other, reason })?;
                Ok(VerifiedStart { opponent_army, commitment_checked: false })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    pub(crate) const WHITE: &str =
        "Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";
    pub(crate) const BLACK: &str =
        "Ra8,Nb8,Bc8,Qd8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7";
    /// Canonical order (by square, a1 first).
    const CUSTOM_BLACK: &str = "Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7,Pa8,Nb8,Bc8,Md8,Ke8,Bf8,Ng8,Rh8";

    fn pair() -> (HiddenSetup, HiddenSetup) {
        let w = HiddenSetup::with_nonce(Color::White, WHITE, [1; 32]).unwrap();
        let b = HiddenSetup::with_nonce(Color::Black, CUSTOM_BLACK, [2; 32]).unwrap();
        (w, b)
    }

    fn committed(seat: Color, c: &str) -> RoomEvent {
        RoomEvent::Committed { seat, commitment: c.to_owned() }
    }

    #[test]
    fn an_invalid_own_army_is_refused_before_anything_is_sent() {
        let err = HiddenSetup::new(Color::White, &WHITE.replace("Qd1", "Md1")).unwrap_err();
        assert!(matches!(err, SetupError::InvalidArmy(_)), "{err}");
        assert!(HiddenSetup::new(Color::Black, WHITE).is_err());
    }

    #[test]
    fn fresh_nonces_make_different_commitments() {
        let a = HiddenSetup::new(Color::White, WHITE).unwrap();
        let b = HiddenSetup::new(Color::White, WHITE).unwrap();
        assert_ne!(a.commitment(), b.commitment());
    }

    #[test]
    fn reveal_waits_for_both_commitments_and_the_open_reveal() {
        let (mut w, b) = pair();
        assert_eq!(w.reveal(), Err(SetupError::NotCommitted));
        w.observe(&committed(Color::White, w.commitment())).unwrap();
        assert_eq!(w.reveal(), Err(SetupError::OpponentNotCommitted));
        w.observe(&committed(Color::Black, b.commitment())).unwrap();
        assert_eq!(w.reveal(), Err(SetupError::RevealNotOpen));
        w.observe(&RoomEvent::RevealOpen).unwrap();
        let (army, nonce) = w.reveal().unwrap();
        assert_eq!(army, WHITE);
        assert_eq!(nonce, "01".repeat(32));
    }

    #[test]
    fn a_genuine_reveal_is_accepted_and_a_forged_one_refused() {
        let (mut w, b) = pair();
        w.observe(&committed(Color::Black, b.commitment())).unwrap();
        let nonce = "02".repeat(32);
        assert_eq!(w.verify_opponent(CUSTOM_BLACK, &nonce).unwrap(), CUSTOM_BLACK);
        // Same army, another nonce; another army, same nonce: both forged.
        let forged = w.verify_opponent(CUSTOM_BLACK, &"03".repeat(32)).unwrap_err();
        assert_eq!(forged, RevealError::CommitmentMismatch(Color::Black));
        let swapped = w.verify_opponent(BLACK, &nonce).unwrap_err();
        assert_eq!(swapped, RevealError::CommitmentMismatch(Color::Black));
        assert!(matches!(w.verify_opponent(BLACK, "zz"), Err(RevealError::Malformed(_))));
        assert!(forged.to_string().contains("changed after the lock-in"));
    }

    #[test]
    fn a_committed_but_illegal_army_is_refused() {
        // A modified peer commits honestly to an army that breaks the rules.
        let bad = CUSTOM_BLACK.replace("Pa8", "Qa8");
        let nonce = [9u8; 32];
        let c = commitment(&bad, &nonce).unwrap();
        let (mut w, _) = pair();
        w.observe(&committed(Color::Black, &c)).unwrap();
        let err = w.verify_opponent(&bad, &hex::encode(nonce)).unwrap_err();
        assert!(matches!(err, RevealError::InvalidArmy { seat: Color::Black, .. }), "{err}");
    }

    #[test]
    fn late_changed_or_copied_commitments_are_refused() {
        let (mut w, b) = pair();
        w.observe(&RoomEvent::RevealOpen).unwrap();
        let late = w.observe(&committed(Color::Black, b.commitment())).unwrap_err();
        assert_eq!(late, RevealError::LateCommitment(Color::Black));

        let (mut w, b) = pair();
        w.observe(&committed(Color::Black, b.commitment())).unwrap();
        let changed = w.observe(&committed(Color::Black, &"ab".repeat(32))).unwrap_err();
        assert_eq!(changed, RevealError::LateCommitment(Color::Black));

        let (mut w, _) = pair();
        let copy = w.commitment().to_owned();
        assert_eq!(w.observe(&committed(Color::Black, &copy)), Err(RevealError::CopiedCommitment));
        // Our own commitment published differently by the host.
        let (mut w, _) = pair();
        let altered = w.observe(&committed(Color::White, &"cd".repeat(32))).unwrap_err();
        assert_eq!(altered, RevealError::OwnArmyAltered);
    }

    #[test]
    fn the_start_is_checked() {
        let (mut w, b) = pair();
        w.observe(&committed(Color::White, w.commitment())).unwrap();
        w.observe(&committed(Color::Black, b.commitment())).unwrap();
        w.observe(&RoomEvent::RevealOpen).unwrap();
        let armies = ByColor { white: WHITE.to_owned(), black: CUSTOM_BLACK.to_owned() };
        let nonces = ByColor { white: "01".repeat(32), black: "02".repeat(32) };
        let v = w.verify_start(&armies, Some(&nonces)).unwrap();
        assert!(v.commitment_checked);
        let start =
            RoomEvent::GameStarted { start_fen: String::new(), armies: Some(armies), clock: None };
        let v = w.observe(&start).unwrap().unwrap();
        assert_eq!(v.opponent_army, CUSTOM_BLACK);
        assert!(!v.commitment_checked);

        let swapped = ByColor { white: WHITE.to_owned(), black: BLACK.to_owned() };
        assert_eq!(
            w.verify_start(&swapped, Some(&nonces)),
            Err(RevealError::CommitmentMismatch(Color::Black))
        );
        let ours_changed = ByColor { white: WHITE.replace("Qd1", "Md1"), black: BLACK.to_owned() };
        assert_eq!(w.verify_start(&ours_changed, None), Err(RevealError::OwnArmyAltered));
        let illegal = ByColor { white: WHITE.to_owned(), black: BLACK.replace("Pa7", "Qa7") };
        assert!(matches!(w.verify_start(&illegal, None), Err(RevealError::InvalidArmy { .. })));
        let none = RoomEvent::GameStarted { start_fen: String::new(), armies: None, clock: None };
        assert_eq!(w.observe(&none), Err(RevealError::MissingArmies));
    }
    /// The room's `armies_opened` carries both nonces: the opponent's army is checked against
    /// its commitment, a forged nonce is refused, and `game_started` must keep those armies.
    #[test]
    fn opened_armies_are_checked_against_the_commitments() {
        let ready = || {
            let (mut w, b) = pair();
            w.observe(&committed(Color::White, w.commitment())).unwrap();
            w.observe(&committed(Color::Black, b.commitment())).unwrap();
            w.observe(&RoomEvent::RevealOpen).unwrap();
            w
        };
        let armies = ByColor { white: WHITE.to_owned(), black: CUSTOM_BLACK.to_owned() };
        let nonces = ByColor { white: "01".repeat(32), black: "02".repeat(32) };
        let start = |armies: ByColor<String>| RoomEvent::GameStarted {
            start_fen: String::new(),
            armies: Some(armies),
            clock: None,
        };

        let mut w = ready();
        let opened = RoomEvent::ArmiesOpened { armies: armies.clone(), nonces: nonces.clone() };
        assert_eq!(w.observe(&opened), Ok(None));
        let v = w.observe(&start(armies.clone())).unwrap().unwrap();
        assert_eq!(v.opponent_army, CUSTOM_BLACK);
        assert!(v.commitment_checked);

        // A forged nonce for the opponent's army.
        let mut w = ready();
        let forged = ByColor { white: nonces.white.clone(), black: "03".repeat(32) };
        let opened = RoomEvent::ArmiesOpened { armies: armies.clone(), nonces: forged };
        assert_eq!(w.observe(&opened), Err(RevealError::CommitmentMismatch(Color::Black)));

        // Opened honestly, then the game starts with another army for the opponent.
        let mut w = ready();
        w.observe(&RoomEvent::ArmiesOpened { armies, nonces }).unwrap();
        let switched = ByColor { white: WHITE.to_owned(), black: BLACK.to_owned() };
        assert_eq!(w.observe(&start(switched)), Err(RevealError::CommitmentMismatch(Color::Black)));
    }

    /// A room snapshot as the server sends it after a resync (JSON, so the test reads like the
    /// wire).
    fn snapshot(
        phase: &str,
        commitments: (Option<&str>, Option<&str>),
        opened: Option<(&str, &str)>,
    ) -> Snapshot {
        let seat = serde_json::json!({
            "taken": true, "connected": true, "pause_available": true,
            "committed": true, "revealed": opened.is_some(),
        });
        let (armies, nonces) = match opened {
            Some((black_army, black_nonce)) => (
                serde_json::json!({ "white": WHITE, "black": black_army }),
                serde_json::json!({ "white": "01".repeat(32), "black": black_nonce }),
            ),
            None => (serde_json::Value::Null, serde_json::Value::Null),
        };
        let started = phase == "playing";
        serde_json::from_value(serde_json::json!({
            "code": "ABCDEFGH", "seq": 7, "variant": "maharajah", "time_control": null,
            "hidden_setup": true, "phase": phase, "seats": { "white": seat, "black": seat },
            "armies": armies,
            "commitments": { "white": commitments.0, "black": commitments.1 },
            "nonces": nonces,
            "start_fen": if started { serde_json::json!("8/8/8/8/8/8/8/8 w - - 0 1") } else { serde_json::Value::Null },
            "moves": [], "fen": null, "clock": null, "pause": null, "draw_offer": null, "result": null,
        }))
        .unwrap()
    }

    #[test]
    fn a_snapshot_is_checked_like_the_events_it_replaces() {
        let (w0, b) = pair();
        let ours = w0.commitment().to_owned();
        let theirs = b.commitment().to_owned();
        let nonce = "02".repeat(32);

        // Resynced during setup: both commitments learnt, the reveal may go ahead.
        let mut w = w0.clone();
        let s = snapshot("setup", (Some(&ours), Some(&theirs)), None);
        assert_eq!(w.observe_snapshot(&s), Ok(None));
        assert_eq!(w.opponent_commitment(), Some(theirs.as_str()));
        assert!(w.is_ready_to_reveal());

        // Resynced after the start: the opponent's army is checked against its commitment.
        let mut w = w0.clone();
        let s = snapshot("playing", (Some(&ours), Some(&theirs)), Some((CUSTOM_BLACK, &nonce)));
        let v = w.observe_snapshot(&s).unwrap().unwrap();
        assert_eq!(v.opponent_army, CUSTOM_BLACK);
        assert!(v.commitment_checked);

        // Our own commitment listed differently, a copied one, a switched army: all refused.
        let mut w = w0.clone();
        let s = snapshot("setup", (Some(&"ab".repeat(32)), Some(&theirs)), None);
        assert_eq!(w.observe_snapshot(&s), Err(RevealError::OwnArmyAltered));
        let mut w = w0.clone();
        let s = snapshot("setup", (Some(&ours), Some(&ours)), None);
        assert_eq!(w.observe_snapshot(&s), Err(RevealError::CopiedCommitment));
        let mut w = w0;
        let s = snapshot("playing", (Some(&ours), Some(&theirs)), Some((BLACK, &nonce)));
        assert_eq!(w.observe_snapshot(&s), Err(RevealError::CommitmentMismatch(Color::Black)));
    }
}
