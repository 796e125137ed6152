//! The app's local-play core without any window: the open game, the store it is saved to, and
//! the computer's thinking state. Commands lock it, call one method, and hand the result to the
//! UI; tests call the same methods directly with fake time.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use maharajah_engine::clock::TimeControl;
use maharajah_engine::search::{build_army, Level};
use maharajah_engine::{start_position, Army, Color, Game, Move, Position, Variant};
use serde::Serialize;

use crate::chess::aids::{threat_game, AidKind, AidRequest, Aids, AidsView};
use crate::chess::army::{self, army_of, BadArmy};
use crate::chess::computer::Computer;
use crate::chess::session::{
    ClockView, GameView, MoveView, Names, Opponent, ReviewView, Session, SessionError,
};
use crate::error::AppError;
pub use crate::error::CoreError;
use crate::scheduler::{Scheduler, Woken};
use crate::store::{GameSummary, SavedArmy, Store, SEAT_KEY};
use crate::time::Time;

/// What the start screen needs to know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StartInfo {
    /// The unfinished game "Continue" opens.
    pub continue_id: Option<i64>,
    /// The computer's levels on a human scale: the approximate chess rating of level 1, 2, …
    /// ([`Level::approx_elo`], calibrated against Fairy-Stockfish's `UCI_Elo`), shown beside
    /// the level the person picks.
    pub level_ratings: Vec<u32>,
}

/// A request for the computer to move: what to search and how to recognise the answer.
#[derive(Debug, Clone)]
pub struct ThinkRequest {
    /// The game so far (its history counts for repetitions).
    pub game: Game,
    /// Level 1–8.
    pub level: u8,
    /// The clock as it stands, so the computer budgets its time.
    pub clock: Option<ClockView>,
    /// Raised to cancel.
    pub stop: Arc<AtomicBool>,
    /// The answer is accepted only while the core still has this generation.
    pub generation: u64,
    /// When it was asked (app milliseconds): the computer answers no sooner than
    /// [`COMPUTER_DELAY_MS`] after.
    pub asked_ms: u64,
}

/// How long the computer waits at least before answering, so its reply does not land before the
/// person's own move is drawn.
pub const COMPUTER_DELAY_MS: u64 = 250;

/// How often the running local clock is pushed.
pub const CLOCK_PUSH_MS: u64 = 200;

/// The open game and its storage.
#[derive(Debug)]
pub struct Core {
    store: Store,
    session: Option<Session>,
    thinking: Option<Arc<AtomicBool>>,
    generation: u64,
    aids: Aids,
}

impl Core {
    /// A core saving to `store`.
    #[must_use]
    pub fn new(store: Store) -> Core {
        Core { store, session: None, thinking: None, generation: 0, aids: Aids::default() }
    }

    /// The storage.
    #[must_use]
    pub const fn store(&self) -> &Store {
        &self.store
    }

    fn session(&self) -> Result<&Session, CoreError> {
        self.session.as_ref().ok_or(CoreError::NoGame)
    }

    fn session_mut(&mut self) -> Result<&mut Session, CoreError> {
        self.session.as_mut().ok_or(CoreError::NoGame)
    }

    fn save(&mut self, now: u64, unix: i64) -> Result<(), CoreError> {
        let session = self.session.as_mut().ok_or(CoreError::NoGame)?;
        let id = self.store.save(&session.to_record(now), unix)?;
        session.set_id(id);
        Ok(())
    }

    /// Cancels the computer's search, if one runs.
    pub fn cancel_thinking(&mut self) {
        if let Some(stop) = self.thinking.take() {
            stop.store(true, Ordering::Relaxed);
        }
        self.generation += 1;
    }

    /// The snapshot of the open game at `now`.
    ///
    /// # Errors
    /// [`CoreError::NoGame`] when none is open.
    pub fn view(&self, now: u64) -> Result<GameView, CoreError> {
        let session = self.session()?;
        let mut view = session.view(now);
        view.thinking = self.thinking.is_some();
        if matches!(session.opponent(), Opponent::Computer { .. }) {
            let used = |kind| session.aids().iter().filter(|a| a.kind == kind).count();
            let live = !session.is_computer_turn() && view.result.is_none();
            let fen = view.fen.clone();
            let shown = |kind| {
                (live && self.aids.is_on(kind)).then(|| self.aids.found(kind, &fen)).flatten()
            };
            let hint = shown(AidKind::Hint);
            let threat = shown(AidKind::Threat);
            view.aids = Some(AidsView {
                hint: self.aids.is_on(AidKind::Hint),
                threat: self.aids.is_on(AidKind::Threat),
                hint_square: hint.map(|m| m.from),
                threat_move: threat.map(|m| MoveView { from: m.from, to: m.to }),
                thinking: self.aids.is_thinking(),
                hints_used: used(AidKind::Hint),
                threats_used: used(AidKind::Threat),
            });
        }
        Ok(view)
    }

    /// Turns the hint or the threat view on or off for the open game (both start off).
    ///
    /// # Errors
    /// [`CoreError::NoGame`]; [`SessionError::NoAids`] outside games against the computer.
    pub fn set_aid(&mut self, kind: AidKind, on: bool, now: u64) -> Result<GameView, CoreError> {
        if !matches!(self.session()?.opponent(), Opponent::Computer { .. }) {
            return Err(SessionError::NoAids.into());
        }
        self.aids.set(kind, on);
        self.view(now)
    }

    /// The searches for the aids that are on and not yet answered in the position as it
    /// stands (the person to move); searches for another position are stopped.
    pub fn aid_requests(&mut self) -> Vec<AidRequest> {
        let Some(session) = self.session.as_ref() else { return Vec::new() };
        let fen = session.game().position().to_string();
        self.aids.keep_only(&fen);
        if session.is_computer_turn() || session.result().is_some() {
            return Vec::new();
        }
        let mut requests = Vec::new();
        for kind in AidKind::ALL {
            if !self.aids.is_on(kind)
                || self.aids.found(kind, &fen).is_some()
                || self.aids.is_pending(kind, &fen)
            {
                continue;
            }
            let game = match kind {
                AidKind::Hint => Some(session.game().clone()),
                AidKind::Threat => threat_game(session.game().position()),
            };
            let Some(game) = game else { continue };
            let stop = Arc::new(AtomicBool::new(false));
            self.aids.asked(kind, fen.clone(), Arc::clone(&stop));
            requests.push(AidRequest { kind, game, session: session.id(), fen: fen.clone(), stop });
        }
        requests
    }

    /// The engine's answer `mv` to `request`: shown (and recorded in the game, which is saved)
    /// when the same game still stands in the same position with the aid on. Returns the new
    /// snapshot then.
    ///
    /// # Errors
    /// [`CoreError::Store`] when the game cannot be saved.
    pub fn aid_found(
        &mut self,
        request: &AidRequest,
        mv: Option<Move>,
        now: u64,
        unix: i64,
    ) -> Result<Option<GameView>, CoreError> {
        let Some(session) = self.session.as_mut() else { return Ok(None) };
        if session.id() != request.session {
            return Ok(None);
        }
        if !self.aids.answered(request.kind, &request.fen, mv) {
            // Refused or nothing found: the view stops showing the search.
            return self.view(now).map(Some);
        }
        if session.record_aid(request.kind) {
            self.save(now, unix)?;
        }
        self.view(now).map(Some)
    }

    /// The open game's running clock at `now`, if any (what the ticker pushes).
    #[must_use]
    pub fn running_clock(&self, now: u64) -> Option<ClockView> {
        let session = self.session.as_ref()?;
        if session.result().is_some() {
            return None;
        }
        session.clock_view(now).filter(|c| c.running.is_some())
    }

    /// The open game's snapshot, if any.
    #[must_use]
    pub fn current(&self, now: u64) -> Option<GameView> {
        self.view(now).ok()
    }

    /// Starts and saves a new game.
    ///
    /// # Errors
    /// [`CoreError::Store`] when it cannot be saved.
    pub fn new_game(
        &mut self,
        start: Position,
        opponent: Opponent,
        control: Option<TimeControl>,
        now: u64,
        unix: i64,
    ) -> Result<GameView, CoreError> {
        self.new_named_game(start, opponent, &Names::default(), control, now, unix)
    }

    /// Starts and saves a new game; in pass-and-play the players go by `names` (checked here:
    /// trimmed, at most 20 characters, no control characters; an empty one is the colour's
    /// name). Against the computer the names are left out: the person is "You".
    ///
    /// # Errors
    /// [`CoreError::Name`] for a refused name (nothing starts then); [`CoreError::Store`] when
    /// it cannot be saved.
    pub fn new_named_game(
        &mut self,
        start: Position,
        opponent: Opponent,
        names: &Names,
        control: Option<TimeControl>,
        now: u64,
        unix: i64,
    ) -> Result<GameView, CoreError> {
        let names = names.recheck()?;
        self.cancel_thinking();
        self.aids.reset();
        self.session = Some(Session::new(0, start, opponent, control, unix).with_names(names));
        self.save(now, unix)?;
        self.view(now)
    }

    /// A new game of `variant` from its usual start.
    ///
    /// # Errors
    /// As [`Core::new_game`].
    pub fn new_variant_game(
        &mut self,
        variant: Variant,
        opponent: Opponent,
        control: Option<TimeControl>,
        now: u64,
        unix: i64,
    ) -> Result<GameView, CoreError> {
        self.new_named_game(Position::new(variant), opponent, &Names::default(), control, now, unix)
    }

    /// The same opponent and clock again. Pass-and-play keeps the same start and the same names
    /// on the same sides. Against the computer the colours swap; in a custom (Maharajah) game the
    /// person keeps their own army, mirrored to their new side, and the computer builds a fresh
    /// army for its side with `rng` (blind, as at a first start) rather than taking over the
    /// person's old one.
    ///
    /// # Errors
    /// [`CoreError::NoGame`] when no game is open.
    pub fn rematch(
        &mut self,
        now: u64,
        unix: i64,
        rng: &mut impl rand::Rng,
    ) -> Result<GameView, CoreError> {
        let session = self.session()?;
        let old_start = session.game().start();
        let control = session.time_control();
        let (start, opponent) = match session.opponent() {
            Opponent::Computer { color: old, level } => {
                let computer = old.other();
                let start = if old_start.rules().variant == Variant::Maharajah {
                    let person = Army::from_position(old_start, computer).mirrored();
                    rebuilt_start(&person, computer, level, rng)
                        .unwrap_or_else(|| old_start.clone())
                } else {
                    old_start.clone()
                };
                (start, Opponent::Computer { color: computer, level })
            }
            Opponent::Human => (old_start.clone(), Opponent::Human),
        };
        let names = session.names().clone();
        self.new_named_game(start, opponent, &names, control, now, unix)
    }

    /// Opens a saved game (its clock resumes for the side to move).
    ///
    /// # Errors
    /// [`CoreError`] when it cannot be loaded or replayed.
    pub fn open(&mut self, id: i64, now: u64) -> Result<GameView, CoreError> {
        self.cancel_thinking();
        self.aids.reset();
        let record = self.store.load(id)?;
        self.session = Some(Session::from_record(&record, now)?);
        self.view(now)
    }

    /// Leaves the game screen: stops thinking, saves the clock as it stands, closes the game.
    ///
    /// # Errors
    /// [`CoreError::Store`] when the final save fails.
    pub fn leave(&mut self, now: u64, unix: i64) -> Result<(), CoreError> {
        self.cancel_thinking();
        self.aids.reset();
        if self.session.is_some() {
            self.save(now, unix)?;
        }
        self.session = None;
        Ok(())
    }

    /// The person's move, typed as UCI or SAN.
    ///
    /// # Errors
    /// [`CoreError::Session`] for an illegal move or a finished game; it is not the computer's.
    pub fn play(&mut self, text: &str, now: u64, unix: i64) -> Result<GameView, CoreError> {
        let session = self.session_mut()?;
        if session.is_computer_turn() {
            return Err(SessionError::NotYourTurn.into());
        }
        let mv = session.parse_move(text)?;
        session.play(mv, now)?;
        self.save(now, unix)?;
        self.view(now)
    }

    /// What the computer should think about now, if it is its turn and it is not already thinking.
    pub fn think_request(&mut self, now: u64) -> Option<ThinkRequest> {
        let session = self.session.as_ref()?;
        if !session.is_computer_turn() || session.is_paused() || self.thinking.is_some() {
            return None;
        }
        let Opponent::Computer { level, .. } = session.opponent() else { return None };
        let stop = Arc::new(AtomicBool::new(false));
        self.thinking = Some(Arc::clone(&stop));
        Some(ThinkRequest {
            game: session.game().clone(),
            level,
            clock: session.clock_view(now),
            stop,
            generation: self.generation,
            asked_ms: now,
        })
    }

    /// The computer's answer to the request of `generation`; ignored when that request was cancelled.
    /// Returns the new snapshot when the move was played.
    ///
    /// # Errors
    /// [`CoreError`] when the move cannot be played or saved.
    pub fn computer_moved(
        &mut self,
        generation: u64,
        mv: Option<Move>,
        now: u64,
        unix: i64,
    ) -> Result<Option<GameView>, CoreError> {
        if generation != self.generation {
            return Ok(None);
        }
        self.thinking = None;
        let Some(mv) = mv else { return Ok(None) };
        self.session_mut()?.play(mv, now)?;
        self.save(now, unix)?;
        self.view(now).map(Some)
    }

    /// The colour acting for the person: the side to move in pass-and-play, else the person's side.
    fn person(&self) -> Result<Color, CoreError> {
        let session = self.session()?;
        Ok(match session.opponent() {
            Opponent::Computer { color, .. } => color.other(),
            Opponent::Human => session.game().position().turn(),
        })
    }

    /// Claims the claimable draw.
    ///
    /// # Errors
    /// [`CoreError::Session`] when none is claimable.
    pub fn claim_draw(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        self.cancel_thinking();
        self.session_mut()?.claim_draw(now)?;
        self.save(now, unix)?;
        self.view(now)
    }

    /// The person resigns.
    ///
    /// # Errors
    /// [`CoreError::Session`] after the end.
    pub fn resign(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        let color = self.person()?;
        self.cancel_thinking();
        self.session_mut()?.resign(color, now)?;
        self.save(now, unix)?;
        self.view(now)
    }

    /// The person offers a draw (the computer searches the position before it answers).
    ///
    /// # Errors
    /// [`CoreError::Session`] after the end.
    pub fn offer_draw(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        let color = self.person()?;
        self.session_mut()?.offer_draw(color, now, crate::chess::computer::accepts_draw)?;
        if self.session()?.result().is_some() {
            self.cancel_thinking();
        }
        self.save(now, unix)?;
        self.view(now)
    }

    /// The other player accepts the standing draw offer.
    ///
    /// # Errors
    /// [`CoreError::Session`] when no offer stands.
    pub fn accept_draw(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        self.session_mut()?.accept_draw(now)?;
        self.save(now, unix)?;
        self.view(now)
    }

    /// Pauses the running clock (the menu opened, the app went to the background); the computer
    /// stops thinking until the game resumes. Saved as it stands.
    ///
    /// # Errors
    /// [`CoreError::NoGame`], [`CoreError::Store`].
    pub fn pause(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        if self.session_mut()?.pause(now) {
            self.cancel_thinking();
            self.save(now, unix)?;
        }
        self.view(now)
    }

    /// Starts the paused clock again (and the computer's thinking, when it is its turn).
    ///
    /// # Errors
    /// [`CoreError::NoGame`], [`CoreError::Store`].
    pub fn resume(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        if self.session_mut()?.resume(now) {
            self.save(now, unix)?;
        }
        self.view(now)
    }

    /// Declines the standing draw offer and saves that.
    ///
    /// # Errors
    /// [`CoreError::Session`] when no offer stands or the game is over.
    pub fn decline_draw(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        self.session_mut()?.decline_draw()?;
        self.save(now, unix)?;
        self.view(now)
    }

    /// Takes back the last move (cancelling the computer's thinking).
    ///
    /// # Errors
    /// [`CoreError::Session`] when there is nothing to take back.
    pub fn takeback(&mut self, now: u64, unix: i64) -> Result<GameView, CoreError> {
        self.cancel_thinking();
        self.session_mut()?.takeback(now)?;
        self.save(now, unix)?;
        self.view(now)
    }

    /// The board after `ply` moves of the open game.
    ///
    /// # Errors
    /// [`CoreError::NoGame`] when none is open.
    pub fn review(&self, ply: usize) -> Result<ReviewView, CoreError> {
        Ok(self.session()?.review_at(ply))
    }

    /// Checks the clock; `Some(view)` when a flag fell just now (the game is saved as ended).
    ///
    /// # Errors
    /// [`CoreError::Store`] when the result cannot be saved.
    pub fn tick(&mut self, now: u64, unix: i64) -> Result<Option<GameView>, CoreError> {
        let Some(session) = self.session.as_mut() else { return Ok(None) };
        if !session.check_flag(now) {
            return Ok(None);
        }
        self.cancel_thinking();
        self.save(now, unix)?;
        self.view(now).map(Some)
    }

    /// Imports a PGN or FEN as a new pass-and-play game and opens it.
    ///
    /// # Errors
    /// [`CoreError::Session`] when the text is neither.
    pub fn import(&mut self, text: &str, now: u64, unix: i64) -> Result<GameView, CoreError> {
        let session = Session::import(text, unix)?;
        self.cancel_thinking();
        self.aids.reset();
        self.session = Some(session);
        self.save(now, unix)?;
        self.view(now)
    }

    /// A saved game (or the open one when `id` is `None`) as PGN.
    ///
    /// # Errors
    /// [`CoreError`] when it cannot be loaded.
    pub fn pgn(&self, id: Option<i64>, now: u64, date: &str) -> Result<String, CoreError> {
        match (id, &self.session) {
            (Some(id), Some(session)) if session.id() != id => {
                Ok(Session::from_record(&self.store.load(id)?, now)?.pgn(date))
            }
            (None, None) => Err(CoreError::NoGame),
            (Some(id), None) => Ok(Session::from_record(&self.store.load(id)?, now)?.pgn(date)),
            (_, Some(session)) => Ok(session.pgn(date)),
        }
    }

    /// The open game's moves, if a game is open (the analysis board opens on them).
    #[must_use]
    pub fn game(&self) -> Option<&Game> {
        self.session.as_ref().map(Session::game)
    }

    /// The open game's players' names, if a game is open (the analysis export tags them).
    #[must_use]
    pub fn names(&self) -> Option<&Names> {
        self.session.as_ref().map(Session::names)
    }

    /// The start screen's facts.
    ///
    /// # Errors
    /// [`CoreError::Store`] on a database failure.
    pub fn start_info(&self) -> Result<StartInfo, CoreError> {
        let level_ratings = (Level::WEAKEST.number()..=Level::STRONGEST.number())
            .map(|n| Level::new(n).approx_elo())
            .collect();
        Ok(StartInfo { continue_id: self.store.latest_unfinished()?, level_ratings })
    }

    /// The history list.
    ///
    /// # Errors
    /// [`CoreError::Store`] on a database failure.
    pub fn history(&self) -> Result<Vec<GameSummary>, CoreError> {
        Ok(self.store.list(200)?)
    }
}

/// A start with the person's `person` army and a fresh army the computer builds for `computer`
/// at `level`; `None` when a few tries all leave a king in check (the caller keeps the old start).
fn rebuilt_start(
    person: &Army,
    computer: Color,
    level: u8,
    rng: &mut impl rand::Rng,
) -> Option<Position> {
    (0..20).find_map(|_| {
        let built = build_army(computer, Level::new(level), rng);
        let (white, black) =
            if computer == Color::White { (&built, person) } else { (person, &built) };
        start_position(white, black).ok()
    })
}

/// `YYYY.MM.DD` (PGN's date form) of a Unix time in seconds, UTC.
#[must_use]
pub fn pgn_date(unix: i64) -> String {
    // Howard Hinnant's days-to-civil algorithm.
    let z = unix.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// What the commands share: the core, the app's monotonic epoch, the computer's inbox.
#[derive(Debug)]
pub struct AppState {
    core: Mutex<Core>,
    time: Time,
    scheduler: Arc<Scheduler>,
    computer: Mutex<Sender<ThinkRequest>>,
    aids: Mutex<Option<Sender<AidRequest>>>,
    export_dir: PathBuf,
}

impl AppState {
    /// State around `core`; search requests go to `computer`; PGN files are saved in `export_dir`;
    /// the time is read from `time`; every change wakes `scheduler`.
    #[must_use]
    pub fn new(
        core: Core,
        computer: Sender<ThinkRequest>,
        export_dir: PathBuf,
        time: Time,
        scheduler: Arc<Scheduler>,
    ) -> AppState {
        AppState {
            core: Mutex::new(core),
            time,
            scheduler,
            computer: Mutex::new(computer),
            aids: Mutex::new(None),
            export_dir,
        }
    }

    /// Where searches for hints and threats go from now on (the aids' thread runs
    /// [`AppState::run_aids`] on the other end); without it the aids stay unanswered.
    pub fn set_aids(&self, sender: Sender<AidRequest>) {
        *self.aids.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(sender);
    }

    /// The folder "Save file" writes to.
    #[must_use]
    pub fn export_dir(&self) -> &Path {
        &self.export_dir
    }

    /// Milliseconds on the app's time scale (the clocks').
    #[must_use]
    pub fn now(&self) -> u64 {
        self.time.now_ms()
    }

    /// Seconds since 1970 (dates of saved games).
    #[must_use]
    pub fn unix(&self) -> i64 {
        self.time.unix()
    }

    /// Locks the core (a poisoned lock is recovered: the core holds no half-done invariants);
    /// letting it go wakes the scheduler.
    pub fn core(&self) -> Woken<'_, Core> {
        Woken::new(self.lock(), &self.scheduler)
    }

    fn lock(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends the computer a search when it is its turn (the view then shows it thinking).
    fn think(&self, core: &mut Core, now: u64) {
        if let Some(request) = core.think_request(now) {
            let sender = self.computer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if sender.send(request).is_err() {
                core.cancel_thinking();
            }
        }
    }

    /// Sends the aids' thread the searches for the aids that are on (see [`Core::aid_requests`]).
    fn ask_aids(&self, core: &mut Core) {
        let requests = core.aid_requests();
        if requests.is_empty() {
            return;
        }
        let sender = self.aids.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for request in requests {
            let sent = sender.as_ref().is_some_and(|s| s.send(request.clone()).is_ok());
            if !sent {
                drop(core.aid_found(&request, None, self.now(), self.unix()));
            }
        }
    }

    /// Turns the hint or the threat view on or off; the engine looks in the background.
    ///
    /// # Errors
    /// `no_game`, `no_aids`.
    pub fn set_aid(&self, kind: AidKind, on: bool) -> Result<GameView, AppError> {
        let now = self.now();
        let mut core = self.core();
        core.set_aid(kind, on, now)?;
        self.ask_aids(&mut core);
        Ok(core.view(now)?)
    }

    /// The aids' loop (run it on a thread of its own; it returns when every sender is gone):
    /// searches each request still wanted and hands `push` the view with its answer.
    pub fn run_aids(&self, receiver: &Receiver<AidRequest>, push: impl Fn(GameView)) {
        // Made at the first request: its table is not held by people who never ask.
        let mut searcher: Option<maharajah_engine::search::Searcher> = None;
        for request in receiver {
            if request.stop.load(Ordering::Relaxed) {
                continue;
            }
            let searcher =
                searcher.get_or_insert_with(|| maharajah_engine::search::Searcher::new(16));
            let mv = request.answer(searcher);
            let now = self.now();
            match self.core().aid_found(&request, mv, now, self.unix()) {
                Ok(Some(view)) => push(view),
                Ok(None) => {}
                Err(error) => eprintln!("the aid could not be saved: {error}"),
            }
        }
    }

    /// Runs `action` on the core, then lets the computer think, and returns the fresh view.
    ///
    /// # Errors
    /// The action's error, unless a flag fell first (the finished game is the answer then).
    pub fn act(
        &self,
        action: impl FnOnce(&mut Core, u64, i64) -> Result<GameView, CoreError>,
    ) -> Result<GameView, AppError> {
        let now = self.now();
        let mut core = self.core();
        // A flag that fell since the last tick ends the game first (and is saved); a move made
        // too late then answers with the finished game rather than an error.
        let flagged = core.tick(now, self.unix())?;
        if let Err(error) = action(&mut core, now, self.unix()) {
            return flagged.ok_or_else(|| error.into());
        }
        self.think(&mut core, now);
        self.ask_aids(&mut core);
        Ok(core.view(now)?)
    }

    /// The open game, if any.
    #[must_use]
    pub fn current(&self) -> Option<GameView> {
        self.core().current(self.now())
    }

    /// Leaves the game screen: the computer stops, the game and its clock are saved.
    ///
    /// # Errors
    /// `storage`.
    pub fn leave(&self) -> Result<(), AppError> {
        let now = self.now();
        Ok(self.core().leave(now, self.unix())?)
    }

    /// A game as PGN text: the open one, or the saved game `id`.
    ///
    /// # Errors
    /// `no_game`, `storage`.
    pub fn export_pgn(&self, id: Option<i64>) -> Result<String, AppError> {
        Ok(self.core().pgn(id, self.now(), &pgn_date(self.unix()))?)
    }

    /// Saves a game's PGN as a file in the export folder; returns the file's path.
    ///
    /// # Errors
    /// `no_game`, `storage`, `write_failed`.
    pub fn save_pgn(&self, id: Option<i64>) -> Result<String, AppError> {
        let unix = self.unix();
        let (text, game_id) = {
            let core = self.core();
            let text = core.pgn(id, self.now(), &pgn_date(unix))?;
            (text, id.or_else(|| core.current(self.now()).map(|v| v.id)).unwrap_or(0))
        };
        let path = write_pgn(&self.export_dir, game_id, unix, &text)?;
        Ok(path.display().to_string())
    }

    /// Every stored setting as a JSON object (the kept network seat, whose token is secret,
    /// stays in the backend).
    ///
    /// # Errors
    /// `storage`.
    pub fn settings(&self) -> Result<serde_json::Map<String, serde_json::Value>, AppError> {
        let settings = self.core().store().settings().map_err(CoreError::from)?;
        Ok(settings.into_iter().filter(|(key, _)| key != SEAT_KEY).collect())
    }

    /// Stores one setting the UI may set.
    ///
    /// # Errors
    /// `bad_setting` for an unknown key, `storage`.
    pub fn set_setting(&self, key: &str, value: &serde_json::Value) -> Result<(), AppError> {
        const KEYS: [&str; 14] = [
            "theme",
            "sounds",
            "autoTurn",
            "animation",
            "timeControl",
            "language",
            "serverUrl",
            "confirmResign",
            "coordinates",
            "confirmMove",
            "zen",
            "pieceSet",
            "haptics",
            // The names last given in a pass-and-play setup, to prefill the next one.
            "playerNames",
        ];
        if !KEYS.contains(&key) {
            return Err(AppError {
                code: "bad_setting".into(),
                message: format!("unknown setting {key:?}"),
            });
        }
        Ok(self.core().store().set_setting(key, value).map_err(CoreError::from)?)
    }

    /// The player's saved armies.
    ///
    /// # Errors
    /// `storage`.
    pub fn saved_armies(&self) -> Result<Vec<SavedArmy>, AppError> {
        Ok(self.core().store().saved_armies().map_err(CoreError::from)?)
    }

    /// Saves `army` under `name` and returns the saved armies.
    ///
    /// # Errors
    /// `bad_name` for an empty name, `storage`.
    pub fn save_army(&self, name: &str, army: &Army) -> Result<Vec<SavedArmy>, AppError> {
        let name = clean_name(name)?;
        let core = self.core();
        core.store().save_army(&name, army, self.unix()).map_err(CoreError::from)?;
        Ok(core.store().saved_armies().map_err(CoreError::from)?)
    }

    /// Renames saved army `id` and returns the saved armies.
    ///
    /// # Errors
    /// `bad_name` for an empty name, `storage`.
    pub fn rename_army(&self, id: i64, name: &str) -> Result<Vec<SavedArmy>, AppError> {
        let name = clean_name(name)?;
        let core = self.core();
        core.store().rename_army(id, &name).map_err(CoreError::from)?;
        Ok(core.store().saved_armies().map_err(CoreError::from)?)
    }

    /// Deletes saved army `id` and returns the saved armies.
    ///
    /// # Errors
    /// `storage`.
    pub fn delete_army(&self, id: i64) -> Result<Vec<SavedArmy>, AppError> {
        let core = self.core();
        core.store().delete_army(id).map_err(CoreError::from)?;
        Ok(core.store().saved_armies().map_err(CoreError::from)?)
    }

    /// The computer's loop (run it on a thread of its own; it returns when every sender is
    /// gone): searches each request and hands `push` the view with its move, unless the request
    /// was cancelled meanwhile (takeback, leaving, a new game).
    pub fn run_computer(&self, receiver: &Receiver<ThinkRequest>, push: impl Fn(GameView)) {
        // Made at the first request: its 16 MB table is not held by people who never play it.
        let mut computer: Option<Computer> = None;
        for request in receiver {
            let wait = (request.asked_ms + COMPUTER_DELAY_MS).saturating_sub(self.now());
            if wait > 0 {
                std::thread::sleep(Duration::from_millis(wait));
            }
            if request.stop.load(Ordering::Relaxed) {
                continue;
            }
            let computer = computer.get_or_insert_with(Computer::new);
            let mv = computer.choose(&request.game, request.level, request.clock, &request.stop);
            let now = self.now();
            let mut core = self.core();
            let answer = core.computer_moved(request.generation, mv, now, self.unix());
            if matches!(answer, Ok(Some(_))) {
                // The person's turn: the aids that are on look at it.
                self.ask_aids(&mut core);
            }
            let answer = answer.map(|moved| moved.and_then(|_| core.view(now).ok()));
            drop(core);
            match answer {
                Ok(Some(view)) => push(view),
                Ok(None) => {}
                Err(error) => eprintln!("the computer's move was refused: {error}"),
            }
        }
    }

    /// The local clock's due work, for the scheduler: pushes the finished game when a flag has
    /// fallen (`push_game`), else the running clock (`push_clock`); answers when to look again
    /// (the next push or the flag, whichever is first; `None` while no clock runs).
    pub fn step(
        &self,
        push_game: impl Fn(GameView),
        push_clock: impl Fn(ClockView),
    ) -> Option<u64> {
        let now = self.now();
        let mut core = self.lock();
        match core.tick(now, self.unix()) {
            Ok(Some(view)) => {
                push_game(view);
                None
            }
            Ok(None) => {
                let clock = core.running_clock(now)?;
                let left = match clock.running? {
                    Color::White => clock.white_ms,
                    Color::Black => clock.black_ms,
                };
                push_clock(clock);
                Some(now + left.clamp(1, CLOCK_PUSH_MS))
            }
            Err(error) => {
                eprintln!("the clock could not save the result: {error}");
                Some(now + 1_000)
            }
        }
    }
}

/// Writes `text` as `maharajah-<id>-<date>.pgn` in `dir` (created if missing).
///
/// # Errors
/// `write_failed` when the folder or file cannot be written.
pub fn write_pgn(dir: &Path, id: i64, unix: i64, text: &str) -> Result<PathBuf, AppError> {
    let name = format!("maharajah-{id}-{}", pgn_date(unix).replace('.', "-"));
    write_pgn_file(dir, &name, false, text)
}

/// Writes `text` as `<name>.pgn` in `dir` (created if missing); with `fresh`, an existing
/// file is kept and the new one is `<name>-2.pgn`, `<name>-3.pgn`…
///
/// # Errors
/// `write_failed` when the folder or file cannot be written.
pub fn write_pgn_file(
    dir: &Path,
    name: &str,
    fresh: bool,
    text: &str,
) -> Result<PathBuf, AppError> {
    let failed = |e: std::io::Error| AppError {
        code: "write_failed".into(),
        message: format!("could not save the file: {e}"),
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let mut path = dir.join(format!("{name}.pgn"));
    let mut n = 1;
    while fresh && path.exists() {
        n += 1;
        path = dir.join(format!("{name}-{n}.pgn"));
    }
    std::fs::write(&path, text).map_err(failed)?;
    Ok(path)
}

/// The start position of a custom game. The computer's army is built blind; in the rare case the
/// two armies cannot start together (a king in check), it builds again, up to a few times.
///
/// # Errors
/// `bad_start` naming the broken rules; `bad_army`.
pub fn custom_start(
    white: Option<Army>,
    black: Option<Army>,
    opponent: Opponent,
    rng: &mut impl rand::Rng,
) -> Result<Position, AppError> {
    let tries = if matches!(opponent, Opponent::Computer { .. }) { 20 } else { 1 };
    let mut last = Vec::new();
    for _ in 0..tries {
        let (w, b) = custom_armies(white.clone(), black.clone(), opponent, rng)?;
        match army::start(&w, &b) {
            Ok(position) => return Ok(position),
            Err(problems) => last = problems,
        }
    }
    Err(AppError {
        code: "bad_start".into(),
        message: last.iter().map(|p| p.message.clone()).collect::<Vec<_>>().join("; "),
    })
}

/// The two armies of a custom game: the computer's side built by the engine, the others given.
///
/// # Errors
/// `bad_army` when a person's army is missing or the wrong colour.
pub fn custom_armies(
    white: Option<Army>,
    black: Option<Army>,
    opponent: Opponent,
    rng: &mut impl rand::Rng,
) -> Result<(Army, Army), AppError> {
    let mut side = |color: Color, given: Option<Army>| match opponent {
        Opponent::Computer { color: c, level } if c == color => {
            Ok(build_army(color, Level::new(level), rng))
        }
        _ => given
            .ok_or_else(|| BadArmy(format!("{color}'s army is missing")))
            .and_then(|a| army_of(color, Some(&a)))
            .map_err(AppError::from),
    };
    let white = side(Color::White, white)?;
    Ok((white, side(Color::Black, black)?))
}

/// A saved army's name: trimmed, not empty, at most 40 characters.
///
/// # Errors
/// `bad_name` when nothing is left after trimming.
pub fn clean_name(name: &str) -> Result<String, AppError> {
    let name: String = name.trim().chars().take(40).collect();
    if name.is_empty() {
        return Err(AppError { code: "bad_name".into(), message: "the army needs a name".into() });
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::session::EndReason;
    use rand::SeedableRng;

    fn core() -> Core {
        Core::new(Store::in_memory().expect("sqlite in memory"))
    }

    #[test]
    fn a_custom_start_is_saved_replayed_and_exported_as_maharajah() {
        use maharajah_engine::{start_position, Army, Role, Square};
        let sq = |t: &str| t.parse::<Square>().expect("square");
        let mut white = Army::orthodox(Color::White);
        for file in ["a2", "b2", "g2", "h2"] {
            white.set(sq(file), None);
        }
        white.set(sq("d1"), Some(Role::Maharajah));
        let black = white.mirrored();
        let start = start_position(&white, &black).expect("legal armies");
        let mut core = core();
        let view = core.new_game(start, Opponent::Human, None, 0, 0).expect("starts");
        assert_eq!(view.variant, Variant::Maharajah);
        assert!(view.legal.iter().any(|m| m.to_string() == "d1c3"), "the Maharajah leaps");
        core.play("d1c3", 1, 1).expect("Mc3");
        let id = core.current(2).expect("open").id;
        core.leave(3, 3).expect("saved");
        let reopened = core.open(id, 4).expect("reopens");
        assert_eq!(reopened.history, vec!["Mc3".to_owned()]);
        let pgn = core.pgn(None, 5, "2026.01.01").expect("pgn");
        assert!(pgn.contains("[Variant \"Maharajah\"]") && pgn.contains("[SetUp \"1\"]"), "{pgn}");
    }

    #[test]
    fn pass_and_play_names_are_saved_reopened_listed_exported_and_kept_for_a_rematch() {
        let dir = std::env::temp_dir().join(format!("maharajah-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("games.sqlite");
        let given = Names { white: Some("  Ana ".to_owned()), black: Some("Bruno".to_owned()) };
        let names = Names { white: Some("Ana".to_owned()), black: Some("Bruno".to_owned()) };
        let id = {
            let mut core = Core::new(Store::open(&path).expect("opens"));
            let start = Position::new(Variant::Chess);
            let view =
                core.new_named_game(start, Opponent::Human, &given, None, 0, 10).expect("starts");
            assert_eq!(view.names, names, "trimmed");
            for mv in ["f3", "e5", "g4", "Qh4#"] {
                core.play(mv, 0, 11).expect("legal");
            }
            view.id
        };
        // The app closed and started again: the file still knows who played.
        let mut core = Core::new(Store::open(&path).expect("reopens"));
        let view = core.open(id, 0).expect("opens");
        assert_eq!(view.names, names);
        assert_eq!(view.result.map(|r| r.winner), Some(Some(Color::Black)));
        let listed = core.history().expect("lists");
        assert_eq!(listed[0].names, names, "the history list names the players");
        let pgn = core.pgn(Some(id), 0, "2026.12.02").expect("pgn");
        assert!(pgn.contains("[White \"Ana\"]\n[Black \"Bruno\"]\n[Result \"0-1\"]"), "{pgn}");
        let rematch =
            core.rematch(0, 12, &mut rand::rngs::StdRng::seed_from_u64(1)).expect("again");
        assert_eq!((rematch.names, rematch.history.len()), (names, 0), "the same two people");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_bad_name_is_refused_with_its_code_and_nothing_starts() {
        let mut core = core();
        let cases = [
            (Names { white: Some("x".repeat(21)), black: None }, "White's name is longer"),
            (Names { white: None, black: Some("Ana\nBruno".to_owned()) }, "Black's name holds"),
            (Names { white: Some("Ana\u{202E}".to_owned()), black: None }, "White's name holds"),
        ];
        for (names, why) in cases {
            let start = Position::new(Variant::Chess);
            let error = core
                .new_named_game(start, Opponent::Human, &names, None, 0, 0)
                .expect_err("refused");
            let error = AppError::from(error);
            assert_eq!(error.code, "bad_player_name");
            assert!(error.message.starts_with(why), "{}", error.message);
        }
        assert!(core.current(0).is_none(), "no game started");
        assert!(core.history().expect("lists").is_empty(), "and none was saved");
        // Twenty characters (not bytes), blanks and nothing at all are fine.
        let twenty = "Ñandú Ñandú Ñandú Ña";
        assert_eq!((twenty.chars().count(), twenty.len() > 20), (20, true));
        let fine = Names { white: Some(twenty.to_owned()), black: Some(" ".into()) };
        let view = core
            .new_named_game(Position::default(), Opponent::Human, &fine, None, 0, 0)
            .expect("starts");
        assert_eq!(view.names.white.as_deref(), Some(twenty));
        assert_eq!(view.names.black, None, "a blank name is the colour's");
    }

    #[test]
    fn against_the_computer_the_person_has_no_name() {
        let mut core = core();
        let names = Names { white: Some("Ana".to_owned()), black: Some("Bruno".to_owned()) };
        let computer = Opponent::Computer { color: Color::Black, level: 1 };
        let view =
            core.new_named_game(Position::default(), computer, &names, None, 0, 0).expect("starts");
        assert_eq!(view.names, Names::default());
        let pgn = core.pgn(None, 0, "?").expect("pgn");
        assert!(pgn.contains("[White \"White player\"]\n[Black \"Computer (level 1)\"]"), "{pgn}");
    }

    #[test]
    fn every_move_is_saved_and_continue_finds_the_game() {
        let mut core = core();
        let view =
            core.new_variant_game(Variant::Chess, Opponent::Human, None, 0, 10).expect("new");
        assert!(view.id > 0);
        core.play("e4", 0, 11).expect("legal");
        core.play("e7e5", 0, 12).expect("legal");
        let info = core.start_info().expect("query");
        assert_eq!(info.continue_id, Some(view.id));
        // Eight levels on a human scale, rising, from a beginner's rating.
        assert_eq!(info.level_ratings, maharajah_engine::search::level::APPROX_ELO.to_vec());
        assert!(info.level_ratings.windows(2).all(|w| w[0] < w[1]));
        assert!(info.level_ratings[0] <= 900, "level 1 plays like a beginner");
        core.leave(0, 13).expect("saves");
        assert!(core.current(0).is_none());
        let reopened = core.open(view.id, 0).expect("opens");
        assert_eq!(reopened.history, ["e4", "e5"]);
        let pgn = core.pgn(Some(view.id), 0, "2026.11.29").expect("pgn");
        assert!(pgn.contains("1. e4 e5 *"), "{pgn}");
    }

    #[test]
    fn errors_carry_codes_and_leave_the_game_untouched() {
        let mut core = core();
        assert!(matches!(core.play("e4", 0, 0), Err(CoreError::NoGame)));
        core.new_variant_game(Variant::Chess, Opponent::Human, None, 0, 0).expect("new");
        let Err(CoreError::Session(error)) = core.play("e5", 0, 0) else {
            panic!("e5 is illegal for White")
        };
        assert_eq!(error.code(), "bad_move");
        assert!(core.view(0).expect("open").history.is_empty());
    }

    #[test]
    fn the_computer_answers_and_a_takeback_cancels_it() {
        let mut core = core();
        let opponent = Opponent::Computer { color: Color::Black, level: 1 };
        core.new_variant_game(Variant::Chess, opponent, None, 0, 0).expect("new");
        assert!(core.think_request(0).is_none(), "White (the person) moves first");
        core.play("e4", 0, 0).expect("legal");
        assert!(matches!(
            core.play("e5", 0, 0),
            Err(CoreError::Session(SessionError::NotYourTurn))
        ));
        let request = core.think_request(0).expect("the computer's turn");
        assert!(core.view(0).expect("open").thinking);
        let mv = Computer::new().choose(&request.game, request.level, request.clock, &request.stop);
        let view =
            core.computer_moved(request.generation, mv, 0, 0).expect("plays").expect("accepted");
        assert_eq!(view.history.len(), 2);
        assert!(!view.thinking);

        core.play("d4", 0, 0).expect("legal");
        let request = core.think_request(0).expect("the computer's turn");
        core.takeback(0, 0).expect("takes back d4");
        assert!(request.stop.load(Ordering::Relaxed), "the search is told to stop");
        assert_eq!(
            core.computer_moved(request.generation, Some("d7d5".parse().expect("uci")), 0, 0)
                .expect("ignored"),
            None
        );
        assert_eq!(core.view(0).expect("open").history.len(), 2);
    }

    #[test]
    fn flag_fall_is_saved_and_rematch_swaps_colours() {
        let mut core = core();
        let opponent = Opponent::Computer { color: Color::White, level: 2 };
        let view = core
            .new_variant_game(Variant::Horde, opponent, Some(TimeControl::new(3, 2)), 0, 0)
            .expect("new");
        let request = core.think_request(0).expect("the computer is White");
        core.computer_moved(request.generation, Some("e4e5".parse().expect("uci")), 0, 0)
            .expect("plays");
        assert_eq!(core.tick(179_999, 1).expect("ticks"), None);
        let ended = core.tick(180_000, 1).expect("ticks").expect("flag fell");
        assert_eq!(
            ended.result.map(|r| (r.winner, r.reason)),
            Some((Some(Color::White), EndReason::Timeout))
        );
        assert_eq!(core.start_info().expect("query").continue_id, None);
        let rematch = core.rematch(0, 2, &mut rand::rng()).expect("rematch");
        assert_ne!(rematch.id, view.id);
        assert_eq!(rematch.opponent, Opponent::Computer { color: Color::Black, level: 2 });
        assert_eq!(core.history().expect("lists").len(), 2);
    }

    #[test]
    fn a_custom_rematch_gives_the_computer_a_fresh_army_and_keeps_the_persons() {
        use maharajah_engine::{Role, Square};
        use rand::SeedableRng;
        let sq = |t: &str| t.parse::<Square>().expect("square");
        // The person (White) built an army with a Maharajah and no a/b/g/h pawns.
        let mut mine = Army::orthodox(Color::White);
        for square in ["a2", "b2", "g2", "h2"] {
            mine.set(sq(square), None);
        }
        mine.set(sq("d1"), Some(Role::Maharajah));
        let computers = Army::orthodox(Color::Black);
        let start = start_position(&mine, &computers).expect("legal armies");
        let mut core = core();
        let opponent = Opponent::Computer { color: Color::Black, level: 3 };
        let first = core.new_game(start, opponent, None, 0, 0).expect("starts");

        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let rematch = core.rematch(0, 1, &mut rng).expect("rematch");
        assert_ne!(rematch.id, first.id);
        assert_eq!(rematch.opponent, Opponent::Computer { color: Color::White, level: 3 });
        let session = core.session().expect("open");
        let new_start = session.game().start();
        assert_eq!(
            Army::from_position(new_start, Color::Black),
            mine.mirrored(),
            "the person keeps their army, now as Black"
        );
        let built = Army::from_position(new_start, Color::White);
        assert!(built.validate().is_ok(), "the computer's army is legal");
        assert_ne!(built, mine, "the computer does not take over the person's old army");
        let mut again = rand::rngs::StdRng::seed_from_u64(11);
        assert_eq!(built, build_army(Color::White, Level::new(3), &mut again), "freshly built");

        // Pass-and-play keeps the same armies on the same sides.
        let same = start_position(&mine, &mine.mirrored()).expect("legal armies");
        core.new_game(same.clone(), Opponent::Human, None, 0, 2).expect("starts");
        core.rematch(0, 3, &mut rng).expect("rematch");
        assert_eq!(core.session().expect("open").game().start().to_string(), same.to_string());
    }

    #[test]
    fn a_paused_game_stops_the_clock_and_the_computer_until_it_resumes() {
        let mut core = core();
        let computer_black = Opponent::Computer { color: Color::Black, level: 1 };
        core.new_game(Position::default(), computer_black, Some(TimeControl::new(3, 2)), 0, 0)
            .expect("starts");
        core.play("e4", 1_000, 0).expect("legal");
        assert!(core.think_request(1_000).is_some(), "the computer's turn");
        let view = core.pause(2_000, 0).expect("pauses");
        assert!(view.paused && !view.thinking, "the search is called off");
        assert!(core.think_request(60_000).is_none(), "no thinking while paused");
        let frozen = core.view(90_000).expect("open").clock.expect("a clock");
        assert_eq!((frozen.black_ms, frozen.running), (179_000, None));
        let view = core.resume(90_000, 0).expect("resumes");
        assert!(!view.paused);
        assert!(core.think_request(90_000).is_some(), "the computer thinks again");
    }

    #[test]
    fn the_computer_answers_a_draw_offer_from_its_search() {
        let start = |fen: &str| Position::from_fen(Variant::Chess, fen).expect("fen");
        let mut core = core();
        // Level material, but the computer (White, to move) mates with Ra8#: it plays on.
        let computer_white = Opponent::Computer { color: Color::White, level: 8 };
        let mating = start("6k1/5ppp/8/8/8/7r/5PPP/R5K1 w - - 0 1");
        core.new_game(mating, computer_white, None, 0, 0).expect("starts");
        let view = core.offer_draw(0, 0).expect("offered");
        assert_eq!((view.result, view.draw_offer), (None, Some(Color::Black)), "declined");
        // The computer (Black) is four points up but mated next move: it takes the draw.
        let computer_black = Opponent::Computer { color: Color::Black, level: 8 };
        let doomed = start("6k1/5ppp/8/8/8/8/q4PPP/4R1K1 w - - 0 1");
        core.new_game(doomed, computer_black, None, 0, 0).expect("starts");
        let view = core.offer_draw(0, 0).expect("offered");
        assert_eq!(view.result.map(|r| (r.winner, r.reason)), Some((None, EndReason::Agreement)));
    }

    #[test]
    fn hints_and_threats_are_off_searched_shown_recorded_and_exported() {
        use crate::chess::aids::AidKind;
        use maharajah_engine::search::Searcher;
        let mut core = core();
        core.new_variant_game(Variant::Chess, Opponent::Human, None, 0, 0).expect("new");
        assert!(core.view(0).expect("open").aids.is_none(), "no aids in pass-and-play");
        let refused = core.set_aid(AidKind::Hint, true, 0).expect_err("pass-and-play");
        assert_eq!(AppError::from(refused).code, "no_aids");

        // White (the person) to move mates with Qxd8#; Black, if it were its move, would mate
        // with Qxd1#.
        let start = Position::from_fen(Variant::Chess, "3q2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1")
            .expect("fen");
        let opponent = Opponent::Computer { color: Color::Black, level: 1 };
        let id = core.new_game(start, opponent, None, 0, 0).expect("new").id;
        let aids = core.view(0).expect("open").aids.expect("a game against the computer");
        assert!(!aids.hint && !aids.threat, "both off by default");
        assert!(core.aid_requests().is_empty(), "nothing is searched while off");

        core.set_aid(AidKind::Hint, true, 0).expect("on");
        core.set_aid(AidKind::Threat, true, 0).expect("on");
        let requests = core.aid_requests();
        assert_eq!(requests.iter().map(|r| r.kind).collect::<Vec<_>>(), AidKind::ALL);
        assert!(core.aid_requests().is_empty(), "asked once");
        assert!(core
            .view(0)
            .expect("open")
            .aids
            .is_some_and(|a| a.thinking && a.hint_square.is_none()));
        let mut searcher = Searcher::new(1);
        for request in &requests {
            let mv = request.answer(&mut searcher);
            core.aid_found(request, mv, 1, 1).expect("saved").expect("shown");
        }
        let view = core.view(1).expect("open");
        let aids = view.aids.expect("aids");
        assert_eq!(aids.hint_square.map(|s| s.to_string()).as_deref(), Some("d1"), "the queen");
        assert_eq!(
            aids.threat_move.map(|m| format!("{}{}", m.from, m.to)).as_deref(),
            Some("d8d1"),
            "Black's mate"
        );
        assert!(!aids.thinking);
        assert_eq!((aids.hints_used, aids.threats_used), (1, 1));
        assert!(core.aid_requests().is_empty(), "found already");

        // A move: the old answers go, the computer's turn shows none; the use stays recorded.
        core.play("h2h3", 2, 2).expect("legal");
        let aids = core.view(2).expect("open").aids.expect("aids");
        assert_eq!((aids.hint_square, aids.threat_move), (None, None));
        assert!(core.aid_requests().is_empty(), "not while the computer is to move");
        let stale = &requests[0];
        assert_eq!(
            core.aid_found(stale, Some("e1e8".parse().expect("uci")), 3, 3).ok(),
            Some(core.current(3))
        );
        assert_eq!(core.view(3).expect("open").aids.map(|a| a.hints_used), Some(1));

        // Kept with the game, and in its PGN: a tag per kind and a comment on the position.
        core.leave(4, 4).expect("saved");
        let reopened = core.open(id, 5).expect("reopens");
        let aids = reopened.aids.expect("aids");
        assert!(!aids.hint && !aids.threat, "off again when the game is opened");
        assert_eq!((aids.hints_used, aids.threats_used), (1, 1));
        let pgn = core.pgn(Some(id), 5, "2026.12.02").expect("pgn");
        assert!(pgn.contains("[Hints \"1\"]") && pgn.contains("[Threats \"1\"]"), "{pgn}");
        assert!(pgn.contains("{ hint threat }"), "{pgn}");
        assert!(pgn.contains("1. h3"), "{pgn}");
        // Without aids the export is the plain one.
        core.new_variant_game(Variant::Chess, opponent, None, 6, 6).expect("new");
        let plain = core.pgn(None, 6, "2026.12.02").expect("pgn");
        assert!(!plain.contains("Hints") && !plain.contains('{'), "{plain}");
    }

    #[test]
    fn the_app_answers_an_aid_in_the_background() {
        use crate::chess::aids::AidKind;
        use crate::Push;
        let dir = std::env::temp_dir().join(format!("maharajah-aids-{}", std::process::id()));
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Mutex::new(tx);
        let sink = move |push: Push| {
            if let Push::Game(view) = push {
                drop(tx.lock().unwrap_or_else(std::sync::PoisonError::into_inner).send(view));
            }
        };
        let app = crate::App::open(
            &dir.join("games.sqlite"),
            &dir,
            crate::lan::LanConfig::loopback(),
            crate::time::system(),
            Arc::new(sink),
        )
        .expect("an app");
        app.start();
        let opponent = Opponent::Computer { color: Color::Black, level: 1 };
        app.chess
            .act(|core, now, unix| core.new_variant_game(Variant::Chess, opponent, None, now, unix))
            .expect("a game");
        // The command answers at once: the engine looks on the aids' thread.
        let asked = app.chess.set_aid(AidKind::Hint, true).expect("on");
        assert!(asked.aids.as_ref().is_some_and(|a| a.hint && a.hint_square.is_none()));
        let shown = loop {
            let view = rx.recv_timeout(Duration::from_secs(60)).expect("a push in time");
            if view.aids.as_ref().is_some_and(|a| a.hint_square.is_some()) {
                break view;
            }
        };
        let square = shown.aids.and_then(|a| a.hint_square).expect("shown");
        assert!(shown.legal.iter().any(|m| m.from == square), "a piece that can move");
        // After the person's move and the computer's reply, the next hint comes by itself.
        let from = square;
        let mv = shown.legal.iter().find(|m| m.from == from).expect("a move");
        app.chess.act(|core, now, unix| core.play(&mv.to_string(), now, unix)).expect("legal");
        let next = loop {
            let view = rx.recv_timeout(Duration::from_secs(60)).expect("a push in time");
            if view.history.len() == 2
                && view.aids.as_ref().is_some_and(|a| a.hint_square.is_some())
            {
                break view;
            }
        };
        assert_eq!(next.aids.map(|a| a.hints_used), Some(2));
        app.chess.leave().expect("left");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pgn_dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(1_796_000_000), "2026.11.30");
    }

    #[test]
    fn the_computer_builds_its_own_army_whatever_it_is_given() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mine = Army::orthodox(Color::White);
        let decoy = Army::orthodox(Color::Black);
        let opponent = Opponent::Computer { color: Color::Black, level: 3 };
        let (white, black) =
            custom_armies(Some(mine.clone()), Some(decoy), opponent, &mut rng).expect("armies");
        assert_eq!(white, mine);
        assert!(black.validate().is_ok(), "the engine's army is legal");
        let missing = custom_armies(None, None, opponent, &mut rng).expect_err("no White army");
        assert_eq!(missing.code, "bad_army");
        let wrong =
            custom_armies(Some(Army::orthodox(Color::Black)), None, Opponent::Human, &mut rng)
                .expect_err("wrong colour");
        assert_eq!(wrong.code, "bad_army");
    }

    #[test]
    fn a_custom_start_names_the_broken_rule() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let short = Army::new(Color::White);
        let error = custom_start(
            Some(short),
            Some(Army::orthodox(Color::Black)),
            Opponent::Human,
            &mut rng,
        )
        .expect_err("nothing spent");
        assert_eq!(
            (error.code.as_ref(), error.message.as_str()),
            ("bad_start", "White spends 0 of 39 points")
        );
        let vs = Opponent::Computer { color: Color::White, level: 8 };
        let position = custom_start(None, Some(Army::orthodox(Color::Black)), vs, &mut rng)
            .expect("the computer's army and mine start");
        assert_eq!(position.turn(), Color::White);
    }

    #[test]
    fn the_commands_read_the_injected_time() {
        let time = crate::time::FakeTime::new(0, 86_400);
        let (sender, _computer) = std::sync::mpsc::channel();
        let scheduler = Arc::new(Scheduler::new());
        let state = AppState::new(core(), sender, std::env::temp_dir(), time.clone(), scheduler);
        let control = Some(TimeControl { base_ms: 1_000, increment_ms: 0 });
        state
            .act(|core, now, unix| {
                core.new_variant_game(Variant::Chess, Opponent::Human, control, now, unix)
            })
            .expect("a new game");
        for mv in ["e2e4", "e7e5"] {
            state.act(|core, now, unix| core.play(mv, now, unix)).expect("plays");
        }
        time.advance(999);
        assert!(state.current().expect("open").result.is_none(), "White still has 1 ms");
        time.advance(501);
        let late = state.act(|core, now, unix| core.play("g1f3", now, unix)).expect("answers");
        assert!(late.result.is_some(), "White's flag fell at 1 s: the late move finds it");
        assert_eq!(state.unix(), 86_401);
    }

    #[test]
    fn names_are_trimmed_and_not_empty() {
        assert_eq!(clean_name("  ").expect_err("empty").code, "bad_name");
        assert_eq!(clean_name(" Wall ").expect("fine"), "Wall");
    }

    #[test]
    fn pgn_files_are_written_where_asked() {
        let dir = std::env::temp_dir().join(format!("maharajah-export-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = write_pgn(&dir, 7, 0, "1. e4 *\n").expect("writes");
        assert_eq!(path.file_name().and_then(|n| n.to_str()), Some("maharajah-7-1970-01-01.pgn"));
        assert_eq!(std::fs::read_to_string(&path).expect("reads"), "1. e4 *\n");
        // A fresh name keeps the file that is there.
        let first = write_pgn_file(&dir, "maharajah-analysis", true, "a").expect("writes");
        let second = write_pgn_file(&dir, "maharajah-analysis", true, "b").expect("writes");
        assert_ne!(first, second);
        assert_eq!(std::fs::read_to_string(&first).expect("reads"), "a");
        assert_eq!(second.file_name().and_then(|n| n.to_str()), Some("maharajah-analysis-2.pgn"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
