//! The chess commands: local games, saved games and settings, the army builder, the Learn board.
//! Pushed events: `game` (a new `GameView` the UI did not ask for: the computer moved, a flag
//! fell) and `clock` (the running clock, a few times a second).

use maharajah_app::chess::aids::AidKind;
use maharajah_app::chess::army::{self, ArmyView, Problem, Reach};
use maharajah_app::chess::local::{custom_start, StartInfo};
use maharajah_app::chess::session::{GameView, Names, Opponent, ReviewView};
use maharajah_app::store::{GameSummary, SavedArmy};
use maharajah_app::{App, AppError};
use maharajah_engine::clock::TimeControl;
use maharajah_engine::{Army, Color, Position, Role, Square, Variant};
use serde::Serialize;
use tauri::State;

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
pub fn versions() -> Result<Versions, AppError> {
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
pub fn start_info(app: State<'_, App>) -> Result<StartInfo, AppError> {
    Ok(app.chess.core().start_info()?)
}

/// Starts a new game of `variant` against `opponent`, with an optional clock; in pass-and-play
/// the players go by `names` (none: their colours).
///
/// # Errors
/// `bad_player_name` for a name that is too long or holds a control character; `storage` when
/// it cannot be saved.
#[tauri::command]
pub fn new_game(
    app: State<'_, App>,
    variant: Variant,
    opponent: Opponent,
    time_control: Option<TimeControl>,
    names: Option<Names>,
) -> Result<GameView, AppError> {
    let names = names.unwrap_or_default();
    app.chess.act(|core, now, unix| {
        core.new_named_game(Position::new(variant), opponent, &names, time_control, now, unix)
    })
}

/// The pass-and-play names as the game will keep them: trimmed, an empty one left out (the
/// setup checks them before the armies are built).
///
/// # Errors
/// `bad_player_name` for a name that is too long or holds a control character.
#[tauri::command]
pub fn check_names(names: Names) -> Result<Names, AppError> {
    Ok(names.recheck()?)
}

/// Turns the hint or the threat view on or off in a game against the computer (the engine
/// looks in the background; its answer comes as a `game` event).
///
/// # Errors
/// `no_game`, `no_aids` outside games against the computer.
#[tauri::command]
pub fn set_aid(app: State<'_, App>, kind: AidKind, on: bool) -> Result<GameView, AppError> {
    app.chess.set_aid(kind, on)
}

/// Opens a saved game (continue or look at it).
///
/// # Errors
/// `storage` / `bad_import` when it cannot be loaded.
#[tauri::command]
pub fn open_game(app: State<'_, App>, id: i64) -> Result<GameView, AppError> {
    app.chess.act(|core, now, _| core.open(id, now))
}

/// The open game, if any.
///
/// # Errors
/// Never fails; `None` when no game is open.
#[tauri::command]
pub fn current_game(app: State<'_, App>) -> Result<Option<GameView>, AppError> {
    Ok(app.chess.current())
}

/// Plays the person's move, given as UCI (`e2e4`, `e7e8q`) or SAN (`Nf3`).
///
/// # Errors
/// `bad_move`, `illegal_move`, `game_over`, `not_your_turn`, `no_game`.
#[tauri::command]
pub fn play_move(app: State<'_, App>, mv: String) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.play(&mv, now, unix))
}

/// The board after `ply` moves, for reviewing the move list.
///
/// # Errors
/// `no_game`.
#[tauri::command]
pub fn review(app: State<'_, App>, ply: usize) -> Result<ReviewView, AppError> {
    Ok(app.chess.core().review(ply)?)
}

/// Claims the draw that is claimable now.
///
/// # Errors
/// `nothing_to_claim`, `game_over`, `no_game`.
#[tauri::command]
pub fn claim_draw(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.claim_draw(now, unix))
}

/// Offers a draw (the computer answers after a short search, run off the UI's main thread; a
/// friend accepts with `accept_draw`).
///
/// # Errors
/// `game_over`, `no_game`.
#[tauri::command(async)]
pub fn offer_draw(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.offer_draw(now, unix))
}

/// Accepts the standing draw offer.
///
/// # Errors
/// `nothing_to_claim`, `no_game`.
#[tauri::command]
pub fn accept_draw(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.accept_draw(now, unix))
}

/// Pauses the running clock of the open game (the app went to the background, or the person
/// asked); the computer waits too.
///
/// # Errors
/// `no_game`, `storage`.
#[tauri::command]
pub fn pause_game(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.pause(now, unix))
}

/// Starts the paused clock again.
///
/// # Errors
/// `no_game`, `storage`.
#[tauri::command]
pub fn resume_game(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.resume(now, unix))
}

/// Declines the standing draw offer; the game goes on.
///
/// # Errors
/// `nothing_to_claim`, `game_over`, `no_game`.
#[tauri::command]
pub fn decline_draw(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.decline_draw(now, unix))
}

/// The person resigns.
///
/// # Errors
/// `game_over`, `no_game`.
#[tauri::command]
pub fn resign(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.resign(now, unix))
}

/// Takes back the last move (and cancels the computer's thinking).
///
/// # Errors
/// `nothing_to_take_back`, `game_over`, `no_game`.
#[tauri::command]
pub fn takeback(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.takeback(now, unix))
}

/// A new game with the same opponent and clock (see `Core::rematch` for the start and colours).
///
/// # Errors
/// `no_game`, `storage`.
#[tauri::command]
pub fn rematch(app: State<'_, App>) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.rematch(now, unix, &mut rand::rng()))
}

/// Leaves the game screen: the computer stops, the game and its clock are saved.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn leave_game(app: State<'_, App>) -> Result<(), AppError> {
    app.chess.leave()
}

/// Saved games, newest first.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn history(app: State<'_, App>) -> Result<Vec<GameSummary>, AppError> {
    Ok(app.chess.core().history()?)
}

/// A game as PGN text: the open one, or the saved game `id`.
///
/// # Errors
/// `no_game`, `storage`.
#[tauri::command]
pub fn export_pgn(app: State<'_, App>, id: Option<i64>) -> Result<String, AppError> {
    app.chess.export_pgn(id)
}

/// Saves a game's PGN as a file in the downloads folder; returns the file's path.
///
/// # Errors
/// `no_game`, `storage`, `write_failed`.
#[tauri::command]
pub fn save_pgn(app: State<'_, App>, id: Option<i64>) -> Result<String, AppError> {
    app.chess.save_pgn(id)
}

/// Imports a PGN or FEN and opens it as a pass-and-play game.
///
/// # Errors
/// `bad_import`, `storage`.
#[tauri::command]
pub fn import_game(app: State<'_, App>, text: String) -> Result<GameView, AppError> {
    app.chess.act(|core, now, unix| core.import(&text, now, unix))
}

/// Every stored setting as a JSON object.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn settings(
    app: State<'_, App>,
) -> Result<serde_json::Map<String, serde_json::Value>, AppError> {
    app.chess.settings()
}

/// Stores one setting.
///
/// # Errors
/// `bad_setting` for an unknown key, `storage`.
#[tauri::command]
pub fn set_setting(
    app: State<'_, App>,
    key: String,
    value: serde_json::Value,
) -> Result<(), AppError> {
    app.chess.set_setting(&key, &value)
}

/// The builder's view of `army` (none: the empty army of `color`, its king alone).
///
/// # Errors
/// `bad_army` when the army is the other colour's.
#[tauri::command]
pub fn army_view(color: Color, army: Option<Army>) -> Result<ArmyView, AppError> {
    army::army_view(color, army)
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
) -> Result<ArmyView, AppError> {
    army::army_place(color, army, square, role)
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
) -> Result<ArmyView, AppError> {
    army::army_move(color, army, from, to)
}

/// A ready-made army for `color`: `orthodox`, `random` (a random legal army), `empty`, or
/// `mirror` (the given army of the other side, mirrored).
///
/// # Errors
/// `bad_army` for an unknown preset or a missing army to mirror.
#[tauri::command]
pub fn army_preset(color: Color, preset: String, army: Option<Army>) -> Result<ArmyView, AppError> {
    army::army_preset(color, &preset, army, &mut rand::rng())
}

/// Start validation for two armies: every rule the position breaks (empty: it may start).
///
/// # Errors
/// Never fails; the problems are the answer.
#[tauri::command]
pub fn start_check(white: Army, black: Army) -> Result<Vec<Problem>, AppError> {
    Ok(army::start_check(&white, &black))
}

/// Starts a Maharajah game from built armies. Against the computer, the computer's side is built
/// by the engine here, without looking at the person's army (any army given for it is ignored).
///
/// # Errors
/// `bad_start` (naming the broken rules) when the position may not start; `bad_army`;
/// `bad_player_name`; `storage`.
#[tauri::command]
pub fn new_custom_game(
    app: State<'_, App>,
    white: Option<Army>,
    black: Option<Army>,
    opponent: Opponent,
    time_control: Option<TimeControl>,
    names: Option<Names>,
) -> Result<GameView, AppError> {
    let names = names.unwrap_or_default().recheck()?;
    let start = custom_start(white, black, opponent, &mut rand::rng())?;
    app.chess.act(|core, now, unix| {
        core.new_named_game(start, opponent, &names, time_control, now, unix)
    })
}

/// The player's saved armies.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn saved_armies(app: State<'_, App>) -> Result<Vec<SavedArmy>, AppError> {
    app.chess.saved_armies()
}

/// Saves `army` under `name` and returns the saved armies.
///
/// # Errors
/// `bad_name` for an empty name, `storage`.
#[tauri::command]
pub fn save_army(
    app: State<'_, App>,
    name: String,
    army: Army,
) -> Result<Vec<SavedArmy>, AppError> {
    app.chess.save_army(&name, &army)
}

/// Renames saved army `id` and returns the saved armies.
///
/// # Errors
/// `bad_name` for an empty name, `storage`.
#[tauri::command]
pub fn rename_army(app: State<'_, App>, id: i64, name: String) -> Result<Vec<SavedArmy>, AppError> {
    app.chess.rename_army(id, &name)
}

/// Deletes saved army `id` and returns the saved armies.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn delete_army(app: State<'_, App>, id: i64) -> Result<Vec<SavedArmy>, AppError> {
    app.chess.delete_army(id)
}

/// The Learn board: every square `role` on `square` reaches with pieces on `blockers`.
///
/// # Errors
/// Never fails.
#[tauri::command]
pub fn learn_reach(role: Role, square: Square, blockers: Vec<Square>) -> Result<Reach, AppError> {
    Ok(army::reach(role, square, &blockers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_the_packages_versions() {
        let v = versions().expect("versions never fails");
        assert_eq!(v.app, env!("CARGO_PKG_VERSION"));
        assert_eq!(v.engine, maharajah_engine::VERSION);
        assert!(!v.engine.is_empty());
    }
}
