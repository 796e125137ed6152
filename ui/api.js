// The only module that knows the transport. Every backend command is one exported function that
// returns a Promise; a failure rejects with { code, message } (the shape of CommandError).

const tauri = globalThis.__TAURI__;

/** True when the page runs inside the Maharajah app (not a plain browser). */
export const hasBackend = Boolean(tauri && tauri.core && tauri.core.invoke);

async function call(command, args = {}) {
  if (!hasBackend) {
    throw { code: 'no_backend', message: 'The Maharajah backend is not available in this window.' };
  }
  try {
    return await tauri.core.invoke(command, args);
  } catch (error) {
    if (error && typeof error === 'object' && 'code' in error) throw error;
    throw { code: 'ipc', message: String(error) };
  }
}

/** @returns {Promise<{app: string, engine: string}>} */
export const versions = () => call('versions');
/** @returns {Promise<{continue_id: number|null}>} */
export const startInfo = () => call('start_info');
/** variant: 'chess'|'horde'; opponent: {kind:'human'}|{kind:'computer', color, level}; timeControl: {base_ms, increment_ms}|null;
 * names: {white, black} in pass-and-play (an empty one: the colour's name), or null. */
export const newGame = (variant, opponent, timeControl, names = null) => call('new_game', { variant, opponent, timeControl, names });
/** The pass-and-play names as a game keeps them (trimmed, empty ones null); refused with `bad_player_name`. */
export const checkNames = (names) => call('check_names', { names });
export const openGame = (id) => call('open_game', { id });
export const currentGame = () => call('current_game');
/** mv: UCI (e2e4, e7e8q) or SAN (Nf3). */
export const playMove = (mv) => call('play_move', { mv });
export const review = (ply) => call('review', { ply });
export const claimDraw = () => call('claim_draw');
export const offerDraw = () => call('offer_draw');
export const acceptDraw = () => call('accept_draw');
export const declineDraw = () => call('decline_draw');
/** Stops / restarts the open local game's clock (the computer waits too). */
export const pauseGame = () => call('pause_game');
export const resumeGame = () => call('resume_game');
export const resign = () => call('resign');
export const takeback = () => call('takeback');
export const setAid = (kind, on) => call('set_aid', { kind, on });
export const rematch = () => call('rematch');
export const leaveGame = () => call('leave_game');
export const history = () => call('history');
/** id: a saved game, or null for the open one. */
export const exportPgn = (id = null) => call('export_pgn', { id });
export const savePgn = (id = null) => call('save_pgn', { id });
export const importGame = (text) => call('import_game', { text });
export const settings = () => call('settings');
export const setSetting = (key, value) => call('set_setting', { key, value });
/** The builder's view of an army (null: the empty army of `color`). */
export const armyView = (color, army = null) => call('army_view', { color, army });
/** role: 'maharajah'… or null to clear; answers the new army, or the same one with `refused`. */
export const armyPlace = (color, army, square, role) => call('army_place', { color, army, square, role });
/** Moves a piece of the army from one square to another (refused like a placement). */
export const armyMove = (color, army, from, to) => call('army_move', { color, army, from, to });
/** preset: 'orthodox' | 'random' | 'empty' | 'mirror' (army: the one to mirror). */
export const armyPreset = (color, preset, army = null) => call('army_preset', { color, preset, army });
/** Start validation: every broken rule, [] when the armies may start. */
export const startCheck = (white, black) => call('start_check', { white, black });
/** A Maharajah game from built armies; the computer's side is built by the backend. */
export const newCustomGame = (white, black, opponent, timeControl, names = null) => call('new_custom_game', { white, black, opponent, timeControl, names });
export const savedArmies = () => call('saved_armies');
export const saveArmy = (name, army) => call('save_army', { name, army });
export const renameArmy = (id, name) => call('rename_army', { id, name });
export const deleteArmy = (id) => call('delete_army', { id });
/** Squares `role` on `square` reaches with `blockers`: { slide: [...], leap: [...] }. */
export const learnReach = (role, square, blockers) => call('learn_reach', { role, square, blockers });

/** Hosts a LAN game: { name, variant, time_control, hidden, color }; answers the host's card. */
export const lanHost = (request) => call('lan_host', { request });
/** The host's card while hosting, else null. */
export const lanHosted = () => call('lan_hosted');
/** Starts browsing; answers the list now, changes follow as 'lan-hosts' events. */
export const lanBrowse = () => call('lan_browse');
export const lanStopBrowsing = () => call('lan_stop_browsing');
/** target: { kind: 'host', id } | { kind: 'address', address, room } | { kind: 'code', code }. */
export const lanJoin = (target) => call('lan_join', { target });
/** The LAN game's connection state, or null; changes follow as 'lan-status' events. */
export const lanStatus = () => call('lan_status');
export const lanLeave = () => call('lan_leave');
// Network play (online server or LAN host). Each answers the NetView; changes are also pushed as
// 'net' (a NetView) and 'net-clock' ({clock, pause}) events.
/** Connects to `url` and creates a room; variant 'chess'|'maharajah'|'horde', color null for random. */
export const netCreate = (url, { variant, timeControl, hiddenSetup, color }) => call('net_create', { url, variant, timeControl, hiddenSetup, color });
/** Connects to `url` and joins the room `code`. */
export const netJoin = (url, code) => call('net_join', { url, code });
export const netView = () => call('net_view');
export const netMove = (mv) => call('net_move', { mv });
export const netPause = () => call('net_pause');
export const netResume = () => call('net_resume');
export const netResign = () => call('net_resign');
/** Offers a draw, or accepts the opponent's offer. */
export const netOfferDraw = () => call('net_offer_draw');
export const netDeclineDraw = () => call('net_decline_draw');
export const netClaimDraw = () => call('net_claim_draw');
/** Hidden setup: locks in the army (commitment now, reveal when both are fixed). */
export const netLockArmy = (army) => call('net_lock_army', { army });
export const netLeave = () => call('net_leave');
/** The room this device held a seat in when the app was closed: { url, code } or null. */
export const netKept = () => call('net_kept');
/** Takes that seat back. */
export const netRejoin = () => call('net_rejoin');
/** Watches room `code` on the server at `url` as a spectator: answers the NetView (watching, no seat). */
export const netWatch = (url, code) => call('net_watch', { url, code });
// The online lobby. Each answers the LobbyView; changes are also pushed as 'lobby' events. A match
// (a challenge of ours taken, a pairing made) continues as the 'net' game.
/** Opens the lobby of the server at `url` (the player's key is made on first use). */
export const lobbyOpen = (url) => call('lobby_open', { url });
export const lobbyView = () => call('lobby_view');
export const lobbyClose = () => call('lobby_close');
export const lobbyRegisterName = (name) => call('lobby_register_name', { name });
/** options: { game, time_control: {base_ms, increment_ms}|null, rated, color: 'white'|'black'|'random' }. */
export const lobbyCreate = (options) => call('lobby_create', { options });
export const lobbyCancel = (id) => call('lobby_cancel', { id });
/** Accepts challenge `id`: answers the NetView of the game made. */
export const lobbyAccept = (id) => call('lobby_accept', { id });
/** Sits this device at a Chaturaji table from the list; the table screen opens when it starts. */
export const lobbyJoinTable = (id) => call('lobby_join_table', { id });
/** Quick pairing; for Chaturaji `cpuAfterS` is the wait before CPUs take the empty seats. */
export const lobbyPlayNow = (game, timeControl, rated, cpuAfterS = null) =>
  call('lobby_play_now', { game, timeControl, rated, cpuAfterS });
export const lobbyCancelPlayNow = () => call('lobby_cancel_play_now');
/** The best players of a game and speed class: [{ name, rating, deviation, provisional, games }]. */
export const lobbyLeaderboard = (game, speed) => call('lobby_leaderboard', { game, speed });
/** A player's profile: { name, ratings, games: [{ id, code, game, time_control, rated, opponents, result, rating, ended_ms }] }. */
export const lobbyProfile = (name) => call('lobby_profile', { name });
/** The games being played now: [{ code, game, time_control, rated, players, ply, spectators, full }]. */
export const lobbyPlayingNow = () => call('lobby_playing_now');
/** Saves finished online game `id` as a PGN file; answers its path. */
export const lobbySavePgn = (id) => call('lobby_save_pgn', { id });
/** Offers (or accepts) a rematch of the finished network game, colours swapped. */
export const netRematch = () => call('net_rematch');
/** The recovery code of the player's identity (asked for after a confirmation). */
export const identityRecoveryCode = () => call('identity_recovery_code');
/** Takes over the identity of a recovery code (replacing this device's; after a confirmation). */
export const identityRecover = (code) => call('identity_recover', { code });

/** What this build can do on its device: { mobile, haptics, share_sheet }. */
export const deviceInfo = () => call('device_info');
/** The system's share sheet where the build has its own (Android): { title, text }. */
export const shareText = ({ title, text }) => call('share_text', { title, text });
/** The join link the system opened the app with, once: { text, link, error } or null. */
export const takeJoinLink = () => call('take_join_link');
/** Haptics (the plugin exists only in mobile builds): style 'light'|'medium'|'heavy'|'soft'|'rigid'. */
export const hapticImpact = (style) => call('plugin:haptics|impact_feedback', { style });
/** type: 'success'|'warning'|'error'. */
export const hapticNotification = (type) => call('plugin:haptics|notification_feedback', { type });

/**
 * Subscribes to an event pushed by the backend ('game', 'clock'); resolves to an unsubscribe function.
 * @param {string} name
 * @param {(payload: unknown) => void} handler
 */
export async function subscribe(name, handler) {
  if (!hasBackend) return () => {};
  return tauri.event.listen(name, (event) => handler(event.payload));
}

// Chaturaji (local table). settings: any subset of the table settings; answers are table views.
export const chaturajiNew = (settings) => call('chaturaji_new', { settings });
export const chaturajiCurrent = () => call('chaturaji_current');
export const chaturajiRoll = () => call('chaturaji_roll');
/** die: 0, 1, or null for whichever die allows from→to. */
export const chaturajiMove = (from, to, die = null) => call('chaturaji_move', { from, to, die });
export const chaturajiEndTurn = () => call('chaturaji_end_turn');
export const chaturajiResign = (seat) => call('chaturaji_resign', { seat });
export const chaturajiLeave = () => call('chaturaji_leave');
export const chaturajiRecord = () => call('chaturaji_record');

// Chaturaji over the network: this device's seat in a room on a server (ws:// or wss:// address).
export const chaturajiNetCreate = (url, settings) => call('chaturaji_net_create', { url, settings });
export const chaturajiNetJoin = (url, code) => call('chaturaji_net_join', { url, code });
export const chaturajiNetRoll = () => call('chaturaji_net_roll');
export const chaturajiNetMove = (from, to, die = null) => call('chaturaji_net_move', { from, to, die });
export const chaturajiNetEndTurn = () => call('chaturaji_net_end_turn');
export const chaturajiNetResign = () => call('chaturaji_net_resign');
export const chaturajiNetView = () => call('chaturaji_net_view');
export const chaturajiNetLeave = () => call('chaturaji_net_leave');
/** Hosts a Chaturaji table on this device's Wi-Fi: { hosted, table }. */
export const chaturajiLanHost = (name, settings) => call('chaturaji_lan_host', { name, settings });
/** Joins a Chaturaji table on the Wi-Fi: target { kind: 'host', id } | { kind: 'code', code } | { kind: 'address', address, room }. */
export const chaturajiLanJoin = (target) => call('chaturaji_lan_join', { target });

// The analysis board (pushed: `analysis-engine` as the engine deepens, `analysis` as a review runs).
/** source: {kind:'current'} | {kind:'saved', id} | {kind:'net'} | {kind:'text', text} | {kind:'armies', white, black} | {kind:'start', variant} */
export const analysisOpen = (source) => call('analysis_open', { source });
export const analysisView = () => call('analysis_view');
/** mv: UCI or SAN, at the cursor (follows the tree or makes a variation). */
export const analysisPlay = (mv) => call('analysis_play', { mv });
/** to: 'back' | 'forward' | 'first' | 'last' | 'main' */
export const analysisStep = (to) => call('analysis_step', { to });
export const analysisGo = (node) => call('analysis_go', { node });
export const analysisPromote = (node) => call('analysis_promote', { node });
export const analysisDelete = (node) => call('analysis_delete', { node });
export const analysisLines = (lines) => call('analysis_lines', { lines });
export const analysisReview = () => call('analysis_review');
export const analysisStopReview = () => call('analysis_stop_review');
export const analysisPgn = () => call('analysis_pgn');
export const analysisSavePgn = () => call('analysis_save_pgn');
export const analysisClose = () => call('analysis_close');
