//! Commands the web-view UI invokes. Each returns `Result<T, CommandError>`; the error serialises
//! as `{ code, message }` so the UI can branch on `code` and show `message`.
//!
//! The commands are thin: they lock the [`Core`], call one method with the current time, and
//! hand the computer a search request when it is its turn. Pushed events: `game` (a new
//! [`GameView`] the UI did not ask for: the computer moved, a flag fell) and `clock` (the running
//! clock, a few times a second).

use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use maharajah_engine::search::{build_army, Level};
use maharajah_engine::{Army, Color, Role, Square, Variant};
use serde::Serialize;
use tauri::State;

use crate::app::{pgn_date, Core, CoreError, StartInfo, ThinkRequest};
use crate::builder::{self, army_of, ArmyView, BadArmy, Problem, Reach};
use crate::clock::TimeControl;
use crate::session::{BoardView, GameView, Opponent};
use crate::store::{GameSummary, SavedArmy};

/// An error a command reports to the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandError {
    /// Stable machine-readable code the UI branches on, e.g. `"bad_fen"`.
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for CommandError {}

impl From<CoreError> for CommandError {
    fn from(error: CoreError) -> CommandError {
        let code = match &error {
            CoreError::Session(e) => e.code(),
            CoreError::Store(_) => "storage",
            CoreError::NoGame => "no_game",
        };
        CommandError { code, message: error.to_string() }
    }
}

/// What the commands share: the core, the app's monotonic epoch, the computer's inbox.
#[derive(Debug)]
pub struct AppState {
    core: Mutex<Core>,
    epoch: Instant,
    computer: Mutex<Sender<ThinkRequest>>,
    export_dir: PathBuf,
}

impl AppState {
    /// State around `core`; search requests go to `computer`; PGN files are saved in `export_dir`.
    #[must_use]
    pub fn new(core: Core, computer: Sender<ThinkRequest>, export_dir: PathBuf) -> AppState {
        AppState {
            core: Mutex::new(core),
            epoch: Instant::now(),
            computer: Mutex::new(computer),
            export_dir,
        }
    }

    /// Milliseconds since the app started: the clocks' time scale.
    #[must_use]
    pub fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Locks the core (a poisoned lock is recovered: the core holds no half-done invariants).
    pub fn core(&self) -> MutexGuard<'_, Core> {
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

    /// Runs `action` on the core, then lets the computer think, and returns the fresh view.
    fn act(
        &self,
        action: impl FnOnce(&mut Core, u64, i64) -> Result<GameView, CoreError>,
    ) -> Result<GameView, CommandError> {
        let now = self.now();
        let mut core = self.core();
        // A flag that fell since the last tick ends the game first (and is saved); a move made
        // too late then answers with the finished game rather than an error.
        let flagged = core.tick(now, unix_now())?;
        if let Err(error) = action(&mut core, now, unix_now()) {
            return flagged.ok_or_else(|| error.into());
        }
        self.think(&mut core, now);
        Ok(core.view(now)?)
    }
}

/// Seconds since 1970 by the wall clock (dates of saved games).
#[must_use]
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Versions shown in the About screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Versions {
    /// The app's version (the `maharajah` package).
    pub app: String,
    /// The rules engine's version (the `maharajah-engine` package).
    pub engine: String,
}

/// Returns the app and engine versions.
///
/// # Errors
/// Never fails today; the `Result` keeps every command's shape the same.
#[tauri::command]
pub fn versions() -> Result<Versions, CommandError> {
    Ok(Versions {
        app: env!("CARGO_PKG_VERSION").to_owned(),
        engine: maharajah_engine::VERSION.to_owned(),
    })
}

/// What the start screen needs: the game "Continue" opens.
///
/// # Errors
/// `storage` when the saved games cannot be read.
#[tauri::command]
pub fn start_info(state: State<'_, AppState>) -> Result<StartInfo, CommandError> {
    Ok(state.core().start_info()?)
}

/// Starts a new game of `variant` against `opponent`, with an optional clock.
///
/// # Errors
/// `storage` when it cannot be saved.
#[tauri::command]
pub fn new_game(
    state: State<'_, AppState>,
    variant: Variant,
    opponent: Opponent,
    time_control: Option<TimeControl>,
) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.new_variant_game(variant, opponent, time_control, now, unix))
}

/// Opens a saved game (continue or look at it).
///
/// # Errors
/// `storage` / `bad_import` when it cannot be loaded.
#[tauri::command]
pub fn open_game(state: State<'_, AppState>, id: i64) -> Result<GameView, CommandError> {
    state.act(|core, now, _| core.open(id, now))
}

/// The open game, if any.
///
/// # Errors
/// Never fails; `None` when no game is open.
#[tauri::command]
pub fn current_game(state: State<'_, AppState>) -> Result<Option<GameView>, CommandError> {
    Ok(state.core().current(state.now()))
}

/// Plays the person's move, given as UCI (`e2e4`, `e7e8q`) or SAN (`Nf3`).
///
/// # Errors
/// `bad_move`, `illegal_move`, `game_over`, `not_your_turn`, `no_game`.
#[tauri::command]
pub fn play_move(state: State<'_, AppState>, mv: String) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.play(&mv, now, unix))
}

/// The board after `ply` moves, for reviewing the move list.
///
/// # Errors
/// `no_game`.
#[tauri::command]
pub fn review(state: State<'_, AppState>, ply: usize) -> Result<BoardView, CommandError> {
    Ok(state.core().review(ply)?)
}

/// Claims the draw that is claimable now.
///
/// # Errors
/// `nothing_to_claim`, `game_over`, `no_game`.
#[tauri::command]
pub fn claim_draw(state: State<'_, AppState>) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.claim_draw(now, unix))
}

/// Offers a draw (the computer answers after a short search, run off the UI's main thread; a
/// friend accepts with `accept_draw`).
///
/// # Errors
/// `game_over`, `no_game`.
#[tauri::command(async)]
pub fn offer_draw(state: State<'_, AppState>) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.offer_draw(now, unix))
}

/// Accepts the standing draw offer.
///
/// # Errors
/// `nothing_to_claim`, `no_game`.
#[tauri::command]
pub fn accept_draw(state: State<'_, AppState>) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.accept_draw(now, unix))
}

/// The person resigns.
///
/// # Errors
/// `game_over`, `no_game`.
#[tauri::command]
pub fn resign(state: State<'_, AppState>) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.resign(now, unix))
}

/// Takes back the last move (and cancels the computer's thinking).
///
/// # Errors
/// `nothing_to_take_back`, `game_over`, `no_game`.
#[tauri::command]
pub fn takeback(state: State<'_, AppState>) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.takeback(now, unix))
}

/// A new game with the same opponent and clock (see `Core::rematch` for the start and colours).
///
/// # Errors
/// `no_game`, `storage`.
#[tauri::command]
pub fn rematch(state: State<'_, AppState>) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.rematch(now, unix, &mut rand::rng()))
}

/// Leaves the game screen: the computer stops, the game and its clock are saved.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn leave_game(state: State<'_, AppState>) -> Result<(), CommandError> {
    let now = state.now();
    Ok(state.core().leave(now, unix_now())?)
}

/// Saved games, newest first.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn history(state: State<'_, AppState>) -> Result<Vec<GameSummary>, CommandError> {
    Ok(state.core().history()?)
}

/// A game as PGN text: the open one, or the saved game `id`.
///
/// # Errors
/// `no_game`, `storage`.
#[tauri::command]
pub fn export_pgn(state: State<'_, AppState>, id: Option<i64>) -> Result<String, CommandError> {
    Ok(state.core().pgn(id, state.now(), &pgn_date(unix_now()))?)
}

/// Saves a game's PGN as a file in the downloads folder; returns the file's path.
///
/// # Errors
/// `no_game`, `storage`, `write_failed`.
#[tauri::command]
pub fn save_pgn(state: State<'_, AppState>, id: Option<i64>) -> Result<String, CommandError> {
    let unix = unix_now();
    let (text, game_id) = {
        let core = state.core();
        let text = core.pgn(id, state.now(), &pgn_date(unix))?;
        (text, id.or_else(|| core.current(state.now()).map(|v| v.id)).unwrap_or(0))
    };
    let path = write_pgn(&state.export_dir, game_id, unix, &text)?;
    Ok(path.display().to_string())
}

/// Writes `text` as `maharajah-<id>-<date>.pgn` in `dir` (created if missing).
///
/// # Errors
/// `write_failed` when the folder or file cannot be written.
pub fn write_pgn(
    dir: &std::path::Path,
    id: i64,
    unix: i64,
    text: &str,
) -> Result<PathBuf, CommandError> {
    let failed = |e: std::io::Error| CommandError {
        code: "write_failed",
        message: format!("could not save the file: {e}"),
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let path = dir.join(format!("maharajah-{id}-{}.pgn", pgn_date(unix).replace('.', "-")));
    std::fs::write(&path, text).map_err(failed)?;
    Ok(path)
}

/// Imports a PGN or FEN and opens it as a pass-and-play game.
///
/// # Errors
/// `bad_import`, `storage`.
#[tauri::command]
pub fn import_game(state: State<'_, AppState>, text: String) -> Result<GameView, CommandError> {
    state.act(|core, now, unix| core.import(&text, now, unix))
}

/// Every stored setting as a JSON object.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn settings(
    state: State<'_, AppState>,
) -> Result<serde_json::Map<String, serde_json::Value>, CommandError> {
    let settings = state.core().store().settings().map_err(CoreError::from)?;
    // The kept network seat carries a secret token: it stays in the backend.
    Ok(settings.into_iter().filter(|(key, _)| key != crate::netplay::commands::SEAT_KEY).collect())
}

/// Stores one setting.
///
/// # Errors
/// `bad_setting` for an unknown key, `storage`.
#[tauri::command]
pub fn set_setting(
    state: State<'_, AppState>,
    key: String,
    value: serde_json::Value,
) -> Result<(), CommandError> {
    const KEYS: [&str; 7] =
        ["theme", "sounds", "autoTurn", "animation", "timeControl", "language", "serverUrl"];
    if !KEYS.contains(&key.as_str()) {
        return Err(CommandError {
            code: "bad_setting",
            message: format!("unknown setting {key:?}"),
        });
    }
    Ok(state.core().store().set_setting(&key, &value).map_err(CoreError::from)?)
}

/// The builder's view of `army` (none: the empty army of `color`, its king alone).
///
/// # Errors
/// `bad_army` when the army is the other colour's.
#[tauri::command]
pub fn army_view(color: Color, army: Option<Army>) -> Result<ArmyView, CommandError> {
    Ok(ArmyView::of(&army_of(color, army.as_ref()).map_err(bad_army)?))
}

/// Puts `role` on `square` of `army` (or clears it): the new army, or the same one with
/// `refused` naming the rule that refuses the change.
///
/// # Errors
/// `bad_army` when the army is the other colour's.
#[tauri::command]
pub fn army_place(
    color: Color,
    army: Option<Army>,
    square: Square,
    role: Option<Role>,
) -> Result<ArmyView, CommandError> {
    Ok(builder::place(&army_of(color, army.as_ref()).map_err(bad_army)?, square, role))
}

/// Moves the piece on `from` to `to` within `army`, refused like [`army_place`].
///
/// # Errors
/// `bad_army` when the army is the other colour's.
#[tauri::command]
pub fn army_move(
    color: Color,
    army: Option<Army>,
    from: Square,
    to: Square,
) -> Result<ArmyView, CommandError> {
    Ok(builder::shift(&army_of(color, army.as_ref()).map_err(bad_army)?, from, to))
}

/// A ready-made army for `color`: `orthodox`, `random` (a random legal army), `empty`, or
/// `mirror` (the given army of the other side, mirrored).
///
/// # Errors
/// `bad_army` for an unknown preset or a missing army to mirror.
#[tauri::command]
pub fn army_preset(
    color: Color,
    preset: String,
    army: Option<Army>,
) -> Result<ArmyView, CommandError> {
    let made = match preset.as_str() {
        "orthodox" => Army::orthodox(color),
        "random" => Army::random(color, &mut rand::rng()),
        "empty" => Army::new(color),
        "mirror" => match army {
            Some(a) if a.color() == color => a,
            Some(a) => a.mirrored(),
            None => return Err(bad_army(BadArmy("no army to mirror".into()))),
        },
        other => return Err(bad_army(BadArmy(format!("unknown preset {other:?}")))),
    };
    Ok(ArmyView::of(&made))
}

/// Start validation for two armies: every rule the position breaks (empty: it may start).
///
/// # Errors
/// Never fails; the problems are the answer.
#[tauri::command]
pub fn start_check(white: Army, black: Army) -> Result<Vec<Problem>, CommandError> {
    Ok(builder::start(&white, &black).err().unwrap_or_default())
}

/// Starts a Maharajah game from built armies. Against the computer, the computer's side is built
/// by the engine here, without looking at the person's army (any army given for it is ignored).
///
/// # Errors
/// `bad_start` (naming the broken rules) when the position may not start; `bad_army`; `storage`.
#[tauri::command]
pub fn new_custom_game(
    state: State<'_, AppState>,
    white: Option<Army>,
    black: Option<Army>,
    opponent: Opponent,
    time_control: Option<TimeControl>,
) -> Result<GameView, CommandError> {
    let start = custom_start(white, black, opponent, &mut rand::rng())?;
    state.act(|core, now, unix| core.new_game(start, opponent, time_control, now, unix))
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
) -> Result<maharajah_engine::Position, CommandError> {
    let tries = if matches!(opponent, Opponent::Computer { .. }) { 20 } else { 1 };
    let mut last = Vec::new();
    for _ in 0..tries {
        let (w, b) = custom_armies(white.clone(), black.clone(), opponent, rng)?;
        match builder::start(&w, &b) {
            Ok(position) => return Ok(position),
            Err(problems) => last = problems,
        }
    }
    Err(CommandError {
        code: "bad_start",
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
) -> Result<(Army, Army), CommandError> {
    let mut side = |color: Color, given: Option<Army>| match opponent {
        Opponent::Computer { color: c, level } if c == color => {
            Ok(build_army(color, Level::new(level), rng))
        }
        _ => given
            .ok_or_else(|| BadArmy(format!("{color}'s army is missing")))
            .and_then(|a| army_of(color, Some(&a)))
            .map_err(bad_army),
    };
    let white = side(Color::White, white)?;
    Ok((white, side(Color::Black, black)?))
}

fn bad_army(error: BadArmy) -> CommandError {
    CommandError { code: "bad_army", message: error.to_string() }
}

/// The player's saved armies.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn saved_armies(state: State<'_, AppState>) -> Result<Vec<SavedArmy>, CommandError> {
    Ok(state.core().store().saved_armies().map_err(CoreError::from)?)
}

/// Saves `army` under `name` and returns the saved armies.
///
/// # Errors
/// `bad_name` for an empty name, `storage`.
#[tauri::command]
pub fn save_army(
    state: State<'_, AppState>,
    name: String,
    army: Army,
) -> Result<Vec<SavedArmy>, CommandError> {
    let name = clean_name(&name)?;
    let core = state.core();
    core.store().save_army(&name, &army, unix_now()).map_err(CoreError::from)?;
    Ok(core.store().saved_armies().map_err(CoreError::from)?)
}

/// Renames saved army `id` and returns the saved armies.
///
/// # Errors
/// `bad_name` for an empty name, `storage`.
#[tauri::command]
pub fn rename_army(
    state: State<'_, AppState>,
    id: i64,
    name: String,
) -> Result<Vec<SavedArmy>, CommandError> {
    let name = clean_name(&name)?;
    let core = state.core();
    core.store().rename_army(id, &name).map_err(CoreError::from)?;
    Ok(core.store().saved_armies().map_err(CoreError::from)?)
}

/// Deletes saved army `id` and returns the saved armies.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn delete_army(state: State<'_, AppState>, id: i64) -> Result<Vec<SavedArmy>, CommandError> {
    let core = state.core();
    core.store().delete_army(id).map_err(CoreError::from)?;
    Ok(core.store().saved_armies().map_err(CoreError::from)?)
}

/// A saved army's name: trimmed, not empty, at most 40 characters.
///
/// # Errors
/// `bad_name` when nothing is left after trimming.
pub fn clean_name(name: &str) -> Result<String, CommandError> {
    let name: String = name.trim().chars().take(40).collect();
    if name.is_empty() {
        return Err(CommandError { code: "bad_name", message: "the army needs a name".into() });
    }
    Ok(name)
}

/// The Learn board: every square `role` on `square` reaches with pieces on `blockers`.
///
/// # Errors
/// Never fails.
#[tauri::command]
pub fn learn_reach(
    role: Role,
    square: Square,
    blockers: Vec<Square>,
) -> Result<Reach, CommandError> {
    Ok(builder::reach(role, square, &blockers))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn versions_are_the_packages_versions() {
        let v = versions().expect("versions never fails");
        assert_eq!(v.app, env!("CARGO_PKG_VERSION"));
        assert_eq!(v.engine, maharajah_engine::VERSION);
        assert!(!v.engine.is_empty());
    }

    #[test]
    fn command_error_serialises_as_code_and_message() {
        let error = CommandError { code: "bad_fen", message: "FEN has 5 fields".into() };
        let json = serde_json::to_value(&error).expect("plain struct serialises");
        assert_eq!(json, serde_json::json!({ "code": "bad_fen", "message": "FEN has 5 fields" }));
        let error = CommandError::from(CoreError::NoGame);
        assert_eq!(error.code, "no_game");
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
            (error.code, error.message.as_str()),
            ("bad_start", "White spends 0 of 39 points")
        );
        let vs = Opponent::Computer { color: Color::White, level: 8 };
        let position = custom_start(None, Some(Army::orthodox(Color::Black)), vs, &mut rng)
            .expect("the computer's army and mine start");
        assert_eq!(position.turn(), Color::White);
    }

    #[test]
    fn presets_and_names() {
        let view = army_preset(Color::Black, "mirror".into(), Some(Army::orthodox(Color::White)))
            .expect("mirrors");
        assert_eq!(view.army, Army::orthodox(Color::Black));
        let view = army_preset(Color::White, "random".into(), None).expect("random");
        assert!(view.problems.is_empty(), "a random army is legal");
        assert_eq!(
            army_preset(Color::White, "odd".into(), None).expect_err("odd").code,
            "bad_army"
        );
        assert_eq!(clean_name("  ").expect_err("empty").code, "bad_name");
        assert_eq!(clean_name(" Wall ").expect("fine"), "Wall");
        let problems =
            start_check(Army::new(Color::White), Army::orthodox(Color::Black)).expect("answers");
        assert_eq!(problems[0].kind, "budget");
    }

    #[test]
    fn pgn_files_are_written_where_asked() {
        let dir = std::env::temp_dir().join(format!("maharajah-export-{}", std::process::id()));
        let path = write_pgn(&dir, 7, 0, "1. e4 *\n").expect("writes");
        assert_eq!(path.file_name().and_then(|n| n.to_str()), Some("maharajah-7-1970-01-01.pgn"));
        assert_eq!(std::fs::read_to_string(&path).expect("reads"), "1. e4 *\n");
    }
}
