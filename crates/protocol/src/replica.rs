//! The replica every client keeps: a room snapshot and the pure fold of the room's numbered
//! events into it. Folding the events a room sent after a snapshot gives the room's own
//! snapshot of the same moment (the server's tests check this on random games).
//!
//! Clock and pause views are as of the event that carried them: a client counts the running
//! side's time down itself between events.

use maharajah_chaturaji::game::log_events;
use maharajah_chaturaji::game::Action as GameAction;
use maharajah_chaturaji::{BySeat, Game, Step};

use crate::chaturaji::{ChaturajiEvent, ChaturajiSeatView, ChaturajiSnapshot, FairDice};
use crate::{
    AccessCode, ByColor, Color, PauseReason, Phase, RoomEvent, RoomOptions, SeatView, Snapshot,
};

impl Snapshot {
    /// The room as it stands when it is created, before its first event (the creator's
    /// `seat_taken`).
    pub fn new(code: AccessCode, options: &RoomOptions) -> Snapshot {
        let seat = SeatView {
            taken: false,
            connected: false,
            pause_available: true,
            committed: false,
            revealed: false,
        };
        Snapshot {
            code,
            seq: 0,
            variant: options.variant,
            time_control: options.time_control,
            hidden_setup: options.hidden_setup,
            phase: Phase::WaitingForOpponent,
            seats: ByColor { white: seat, black: seat },
            armies: None,
            commitments: ByColor::default(),
            nonces: None,
            start_fen: None,
            moves: Vec::new(),
            fen: None,
            clock: None,
            pause: None,
            draw_offer: None,
            result: None,
        }
    }

    /// Applies event number `seq` (the next one: `self.seq + 1`).
    pub fn apply(&mut self, seq: u64, event: &RoomEvent) {
        self.seq = seq;
        match event {
            RoomEvent::SeatTaken { seat } => {
                let s = self.seats.get_mut(*seat);
                s.taken = true;
                s.connected = true;
            }
            RoomEvent::Presence { seat, connected } => {
                self.seats.get_mut(*seat).connected = *connected;
            }
            RoomEvent::SetupStarted => self.phase = Phase::Setup,
            RoomEvent::Committed { seat, commitment } => {
                self.seats.get_mut(*seat).committed = true;
                *self.commitments.get_mut(*seat) = Some(commitment.clone());
            }
            RoomEvent::RevealOpen => {}
            RoomEvent::Revealed { seat } => self.seats.get_mut(*seat).revealed = true,
            RoomEvent::SetupRejected { .. } => {
                self.phase = Phase::Setup;
                for c in Color::ALL {
                    let s = self.seats.get_mut(c);
                    s.committed = false;
                    s.revealed = false;
                    *self.commitments.get_mut(c) = None;
                }
                self.armies = None;
                self.nonces = None;
            }
            RoomEvent::ArmiesOpened { armies, nonces } => {
                self.armies = Some(armies.clone());
                self.nonces = Some(nonces.clone());
            }
            RoomEvent::GameStarted { start_fen, armies, clock } => {
                self.phase = Phase::Playing;
                self.start_fen = Some(start_fen.clone());
                self.fen = Some(start_fen.clone());
                self.moves.clear();
                if armies.is_some() {
                    self.armies.clone_from(armies);
                }
                self.clock = *clock;
            }
            RoomEvent::Moved { ply, uci, fen, clock } => {
                if *ply as usize == self.moves.len() {
                    self.moves.push(uci.clone());
                }
                self.fen = Some(fen.clone());
                self.clock = *clock;
            }
            RoomEvent::Paused { pause, clock } => {
                if pause.reason != PauseReason::ServerRestart {
                    self.seats.get_mut(pause.by).pause_available = false;
                }
                self.pause = Some(*pause);
                self.clock = *clock;
            }
            RoomEvent::Resumed { clock } => {
                self.pause = None;
                self.clock = *clock;
            }
            RoomEvent::DrawOffered { by } => self.draw_offer = Some(*by),
            RoomEvent::DrawDeclined { .. } => self.draw_offer = None,
            RoomEvent::GameOver { result, clock } => {
                self.phase = Phase::Finished;
                self.result = Some(*result);
                self.pause = None;
                self.draw_offer = None;
                if clock.is_some() {
                    self.clock = *clock;
                }
            }
            // The players' ratings are not room state.
            RoomEvent::RatingsChanged { .. } => {}
        }
    }

    /// The number of the next move's ply (the moves played so far).
    pub fn next_ply(&self) -> u32 {
        u32::try_from(self.moves.len()).unwrap_or(u32::MAX)
    }
}

/// Why a Chaturaji event cannot be applied to a replica (the client then resynchronises).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplicaError {
    /// A step arrived out of order.
    #[error("step {got} arrived after step {expected}")]
    StepOrder {
        /// The next step the replica expects.
        expected: u32,
        /// The step that came.
        got: u32,
    },
    /// A step before any game started.
    #[error("a step before the game started")]
    NoGame,
    /// A roll without its faces.
    #[error("a roll without its faces")]
    RollWithoutFaces,
    /// The replica's rules refuse the step.
    #[error("step {step} breaks the rules: {reason}")]
    Illegal {
        /// The step.
        step: u32,
        /// The rules' words.
        reason: String,
    },
    /// After the step the replica's scores or turn differ from the room's.
    #[error("after step {0} the replica disagrees with the room")]
    Disagrees(u32),
    /// A game could not be started with the settings the room sent.
    #[error("the room's settings cannot start a game: {0}")]
    Settings(String),
}

fn to_game_action(step: Step) -> Option<GameAction> {
    Some(match step {
        Step::Roll { dice } => GameAction::Roll { dice: dice? },
        Step::Move(mv) => GameAction::Move(mv),
        Step::EndTurn => GameAction::EndTurn,
        Step::TimeOut => GameAction::TimeOut,
        Step::Resign { seat } => GameAction::Resign { seat },
    })
}

impl ChaturajiSnapshot {
    /// Applies event number `seq` (the next one), checking every step against the replica's own
    /// copy of the rules.
    ///
    /// # Errors
    ///
    /// [`ReplicaError`] when a step is out of order or the replica's rules refuse it; the
    /// replica is then not to be trusted (resynchronise from a snapshot).
    pub fn apply(&mut self, seq: u64, event: &ChaturajiEvent) -> Result<(), ReplicaError> {
        self.seq = seq;
        let seats: &mut BySeat<ChaturajiSeatView> = &mut self.seats;
        match event {
            ChaturajiEvent::SeatTaken { seat } => {
                seats[*seat].person = true;
                seats[*seat].taken = true;
                seats[*seat].connected = true;
            }
            ChaturajiEvent::Presence { seat, connected } => seats[*seat].connected = *connected,
            ChaturajiEvent::CpuTookOver { seat } => seats[*seat].cpu_playing = true,
            ChaturajiEvent::HandedBack { seat } => seats[*seat].cpu_playing = false,
            ChaturajiEvent::GameStarted { game, settings, turn_ms } => {
                self.game_number = *game;
                self.settings = settings.clone();
                let started = Game::new(settings.clone())
                    .map_err(|e| ReplicaError::Settings(e.to_string()))?;
                self.game = Some(started);
                self.steps = 0;
                self.dice = None;
                self.turn_remaining_ms = *turn_ms;
                self.fair = Some(FairDice::committing(settings));
                self.log.clear();
            }
            ChaturajiEvent::DiceCommitted { proof } => {
                self.fair =
                    Some(FairDice { committing: false, proof: proof.clone(), reveal: None });
            }
            ChaturajiEvent::RevealRequested { roll } => {
                if let Some(fair) = self.fair.as_mut() {
                    fair.reveal = Some(*roll);
                }
            }
            ChaturajiEvent::Played {
                step,
                action,
                events,
                dice,
                scores,
                to_move,
                turn_remaining_ms,
                links,
                ..
            } => {
                if *step < self.steps {
                    return Ok(());
                }
                if *step > self.steps {
                    return Err(ReplicaError::StepOrder { expected: self.steps, got: *step });
                }
                let game = self.game.as_mut().ok_or(ReplicaError::NoGame)?;
                let action = to_game_action(*action).ok_or(ReplicaError::RollWithoutFaces)?;
                game.apply(action)
                    .map_err(|e| ReplicaError::Illegal { step: *step, reason: e.to_string() })?;
                if game.scores() != *scores || game.to_move() != *to_move {
                    return Err(ReplicaError::Disagrees(*step));
                }
                self.steps += 1;
                log_events(&mut self.log, events.iter().cloned());
                self.dice = *dice;
                self.turn_remaining_ms = *turn_remaining_ms;
                if let (Some(fair), Some(links)) = (self.fair.as_mut(), links) {
                    fair.proof.rolls.push(links.clone());
                    fair.reveal = None;
                }
            }
            ChaturajiEvent::GameOver { .. } | ChaturajiEvent::RatingsChanged { .. } => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use maharajah_chaturaji::{Seat, Settings};

    use super::*;
    use crate::chaturaji::DieView;

    fn empty_table(settings: &Settings) -> ChaturajiSnapshot {
        let seat =
            ChaturajiSeatView { person: true, taken: false, connected: false, cpu_playing: false };
        ChaturajiSnapshot {
            code: "ABCDEFGH".parse().expect("code"),
            seq: 0,
            game_number: 0,
            settings: settings.clone(),
            seats: BySeat::splat(seat),
            game: None,
            steps: 0,
            dice: None,
            turn_remaining_ms: None,
            fair: None,
            log: Default::default(),
        }
    }

    // Moved from net's `TableState` (whose fold this now is).
    #[test]
    fn the_replica_follows_played_steps_and_refuses_a_gap() {
        let settings = Settings::default();
        let mut state = empty_table(&settings);
        state
            .apply(
                1,
                &ChaturajiEvent::GameStarted { game: 1, settings: settings.clone(), turn_ms: None },
            )
            .expect("a game starts");
        let mut game = Game::new(settings).expect("default settings are valid");
        let events = game.apply(GameAction::Roll { dice: [3, 3] }).expect("a roll");
        assert!(!events.is_empty());
        let played = ChaturajiEvent::Played {
            step: 0,
            seat: Seat::Red,
            by_room: false,
            action: Step::Roll { dice: Some([3, 3]) },
            events: events.clone(),
            dice: DieView::of(&game),
            scores: game.scores(),
            to_move: game.to_move(),
            round: game.round(),
            turn_remaining_ms: None,
            links: None,
        };
        state.apply(2, &played).expect("the roll applies");
        assert_eq!(state.steps, 1);
        assert_eq!(state.game.as_ref(), Some(&game));
        // The same step again is ignored; a step from the future is refused.
        state.apply(3, &played).expect("a repeat is ignored");
        assert_eq!(state.steps, 1);
        // The step's events are in the log, once; the next game starts a new log.
        assert_eq!(state.log, events);
        let mut next = state.clone();
        let started =
            ChaturajiEvent::GameStarted { game: 2, settings: Settings::default(), turn_ms: None };
        next.apply(4, &started).expect("the next game starts");
        assert!(next.log.is_empty());
        let future = ChaturajiEvent::Played {
            step: 5,
            seat: Seat::Red,
            by_room: false,
            action: Step::EndTurn,
            events: Vec::new(),
            dice: None,
            scores: game.scores(),
            to_move: game.to_move(),
            round: 1,
            turn_remaining_ms: None,
            links: None,
        };
        assert!(state.apply(4, &future).is_err());
        // A roll without faces cannot be replayed.
        let mut fresh = state.clone();
        fresh.steps = 0;
        fresh.game = Some(Game::new(Settings::default()).expect("valid"));
        let blind = ChaturajiEvent::Played {
            step: 0,
            seat: Seat::Red,
            by_room: false,
            action: Step::Roll { dice: None },
            events: Vec::new(),
            dice: None,
            scores: BySeat::splat(0),
            to_move: Seat::Red,
            round: 1,
            turn_remaining_ms: None,
            links: None,
        };
        assert!(fresh.apply(5, &blind).is_err());
    }
}
