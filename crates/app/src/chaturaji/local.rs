//! The local Chaturaji table: four seats on this device, any mix of people and CPU players.
//!
//! The backend owns the dice: every table draws them from a seeded RNG through
//! [`RecordedGame`], so the table's record (settings, seed, actions) replays exactly. CPU seats
//! and the time per turn are driven by the app's scheduler, which calls [`ChaturajiState::step`]
//! when [`ChaturajiCore::next_due`] says: a CPU seat acts one step at a time (roll, each move)
//! with a short visible delay, its move chosen off the lock (and off the UI thread). The table is saved to SQLite
//! after every action and an unfinished table comes back after the app restarts.
//!
//! Commands (all answer a [`TableView`], errors are [`AppError`]s): `chaturaji_new`,
//! `chaturaji_current`, `chaturaji_roll`, `chaturaji_move`, `chaturaji_end_turn`,
//! `chaturaji_resign`, `chaturaji_leave`, `chaturaji_record`. Pushed event: `chaturaji` (a new
//! [`TableView`] after a CPU action or a time-out).

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::chaturaji::online::NetState;
use crate::error::AppError;
use crate::scheduler::{earliest, Scheduler, Woken};
use crate::store::{Store, StoreError};
use crate::time::{self, Time};
use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{Action, Game, Move, Record, RecordedGame, Seat, Settings, Square};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::chaturaji::view::{table_view, TableView, ViewParts};

/// How long a CPU seat waits before each of its actions, so people can follow it.
pub const CPU_DELAY_MS: u64 = 450;

/// Why a table action was refused; becomes a [`AppError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    /// Stable code for the UI.
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
}

impl TableError {
    fn new(code: &'static str, message: impl Into<String>) -> TableError {
        TableError { code, message: message.into() }
    }
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for TableError {}

impl From<TableError> for AppError {
    fn from(error: TableError) -> AppError {
        AppError::new(error.code, error.message)
    }
}

impl From<StoreError> for TableError {
    fn from(error: StoreError) -> TableError {
        TableError::new("storage", format!("saved tables: {error}"))
    }
}

fn rule_error(error: impl std::fmt::Display) -> TableError {
    TableError::new("illegal", error.to_string())
}

/// The open table.
#[derive(Debug)]
struct Table {
    id: i64,
    game: RecordedGame,
    version: u64,
    /// When the current turn started (for the time per turn), app milliseconds.
    turn_started_ms: u64,
    /// When the CPU seat to move may act next.
    cpu_due_ms: u64,
}

/// A CPU decision to make off the lock: the game to think about and how to recognise the answer.
#[derive(Debug, Clone)]
pub struct CpuJob {
    /// The table version the decision is for.
    pub version: u64,
    /// The game.
    pub game: Game,
    /// The level of the seat to move.
    pub level: Level,
    /// Seed for the CPU's own choices (derived from the dice seed and the record's length).
    pub seed: u64,
}

impl CpuJob {
    /// Chooses the CPU's next action (slow for Strong: run it without holding the core).
    #[must_use]
    pub fn decide(&self) -> Action {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        cpu::choose_action(&self.game, self.level, &mut rng).unwrap_or(Action::EndTurn)
    }
}

/// What [`ChaturajiCore::tick`] found to do.
#[derive(Debug)]
pub enum Tick {
    /// Nothing is due.
    Idle,
    /// Something was applied (a CPU roll, a time-out): push this view.
    Changed(TableView),
    /// A CPU seat must decide: run [`CpuJob::decide`] then [`ChaturajiCore::cpu_answer`].
    Think(CpuJob),
}

/// The local tables: the open one and where tables are saved.
#[derive(Debug)]
pub struct ChaturajiCore {
    table: Option<Table>,
    db: Option<Store>,
    cpu_delay_ms: u64,
    time: Time,
}

fn level_of(settings: &Settings, seat: Seat) -> Option<Level> {
    match settings.players[seat] {
        Player::Cpu { level } => Some(level),
        Player::Person => None,
    }
}

impl ChaturajiCore {
    /// The same tables reading the time from `time` (the system's by default).
    #[must_use]
    pub fn with_time(self, time: Time) -> ChaturajiCore {
        ChaturajiCore { time, ..self }
    }

    /// A core saving its tables in `store` (the app's one store).
    #[must_use]
    pub fn new(store: Store, cpu_delay_ms: u64) -> ChaturajiCore {
        ChaturajiCore { table: None, db: Some(store), cpu_delay_ms, time: time::system() }
    }

    /// A core saving to the SQLite file at `path` (a store of its own).
    ///
    /// # Errors
    /// [`TableError`] when the file cannot be opened.
    pub fn open(path: &Path, cpu_delay_ms: u64) -> Result<ChaturajiCore, TableError> {
        Ok(ChaturajiCore::new(Store::open(path)?, cpu_delay_ms))
    }

    /// A core that keeps nothing after it is dropped (tests).
    ///
    /// # Errors
    /// [`TableError`] if SQLite cannot create the in-memory database.
    pub fn in_memory(cpu_delay_ms: u64) -> Result<ChaturajiCore, TableError> {
        Ok(ChaturajiCore::new(Store::in_memory()?, cpu_delay_ms))
    }

    /// Opens a new table with `settings` and dice from `seed`.
    ///
    /// # Errors
    /// `bad_settings` naming the setting out of range; `storage` if it cannot be saved.
    pub fn new_table(
        &mut self,
        settings: Settings,
        seed: u64,
        now: u64,
    ) -> Result<TableView, TableError> {
        settings.validate().map_err(|e| TableError::new("bad_settings", e.to_string()))?;
        let game = RecordedGame::new(settings, seed)
            .map_err(|e| TableError::new("bad_settings", e.to_string()))?;
        let mut table = Table {
            id: 0,
            game,
            version: 1,
            turn_started_ms: now,
            cpu_due_ms: now + self.cpu_delay_ms,
        };
        table.id = self.save(&table)?;
        self.table = Some(table);
        self.view(now)
    }

    /// The open table, or else the newest unfinished saved one (after a restart), or `None`.
    ///
    /// # Errors
    /// `storage` when the saved table cannot be read; `bad_record` when it does not replay.
    pub fn current(&mut self, now: u64) -> Result<Option<TableView>, TableError> {
        if self.table.is_none() {
            let Some(db) = &self.db else { return Ok(None) };
            let Some((id, text)) = db.latest_table()? else { return Ok(None) };
            let record = Record::from_json(&text)
                .map_err(|e| TableError::new("bad_record", e.to_string()))?;
            let game = RecordedGame::resume(record)
                .map_err(|e| TableError::new("bad_record", e.to_string()))?;
            self.table = Some(Table {
                id,
                game,
                version: 1,
                turn_started_ms: now,
                cpu_due_ms: now + self.cpu_delay_ms,
            });
        }
        self.view(now).map(Some)
    }

    /// This device's id for network tables: random, made once and kept (a dropped person who
    /// comes back from the same device gets their seat back).
    ///
    /// # Errors
    /// `storage` when it cannot be read or saved.
    pub fn device_id(&self) -> Result<String, TableError> {
        let Some(db) = &self.db else { return Ok(new_device_id()) };
        Ok(db.device_id(new_device_id)?)
    }

    /// Closes the open table (it stays saved; an unfinished one can be continued).
    pub fn leave(&mut self) {
        self.table = None;
    }

    /// The record of the open table as JSON.
    ///
    /// # Errors
    /// `no_table`.
    pub fn record_json(&self) -> Result<String, TableError> {
        Ok(self.table()?.game.record().to_json())
    }

    fn table(&self) -> Result<&Table, TableError> {
        self.table.as_ref().ok_or_else(|| TableError::new("no_table", "no Chaturaji table is open"))
    }

    /// The person to move rolls the dice.
    ///
    /// # Errors
    /// `no_table`, `cpu_seat` (a CPU plays the seat to move), `illegal` (not the time to roll).
    pub fn roll(&mut self, now: u64) -> Result<TableView, TableError> {
        self.person_turn()?;
        self.apply(None, now)
    }

    /// The person to move plays the piece on `from` to `to` (with die `die`, or whichever die
    /// allows it).
    ///
    /// # Errors
    /// `no_table`, `cpu_seat`, `illegal` naming why the move is refused.
    pub fn play(
        &mut self,
        from: Square,
        to: Square,
        die: Option<u8>,
        now: u64,
    ) -> Result<TableView, TableError> {
        self.person_turn()?;
        let game = self.table()?.game.game();
        let mv = match die {
            Some(die) => Move { die, from, to },
            None => game
                .legal_moves()
                .into_iter()
                .find(|m| m.from == from && m.to == to)
                .unwrap_or(Move { die: 0, from, to }),
        };
        self.apply(Some(Action::Move(mv)), now)
    }

    /// The person to move ends the turn.
    ///
    /// # Errors
    /// `no_table`, `cpu_seat`, `illegal` (before rolling, or dice must all be used).
    pub fn end_turn(&mut self, now: u64) -> Result<TableView, TableError> {
        self.person_turn()?;
        self.apply(Some(Action::EndTurn), now)
    }

    /// A person's seat resigns (at any time).
    ///
    /// # Errors
    /// `no_table`, `cpu_seat` (a CPU seat cannot be resigned from here), `illegal`.
    pub fn resign(&mut self, seat: Seat, now: u64) -> Result<TableView, TableError> {
        let table = self.table()?;
        if level_of(table.game.game().settings(), seat).is_some() {
            return Err(TableError::new("cpu_seat", format!("{seat} is played by the CPU")));
        }
        self.apply(Some(Action::Resign { seat }), now)
    }

    fn person_turn(&self) -> Result<(), TableError> {
        let game = self.table()?.game.game();
        let seat = game.to_move();
        if !game.is_over() && level_of(game.settings(), seat).is_some() {
            return Err(TableError::new(
                "cpu_seat",
                format!("it is {seat}'s turn, which the CPU plays"),
            ));
        }
        Ok(())
    }

    /// Applies an action (`None`: a roll from the seed), logs its events and saves the table.
    fn apply(&mut self, action: Option<Action>, now: u64) -> Result<TableView, TableError> {
        let delay = self.cpu_delay_ms;
        let table = self
            .table
            .as_mut()
            .ok_or_else(|| TableError::new("no_table", "no Chaturaji table is open"))?;
        let before = (table.game.game().to_move(), table.game.game().round());
        // The events go into the game's own log.
        match action {
            None => table.game.roll(),
            Some(action) => table.game.act(action),
        }
        .map_err(rule_error)?;
        table.version += 1;
        table.cpu_due_ms = now + delay;
        let game = table.game.game();
        if (game.to_move(), game.round()) != before {
            table.turn_started_ms = now;
        }
        let id = self.save(self.table()?)?;
        if let Some(table) = self.table.as_mut() {
            table.id = id;
        }
        self.view(now)
    }

    fn save(&self, table: &Table) -> Result<i64, TableError> {
        let Some(db) = &self.db else { return Ok(table.id) };
        let text = table.game.record().to_json();
        Ok(db.save_table(table.id, &text, table.game.game().is_over(), self.time.unix())?)
    }

    /// When [`ChaturajiCore::tick`] has something to do next: the CPU seat's next step or the
    /// end of the turn's time, whichever is first (`None`: nothing until a person acts).
    #[must_use]
    pub fn next_due(&self) -> Option<u64> {
        let table = self.table.as_ref()?;
        let game = table.game.game();
        if game.is_over() {
            return None;
        }
        let settings = game.settings();
        let timeout =
            settings.turn_time.seconds().map(|s| table.turn_started_ms + u64::from(s) * 1000);
        let cpu = level_of(settings, game.to_move()).map(|_| table.cpu_due_ms);
        earliest(timeout, cpu)
    }

    /// The worker's step: applies a time-out or a CPU roll when due, or asks for a CPU decision.
    ///
    /// # Errors
    /// `storage` when saving fails; a refused CPU or time-out action (a bug) as `illegal`.
    pub fn tick(&mut self, now: u64) -> Result<Tick, TableError> {
        let Some(table) = &self.table else { return Ok(Tick::Idle) };
        let game = table.game.game();
        if game.is_over() {
            return Ok(Tick::Idle);
        }
        if let Some(limit) = game.settings().turn_time.seconds() {
            if now >= table.turn_started_ms + u64::from(limit) * 1000 {
                let view = if game.dice().is_some() {
                    self.apply(Some(Action::TimeOut), now)?
                } else {
                    // Nothing rolled yet: roll, then the unused dice time out.
                    self.apply(None, now)?;
                    if self.table()?.game.game().dice().is_some() {
                        self.apply(Some(Action::TimeOut), now)?
                    } else {
                        self.view(now)?
                    }
                };
                return Ok(Tick::Changed(view));
            }
        }
        let Some(level) = level_of(game.settings(), game.to_move()) else { return Ok(Tick::Idle) };
        if now < table.cpu_due_ms {
            return Ok(Tick::Idle);
        }
        if game.dice().is_none() {
            return self.apply(None, now).map(Tick::Changed);
        }
        let seed = table.game.record().seed.unwrap_or(0)
            ^ (table.game.record().actions.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Ok(Tick::Think(CpuJob { version: table.version, game: game.clone(), level, seed }))
    }

    /// Applies a CPU decision made for `version`; `None` if the table changed meanwhile.
    ///
    /// # Errors
    /// As [`ChaturajiCore::tick`].
    pub fn cpu_answer(
        &mut self,
        version: u64,
        action: Action,
        now: u64,
    ) -> Result<Option<TableView>, TableError> {
        match &self.table {
            Some(table) if table.version == version => self.apply(Some(action), now).map(Some),
            _ => Ok(None),
        }
    }

    /// The view of the open table.
    ///
    /// # Errors
    /// `no_table`.
    pub fn view(&self, now: u64) -> Result<TableView, TableError> {
        let table = self.table()?;
        let game = table.game.game();
        let settings = game.settings();
        let over = game.is_over();
        Ok(table_view(
            game,
            ViewParts {
                id: table.id,
                version: table.version,
                seed: table.game.record().seed.unwrap_or(0),
                actions: table.game.record().actions.len(),
                cpu_to_move: !over && level_of(settings, game.to_move()).is_some(),
                time_left_ms: settings
                    .turn_time
                    .seconds()
                    .filter(|_| !over)
                    .map(|s| (table.turn_started_ms + u64::from(s) * 1000).saturating_sub(now)),
                log: table.game.log().iter().cloned().collect(),
                remote: None,
            },
        ))
    }
}

/// The Tauri state around the core: the lock and the app's clock.
#[derive(Debug)]
pub struct ChaturajiState {
    core: Mutex<ChaturajiCore>,
    time: Time,
    scheduler: Arc<Scheduler>,
}

impl ChaturajiState {
    /// State around `core`; every change wakes `scheduler`.
    #[must_use]
    pub fn new(core: ChaturajiCore, scheduler: Arc<Scheduler>) -> ChaturajiState {
        let time = Arc::clone(&core.time);
        ChaturajiState { core: Mutex::new(core), time, scheduler }
    }

    /// Milliseconds on the app's time scale (the core's time source).
    #[must_use]
    pub fn now(&self) -> u64 {
        self.time.now_ms()
    }

    /// Locks the core (a poisoned lock is recovered: every action is applied whole or not at all);
    /// letting it go wakes the scheduler.
    pub fn core(&self) -> Woken<'_, ChaturajiCore> {
        Woken::new(self.lock(), &self.scheduler)
    }

    fn lock(&self) -> MutexGuard<'_, ChaturajiCore> {
        self.core.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The table's due work, for the scheduler: one CPU step or time-out if due (its move chosen
    /// without holding the core), its view handed to `push`; answers when the next is due.
    pub fn step(&self, push: impl Fn(TableView)) -> Option<u64> {
        let now = self.now();
        let tick = self.lock().tick(now);
        let pushed = match tick {
            Ok(Tick::Idle) => Ok(None),
            Ok(Tick::Changed(view)) => Ok(Some(view)),
            Ok(Tick::Think(job)) => {
                let action = job.decide();
                self.lock().cpu_answer(job.version, action, self.now())
            }
            Err(error) => Err(error),
        };
        match pushed {
            Ok(Some(view)) => push(view),
            Ok(None) => {}
            Err(error) => {
                eprintln!("the Chaturaji table refused a CPU step: {error}");
                return Some(now + 1_000);
            }
        }
        self.lock().next_due()
    }
}

fn new_device_id() -> String {
    format!("device-{:032x}", rand::random::<u128>())
}

/// The local tables saved in `store` and the network seat of this device (its id is kept in
/// the store too).
#[must_use]
pub fn open(store: Store, time: &Time, scheduler: &Arc<Scheduler>) -> (ChaturajiState, NetState) {
    let core = ChaturajiCore::new(store, CPU_DELAY_MS).with_time(Arc::clone(time));
    let device = core.device_id().unwrap_or_else(|error| {
        eprintln!("{error}; this device gets a new id for network tables");
        new_device_id()
    });
    (ChaturajiState::new(core, Arc::clone(scheduler)), NetState::new(device))
}

/// A square named by the UI (`"d1"`).
///
/// # Errors
/// `bad_square`.
pub fn parse_square(text: &str) -> Result<Square, AppError> {
    text.parse::<Square>()
        .map_err(|e| AppError { code: "bad_square".into(), message: e.to_string() })
}

/// Table settings sent by the UI: any subset of them (the rest take defaults).
///
/// # Errors
/// `bad_settings` when they cannot be read.
pub fn parse_settings(settings: serde_json::Value) -> Result<Settings, AppError> {
    serde_json::from_value(settings)
        .map_err(|e| AppError { code: "bad_settings".into(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use maharajah_chaturaji::settings::{DiceUse, TurnTime};
    use maharajah_chaturaji::Event;
    use maharajah_chaturaji::Phase;

    fn sq(text: &str) -> Square {
        text.parse().expect("test squares are valid")
    }

    fn one_person(level: Level) -> Settings {
        let mut settings = Settings::default();
        for seat in [Seat::Blue, Seat::Yellow, Seat::Green] {
            settings.players[seat] = Player::Cpu { level };
        }
        settings
    }

    /// Runs the worker's loop by hand until the person (Red) is to move again or the game ends.
    fn run_cpus(core: &mut ChaturajiCore, now: &mut u64) -> usize {
        let mut steps = 0;
        loop {
            *now += CPU_DELAY_MS;
            match core.tick(*now).expect("ticks succeed") {
                Tick::Idle => {
                    let view = core.view(*now).expect("open");
                    if !view.cpu_to_move {
                        return steps;
                    }
                }
                Tick::Changed(_) => steps += 1,
                Tick::Think(job) => {
                    let action = job.decide();
                    core.cpu_answer(job.version, action, *now).expect("cpu acts").expect("fresh");
                    steps += 1;
                }
            }
            assert!(steps < 10_000, "the CPUs never hand the turn back");
        }
    }

    #[test]
    fn a_person_and_three_cpus_play_a_turn_each_and_the_record_replays() {
        let mut core = ChaturajiCore::in_memory(CPU_DELAY_MS).expect("sqlite");
        let mut now = 0;
        let view = core.new_table(one_person(Level::Greedy), 7, now).expect("new table");
        assert_eq!(view.pieces.len(), 32);
        assert_eq!(view.to_move, Seat::Red);
        assert_eq!(view.phase, Phase::Roll { seat: Seat::Red });
        assert!(!view.cpu_to_move);
        assert_eq!(view.round, 1);
        // Nothing happens for the person by itself.
        now += 10_000;
        assert!(matches!(core.tick(now).expect("tick"), Tick::Idle));
        let view = core.roll(now).expect("roll");
        let dice = view.dice.clone().expect("rolled");
        assert_eq!(dice.len(), 2);
        // Play every die that allows something; each die's moves are legal for that die.
        let mut view = view;
        while let Some(d) = view.dice.as_ref().and_then(|d| d.iter().find(|d| d.usable).cloned()) {
            assert!(!d.moves.is_empty(), "a usable die lists its moves");
            let step = d.moves[0];
            view = core.play(step.from, step.to, Some(d.index), now).expect("legal move");
            if view.to_move != Seat::Red {
                break;
            }
        }
        if view.to_move == Seat::Red {
            view = core.end_turn(now).expect("end turn");
        }
        assert_eq!(view.to_move, Seat::Blue);
        assert!(view.cpu_to_move);
        // The person cannot act for a CPU seat.
        assert_eq!(core.roll(now).map(|_| ()).expect_err("refused").code, "cpu_seat");
        run_cpus(&mut core, &mut now);
        let view = core.view(now).expect("open");
        assert_eq!(view.to_move, Seat::Red);
        assert_eq!(view.round, 2, "a full round went by");
        assert!(view.log.iter().any(|e| matches!(e, Event::Rolled { seat: Seat::Green, .. })));
        // The record replays to the same position.
        let record = Record::from_json(&core.record_json().expect("record")).expect("parses");
        assert_eq!(record.seed, Some(7));
        let replay = record.replay().expect("replays");
        assert!(replay.violation.is_none());
        assert_eq!(replay.game.board(), core.table().expect("open").game.game().board());
    }

    #[test]
    fn an_all_cpu_table_plays_to_the_end_with_a_ranking() {
        let mut core = ChaturajiCore::in_memory(0).expect("sqlite");
        let mut settings = one_person(Level::Greedy);
        settings.players[Seat::Red] = Player::Cpu { level: Level::Random };
        settings.round_limit = 6;
        let mut now = 0;
        core.new_table(settings, 11, now).expect("new table");
        run_cpus(&mut core, &mut now);
        let view = core.view(now).expect("open");
        let outcome = view.outcome.expect("the game ended");
        assert_eq!(outcome.standings.len(), 4);
        assert_eq!(outcome.standings[0].place, 1);
        assert!(!view.cpu_to_move);
        let total: u32 = Seat::ALL.iter().map(|&s| view.scores[s]).sum();
        let listed: u32 = outcome.standings.iter().map(|s| s.points).sum();
        assert_eq!(total, listed);
    }

    #[test]
    fn unusable_dice_carry_their_reason_and_illegal_moves_are_named() {
        let mut core = ChaturajiCore::in_memory(0).expect("sqlite");
        let mut now = 0;
        core.new_table(Settings::default(), 3, now).expect("new table");
        let err = core.play(sq("a2"), sq("a3"), None, now).expect_err("refused");
        assert_eq!(err.code, "illegal");
        assert!(err.message.contains("roll"), "{}", err.message);
        // Walk seeded tables until some roll leaves a die unusable at once; its reason is shown.
        let mut found = false;
        for seed in 0..200 {
            core.new_table(Settings::default(), seed, now).expect("new table");
            let view = core.roll(now).expect("roll");
            let discarded = view.log.iter().any(|e| matches!(e, Event::DieDiscarded { .. }));
            let blocked = view
                .dice
                .iter()
                .flatten()
                .any(|d| !d.usable && d.reason.is_some() && d.moves.is_empty());
            if discarded || blocked {
                found = true;
                break;
            }
            now += 1;
        }
        assert!(found, "some opening roll has an unusable die (a blocked elephant or boat)");
        let err = core.play(sq("h8"), sq("h6"), Some(0), now);
        assert!(err.is_err());
    }

    #[test]
    fn must_use_dice_forbids_ending_early() {
        let mut core = ChaturajiCore::in_memory(0).expect("sqlite");
        let settings = Settings { dice_use: DiceUse::MustUseAll, ..Settings::default() };
        for seed in 0..50 {
            core.new_table(settings.clone(), seed, 0).expect("new table");
            let view = core.roll(0).expect("roll");
            if view.dice.iter().flatten().any(|d| d.usable) && view.to_move == Seat::Red {
                assert!(!view.can_end_turn);
                assert_eq!(core.end_turn(0).expect_err("refused").code, "illegal");
                return;
            }
        }
        panic!("no seed gave a usable die");
    }

    #[test]
    fn time_per_turn_discards_the_dice_and_passes_the_turn() {
        let mut core = ChaturajiCore::in_memory(0).expect("sqlite");
        let settings = Settings { turn_time: TurnTime::Seconds30, ..Settings::default() };
        core.new_table(settings, 5, 0).expect("new table");
        let view = core.view(1000).expect("open");
        assert_eq!(view.time_left_ms, Some(29_000));
        assert!(matches!(core.tick(29_999).expect("tick"), Tick::Idle));
        let Tick::Changed(view) = core.tick(30_000).expect("tick") else {
            panic!("the time-out applies")
        };
        assert_eq!(view.to_move, Seat::Blue);
        assert_eq!(view.time_left_ms, Some(30_000));
        assert!(view.log.iter().any(|e| matches!(e, Event::TurnEnded { seat: Seat::Red })));
    }

    #[test]
    fn bad_settings_and_cpu_resignation_are_refused() {
        let mut core = ChaturajiCore::in_memory(0).expect("sqlite");
        let err = core.new_table(Settings { round_limit: 0, ..Settings::default() }, 1, 0);
        assert_eq!(err.expect_err("refused").code, "bad_settings");
        core.new_table(one_person(Level::Random), 1, 0).expect("new table");
        assert_eq!(core.resign(Seat::Blue, 0).expect_err("refused").code, "cpu_seat");
        let view = core.resign(Seat::Red, 0).expect("a person resigns");
        assert!(view.resigned.red);
    }

    #[test]
    fn an_unfinished_table_survives_a_restart() {
        let dir = std::env::temp_dir().join(format!("chaturaji-app-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("maharajah.sqlite");
        let _ = std::fs::remove_file(&path);
        let (id, pieces, actions, log) = {
            let mut core = ChaturajiCore::open(&path, 0).expect("open");
            core.new_table(one_person(Level::Greedy), 99, 0).expect("new table");
            let mut view = core.roll(0).expect("roll");
            if let Some(step) =
                view.dice.iter().flatten().find(|d| d.usable).map(|d| (d.moves[0], d.index))
            {
                view = core.play(step.0.from, step.0.to, Some(step.1), 0).expect("move");
            }
            (view.id, view.pieces, view.actions, view.log)
        };
        assert!(!log.is_empty());
        let mut core = ChaturajiCore::open(&path, 0).expect("reopen");
        let view = core.current(0).expect("reads").expect("the unfinished table comes back");
        assert_eq!(view.id, id);
        assert_eq!(view.pieces, pieces);
        assert_eq!(view.actions, actions);
        assert_eq!(view.log, log, "the log comes back with the table");
        core.leave();
        // A finished table does not come back.
        let mut settings = one_person(Level::Random);
        settings.players[Seat::Red] = Player::Cpu { level: Level::Random };
        settings.round_limit = 1;
        let mut now = 0;
        let mut core = ChaturajiCore::open(&path, 0).expect("reopen");
        core.current(0).expect("reads");
        core.new_table(settings, 4, 0).expect("new");
        run_cpus(&mut core, &mut now);
        assert!(core.view(now).expect("open").outcome.is_some());
        drop(core);
        let mut core = ChaturajiCore::open(&path, 0).expect("reopen");
        let view = core.current(0).expect("reads").expect("the first table is still unfinished");
        assert_eq!(view.id, id);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
