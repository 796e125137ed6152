//! The analysis board commands: open on a game, a text or two armies, move through the tree,
//! review, export. Each is one call into `maharajah_app::analysis`; none waits for the engine.
//! Pushed events: `analysis-engine` (the engine's lines for the current node, as it deepens)
//! and `analysis` (the whole view, as a review progresses and ends).

use maharajah_app::analysis::{AnalysisView, Source};
use maharajah_app::{App, AppError};
use tauri::State;

/// Opens the analysis board on `source` (the local game, a saved or network game, a text, two
/// armies, a variant's start); the engine starts on the current position.
///
/// # Errors
/// `no_game`, `storage`, `bad_import`, `bad_start`.
#[tauri::command]
pub fn analysis_open(app: State<'_, App>, source: Source) -> Result<AnalysisView, AppError> {
    app.analysis_open(source)
}

/// The open analysis board, if any.
///
/// # Errors
/// Never fails; `None` when no board is open.
#[tauri::command]
pub fn analysis_view(app: State<'_, App>) -> Result<Option<AnalysisView>, AppError> {
    Ok(app.analysis.view())
}

/// Plays a move (UCI or SAN) at the cursor: follows the tree or makes a variation.
///
/// # Errors
/// `no_analysis`, `bad_move`.
#[tauri::command]
pub fn analysis_play(app: State<'_, App>, mv: String) -> Result<AnalysisView, AppError> {
    app.analysis.play(&mv)
}

/// Moves the cursor: `back`, `forward`, `first`, `last` or `main` (back to the main line).
///
/// # Errors
/// `no_analysis`; `bad_step` for another word.
#[tauri::command]
pub fn analysis_step(app: State<'_, App>, to: String) -> Result<AnalysisView, AppError> {
    match to.as_str() {
        "back" => app.analysis.back(),
        "forward" => app.analysis.forward(),
        "first" => app.analysis.first(),
        "last" => app.analysis.last(),
        "main" => app.analysis.main_line(),
        other => Err(AppError::new("bad_step", format!("{other:?} is not a step"))),
    }
}

/// Moves the cursor to node `node`.
///
/// # Errors
/// `no_analysis`, `no_node`.
#[tauri::command]
pub fn analysis_go(app: State<'_, App>, node: usize) -> Result<AnalysisView, AppError> {
    app.analysis.go_to(node)
}

/// Makes node `node`'s line the main line.
///
/// # Errors
/// `no_analysis`, `no_node`.
#[tauri::command]
pub fn analysis_promote(app: State<'_, App>, node: usize) -> Result<AnalysisView, AppError> {
    app.analysis.promote(node)
}

/// Deletes node `node` and the moves after it.
///
/// # Errors
/// `no_analysis`, `no_node`.
#[tauri::command]
pub fn analysis_delete(app: State<'_, App>, node: usize) -> Result<AnalysisView, AppError> {
    app.analysis.delete(node)
}

/// Shows 1–3 engine lines.
///
/// # Errors
/// `no_analysis`.
#[tauri::command]
pub fn analysis_lines(app: State<'_, App>, lines: usize) -> Result<AnalysisView, AppError> {
    app.analysis.set_lines(lines)
}

/// Starts or resumes the review of the main line (progress comes as `analysis` events).
///
/// # Errors
/// `no_analysis`, `internal`.
#[tauri::command]
pub fn analysis_review(app: State<'_, App>) -> Result<AnalysisView, AppError> {
    app.analysis.review()
}

/// Stops the review, keeping what is done.
///
/// # Errors
/// `no_analysis`.
#[tauri::command]
pub fn analysis_stop_review(app: State<'_, App>) -> Result<AnalysisView, AppError> {
    app.analysis.stop_review()
}

/// The board as annotated PGN.
///
/// # Errors
/// `no_analysis`.
#[tauri::command]
pub fn analysis_pgn(app: State<'_, App>) -> Result<String, AppError> {
    app.analysis.pgn()
}

/// Saves the board's annotated PGN as a file in the export folder; returns the file's path.
///
/// # Errors
/// `no_analysis`, `write_failed`.
#[tauri::command]
pub fn analysis_save_pgn(app: State<'_, App>) -> Result<String, AppError> {
    app.analysis_save_pgn()
}

/// Closes the board: the engine stops.
///
/// # Errors
/// Never fails.
#[tauri::command]
pub fn analysis_close(app: State<'_, App>) -> Result<(), AppError> {
    app.analysis.close();
    Ok(())
}
