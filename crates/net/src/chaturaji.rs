//! A client for Chaturaji seats: create a table (with CPU seats), join it by code, act, and keep
//! the seat across dropped links and app restarts.
//!
//! [`ChaturajiClient::connect`] opens the socket, sends `hello` and checks the version, then hands
//! back a cheap clonable handle and a channel of [`ChaturajiNetEvent`]s. Like [`crate::Connection`],
//! a background task owns the socket:
//!
//! - Requests go one at a time, in order, each waiting for its own answer: `chaturaji_seated`
//!   (create, join), `chaturaji_ack` (an action, by its game step), `pong` (a rematch is followed
//!   by a `ping` barrier: an `error` before the `pong` is the rematch's) or `error`.
//! - An action carries the game step it was made at (the number of steps already played, from the
//!   client's replica of the game); the server stores it once and answers a resend with the same
//!   ack.
//! - Every client keeps a replica of the game ([`TableState::game`]) from the `played` events and
//!   snapshots, and checks each step against its own rules; a step its replica refuses makes it
//!   resynchronise from a snapshot.
//! - When the link drops the task reconnects with backoff and sends `rejoin_chaturaji` with the
//!   seat's token, the **device id** and the last event number; the missed events or a snapshot
//!   follow. Meanwhile the room's CPU plays the seat, and hands it back on return. An action in
//!   flight is sent again; a create, join or rematch in flight fails with
//!   [`NetError::Interrupted`].
//! - The device id (16–128 characters, stable per device: keep it with the seat) is what lets a
//!   dropped person get the seat back — also through [`ChaturajiClient::join_table`] from the
//!   same device, or [`ChaturajiClient::resume`] after an app restart.
//! - **Verifiable dice** ([`maharajah_chaturaji::fair`], flow in
//!   [`maharajah_protocol::chaturaji`]): at each `game_started` the client draws a secret seed
//!   from the operating system ([`rand::rngs::OsRng`]), builds its hash chain and sends its
//!   commitment; it answers each `reveal_requested` with its next link (by itself, in the
//!   background). It keeps a [`Verifier`] of the committed parties and checks every link and
//!   every roll the room announces: a roll that does not verify (a link that does not hash to
//!   the party's previous one, faces other than the links give, a roll without links, this
//!   device's own commitment or link replaced) raises [`TableState::dice_alarm`], which stays
//!   up for the rest of the game. The chain lives in memory only: after an app restart
//!   ([`ChaturajiClient::resume`]) the device cannot reveal and is dropped from the dice, like
//!   any party that misses a reveal. A snapshot re-checks the links of every roll so far
//!   (their faces went by before the snapshot and are not in it).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::fair::{chain_length, DiceProof, HashChain, Link, Verifier};
use maharajah_chaturaji::game::{log_events, Event};
use maharajah_chaturaji::{BySeat, Game, Move, Outcome, Record, Seat, Settings, Step};
use maharajah_protocol::chaturaji::{
    seat_party, ChaturajiAction, ChaturajiEvent, ChaturajiMsg, ChaturajiSeatView,
    ChaturajiSnapshot, DieView, FairDice,
};
use maharajah_protocol::{decode_server, AccessCode, ClientMsg, ErrorCode, ServerMsg};
use rand::TryRngCore;
use tokio::sync::mpsc;

use crate::link::{self, ConnectOptions, Flavour, Handle, Incoming, LinkEvent, NetError, Wire};

/// The seat a client acts for. Keep it with the device id to come back after a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChaturajiSeat {
    /// The room.
    pub code: AccessCode,
    /// The seat.
    pub seat: Seat,
    /// The seat's secret token.
    pub token: String,
}

/// An action the server stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActAck {
    /// Its game step.
    pub step: u32,
    /// The event number of its `played` event.
    pub seq: u64,
}

/// What the client knows of its table: the seat, and a view of the replica (the protocol's
/// [`ChaturajiSnapshot::apply`], which checks every step against its own copy of the rules),
/// kept up to date from snapshots and events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableState {
    /// The seat, once created or joined.
    pub seat: Option<ChaturajiSeat>,
    /// The last room event applied (0 for none).
    pub last_seq: u64,
    /// The game number (0 before the first game).
    pub game_number: u32,
    /// The table settings, once known.
    pub settings: Option<Settings>,
    /// The four seats, once known.
    pub seats: Option<BySeat<ChaturajiSeatView>>,
    /// The replica of the game, once started.
    pub game: Option<Game>,
    /// Steps played in the current game (the next action's step).
    pub steps: u32,
    /// The dice of the turn in progress, with usability.
    pub dice: Option<[DieView; 2]>,
    /// Milliseconds left for the seat to move, when turns are timed.
    pub turn_remaining_ms: Option<u64>,
    /// How the game ended, once over.
    pub outcome: Option<Outcome>,
    /// The first roll of the game that did not verify: the room (server or LAN host) showed
    /// dice the parties' links do not give. Stays up until the next game.
    pub dice_alarm: Option<DiceAlarm>,
    /// What happened lately in the current game, oldest first: the last [`LOG_LEN`](maharajah_chaturaji::game::LOG_LEN) events of
    /// its steps (rolls with their dice, discarded dice, moves, captures, ends of turns). A roll
    /// that leaves no usable die ends the turn at once, so its dice are seen only here.
    pub log: VecDeque<Event>,
    /// This device's dice: its chain, its place among the parties and the verifier.
    fair: DeviceDice,
    /// The current game's record as this client saw it (settings, commitments, every step and
    /// roll's links), while it holds the whole game.
    record: Option<Record>,
    /// The replica itself, once a snapshot has come (a client resumed without one asks the
    /// room for a snapshot; events before it only advance `last_seq`).
    replica: Option<ChaturajiSnapshot>,
}

/// A roll the room showed that does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceAlarm {
    /// The roll, from 1 (0: the commitments).
    pub roll: u32,
    /// What does not verify, for logs and people who want the detail.
    pub detail: String,
}

/// This device's part of the verifiable dice.
#[derive(Clone, Default)]
struct DeviceDice {
    /// The game the chain is for, and the chain (secret).
    chain: Option<(u32, HashChain)>,
    /// The verifier of the current game, once the parties are fixed.
    verifier: Option<Verifier>,
    /// This device's index among the parties, if it is one.
    party: Option<usize>,
    /// Commitments and reveals to send.
    outbox: Vec<ChaturajiAction>,
}

impl std::fmt::Debug for DeviceDice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceDice")
            .field("chain", &self.chain)
            .field("party", &self.party)
            .field("rolls", &self.verifier.as_ref().map(Verifier::rolls))
            .finish_non_exhaustive()
    }
}

impl PartialEq for DeviceDice {
    fn eq(&self, other: &DeviceDice) -> bool {
        let commitment = |d: &DeviceDice| d.chain.as_ref().map(|(g, c)| (*g, c.commitment()));
        commitment(self) == commitment(other)
            && self.verifier == other.verifier
            && self.party == other.party
            && self.outbox == other.outbox
    }
}

impl Eq for DeviceDice {}

/// A fresh secret seed from the operating system.
fn os_seed() -> Option<[u8; 32]> {
    let mut seed = [0u8; 32];
    rand::rngs::OsRng.try_fill_bytes(&mut seed).ok()?;
    Some(seed)
}

impl TableState {
    fn apply_snapshot(&mut self, s: &ChaturajiSnapshot) {
        self.replica = Some(s.clone());
        self.show(s);
        // A record needs every step: keep it across a resync that missed none, or start one
        // at a game's first step; otherwise this client has no record of the game.
        let whole = self.record.as_ref().is_some_and(|r| r.actions.len() == s.steps as usize);
        if !whole {
            self.record = match (&s.fair, s.steps) {
                (Some(fair), 0) => {
                    let mut record = Record::new(s.settings.clone(), None);
                    record.dice_proof = Some(fair.proof.clone());
                    Some(record)
                }
                _ => None,
            };
        }
        match &s.fair {
            None => self.fair.verifier = None,
            Some(fair) => self.sync_dice(fair, s.game_number),
        }
    }

    fn alarm(&mut self, roll: u32, detail: String) {
        if self.dice_alarm.is_none() {
            self.dice_alarm = Some(DiceAlarm { roll, detail });
        }
    }

    /// A new game: a new chain, and its commitment to send.
    fn start_dice(&mut self, game: u32, settings: &Settings) {
        self.dice_alarm = None;
        self.fair.verifier = None;
        self.fair.party = None;
        self.fair.chain =
            os_seed().map(|seed| (game, HashChain::new(seed, chain_length(settings))));
        if let Some((_, chain)) = &self.fair.chain {
            let commitment = chain.commitment();
            self.fair.outbox.push(ChaturajiAction::Commit { game, commitment });
        }
    }

    /// Catches up with the dice of a snapshot.
    fn sync_dice(&mut self, fair: &FairDice, game: u32) {
        if fair.committing {
            if !self.fair.chain.as_ref().is_some_and(|(g, _)| *g == game) {
                let settings = self.settings.clone().unwrap_or_default();
                self.start_dice(game, &settings);
            }
            return;
        }
        if self.fair.chain.as_ref().is_some_and(|(g, _)| *g != game) {
            self.fair.chain = None;
        }
        let mut proof = fair.proof.clone();
        let rolls = std::mem::take(&mut proof.rolls);
        self.committed(&proof);
        for (i, links) in rolls.iter().enumerate() {
            let Some(v) = self.fair.verifier.as_mut() else { break };
            if let Err(e) = v.roll(links) {
                self.alarm(u32::try_from(i + 1).unwrap_or(u32::MAX), e.to_string());
            }
        }
        if let Some(roll) = fair.reveal {
            self.reveal(roll);
        }
    }

    /// The parties are fixed: a verifier for them; this device finds its own commitment.
    fn committed(&mut self, proof: &DiceProof) {
        let settings = self.settings.clone().unwrap_or_default();
        self.fair.verifier = Some(proof.verifier(settings.dice));
        let mine = self.seat.as_ref().map(|s| seat_party(s.seat));
        let index = proof.parties.iter().position(|p| Some(&p.name) == mine.as_ref());
        self.fair.party = None;
        if let (Some(i), Some((_, chain))) = (index, &self.fair.chain) {
            if proof.parties[i].commitment == chain.commitment() {
                self.fair.party = Some(i);
            } else {
                self.alarm(0, "the room replaced this device's dice commitment".into());
            }
        }
    }

    /// Queues this device's link for roll `roll`, if it is still in the dice.
    fn reveal(&mut self, roll: u32) {
        let (Some(i), Some(v)) = (self.fair.party, &self.fair.verifier) else { return };
        if !v.is_active(i) {
            return;
        }
        if let Some(link) = self.fair.chain.as_ref().and_then(|(_, c)| c.link(roll)) {
            self.fair.outbox.push(ChaturajiAction::Reveal { roll, link });
        }
    }

    /// Checks a roll the room announces against the parties' links.
    fn check_roll(&mut self, action: &Step, events: &[Event], links: Option<&Vec<Option<Link>>>) {
        let Step::Roll { dice } = action else { return };
        let Some(v) = self.fair.verifier.as_mut() else { return };
        let roll = v.rolls() + 1;
        let Some(links) = links else {
            self.alarm(roll, "the room rolled without showing the parties' links".into());
            return;
        };
        if let (Some(i), Some((_, chain))) = (self.fair.party, &self.fair.chain) {
            if links.get(i).copied().flatten().is_some_and(|l| Some(l) != chain.link(roll)) {
                self.alarm(roll, "the room replaced this device's link".into());
                return;
            }
        }
        let shown = dice.or_else(|| {
            events.iter().find_map(|e| match e {
                Event::Rolled { dice, .. } => Some([dice[0].face, dice[1].face]),
                _ => None,
            })
        });
        match v.roll(links) {
            Err(e) => self.alarm(roll, e.to_string()),
            Ok(faces) if Some(faces) != shown => self.alarm(
                roll,
                format!("the room showed {shown:?}, the parties' links give {faces:?}"),
            ),
            Ok(_) => {}
        }
    }

    /// The record side of a room event.
    fn record_event(&mut self, e: &ChaturajiEvent) {
        match e {
            ChaturajiEvent::GameStarted { settings, .. } => {
                let mut record = Record::new(settings.clone(), None);
                record.dice_proof = Some(FairDice::committing(settings).proof);
                self.record = Some(record);
            }
            ChaturajiEvent::DiceCommitted { proof } => {
                if let Some(r) = self.record.as_mut().filter(|r| r.actions.is_empty()) {
                    r.dice_proof = Some(proof.clone());
                }
            }
            ChaturajiEvent::Played { step, action, links, .. } => {
                let Some(r) = self.record.as_mut() else { return };
                if *step as usize != r.actions.len() {
                    return;
                }
                r.actions.push(*action);
                if let (Some(proof), Some(links)) = (r.dice_proof.as_mut(), links) {
                    proof.rolls.push(links.clone());
                }
            }
            _ => {}
        }
    }

    /// The dice side of a room event.
    fn dice_event(&mut self, e: &ChaturajiEvent) {
        match e {
            ChaturajiEvent::GameStarted { game, settings, .. } => self.start_dice(*game, settings),
            ChaturajiEvent::DiceCommitted { proof } => self.committed(proof),
            ChaturajiEvent::RevealRequested { roll } => self.reveal(*roll),
            ChaturajiEvent::Played { step, action, events, links, .. } if *step >= self.steps => {
                self.check_roll(action, events, links.as_ref());
            }
            _ => {}
        }
    }

    /// Keeps the game events of `e` in [`TableState::log`].
    fn log_event(&mut self, e: &ChaturajiEvent) {
        match e {
            ChaturajiEvent::GameStarted { .. } => self.log.clear(),
            ChaturajiEvent::Played { events, .. } => {
                log_events(&mut self.log, events.iter().cloned())
            }
            _ => {}
        }
    }

    /// The public view of the replica `s`.
    fn show(&mut self, s: &ChaturajiSnapshot) {
        // The room's own log of the game: a resync after missed steps shows them too, and a
        // snapshot of another game (a rematch started while away) none of the old one's.
        self.log.clone_from(&s.log);
        self.last_seq = s.seq;
        self.game_number = s.game_number;
        self.settings = Some(s.settings.clone());
        self.seats = Some(s.seats);
        self.game.clone_from(&s.game);
        self.steps = s.steps;
        self.dice = s.dice;
        self.turn_remaining_ms = s.turn_remaining_ms;
        self.outcome = s.game.as_ref().and_then(|g| g.outcome().cloned());
    }

    /// Applies an event to the replica; `Err` names a step the replica refuses (the replica is
    /// then dropped: the next rejoin asks for a snapshot).
    fn apply_event(&mut self, seq: u64, e: &ChaturajiEvent) -> Result<(), String> {
        self.dice_event(e);
        if self.replica.is_some() {
            self.record_event(e);
        } else {
            // Without a replica yet, keep the events seen; the snapshot's log replaces them.
            self.log_event(e);
        }
        self.last_seq = seq;
        let Some(mut replica) = self.replica.take() else { return Ok(()) };
        replica.apply(seq, e).map_err(|e| e.to_string())?;
        self.show(&replica);
        self.replica = Some(replica);
        Ok(())
    }
}

/// What a [`ChaturajiClient`] reports, in order (room events are already applied to
/// [`TableState`]).
pub type ChaturajiNetEvent = LinkEvent<ChaturajiSeat, Box<ChaturajiSnapshot>, ChaturajiEvent>;

#[derive(Clone, Debug)]
enum Req {
    Create { settings: Settings, stand_in: Option<Level> },
    Join(AccessCode),
    Act(ChaturajiAction),
    Rematch,
}

#[derive(Debug)]
enum Reply {
    Seated(ChaturajiSeat),
    Acked(ActAck),
    Done,
}

/// A handle on a Chaturaji seat's connection. Cheap to clone; it ends when
/// [`ChaturajiClient::close`] is called or every handle is dropped (the seat stays in the room:
/// the CPU plays it until the person comes back from the same device).
#[derive(Clone, Debug)]
pub struct ChaturajiClient {
    link: Handle<Req, Reply>,
    state: Arc<Mutex<TableState>>,
    device: String,
}

fn lock(state: &Mutex<TableState>) -> MutexGuard<'_, TableState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn unexpected(reply: Reply) -> NetError {
    NetError::Protocol(format!("unexpected answer {reply:?}"))
}

impl ChaturajiClient {
    /// Connects to `url` for the device `device` (a stable random id, 16–128 characters);
    /// several addresses are tried in turn as by [`crate::Connection::connect`]. Create or join
    /// a table next.
    ///
    /// # Errors
    ///
    /// [`NetError::Connect`], [`NetError::VersionMismatch`], [`NetError::Protocol`].
    pub async fn connect(
        url: &str,
        options: ConnectOptions,
        device: &str,
    ) -> Result<(ChaturajiClient, mpsc::UnboundedReceiver<ChaturajiNetEvent>), NetError> {
        ChaturajiClient::start(url, options, device, TableState::default()).await
    }

    /// Connects and takes back a seat held before from this device (e.g. after the app was
    /// closed), asking for the events after `last_seq` (0: a snapshot or every event).
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::connect`]; a refused seat arrives as
    /// [`ChaturajiNetEvent::Closed`].
    pub async fn resume(
        url: &str,
        options: ConnectOptions,
        device: &str,
        seat: ChaturajiSeat,
        last_seq: u64,
    ) -> Result<(ChaturajiClient, mpsc::UnboundedReceiver<ChaturajiNetEvent>), NetError> {
        let state = TableState { seat: Some(seat), last_seq, ..TableState::default() };
        ChaturajiClient::start(url, options, device, state).await
    }

    async fn start(
        url: &str,
        options: ConnectOptions,
        device: &str,
        state: TableState,
    ) -> Result<(ChaturajiClient, mpsc::UnboundedReceiver<ChaturajiNetEvent>), NetError> {
        let state = Arc::new(Mutex::new(state));
        let flavour = Chaturaji { state: state.clone(), device: device.to_owned() };
        let (link, events) = link::start(url, options, flavour).await?;
        Ok((ChaturajiClient { link, state, device: device.to_owned() }, events))
    }

    async fn request(&self, req: Req) -> Result<Reply, NetError> {
        self.link.request(req).await
    }

    /// Creates a table and takes its first person seat. `settings.players` says which seats are
    /// people (2–4) and which are CPU players (with their level); `stand_in` is the level of the
    /// CPU that plays for a person who dropped.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`invalid_options`…), [`NetError::AlreadySeated`],
    /// [`NetError::Interrupted`], [`NetError::Closed`].
    pub async fn create_table(
        &self,
        settings: Settings,
        stand_in: Option<Level>,
    ) -> Result<ChaturajiSeat, NetError> {
        match self.request(Req::Create { settings, stand_in }).await? {
            Reply::Seated(s) => Ok(s),
            other => Err(unexpected(other)),
        }
    }

    /// Takes a free person seat of the table `code` — or, from a device that already holds a
    /// seat there, that same seat back.
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::create_table`] (`room_not_found`, `room_full`…).
    pub async fn join_table(&self, code: AccessCode) -> Result<ChaturajiSeat, NetError> {
        match self.request(Req::Join(code)).await? {
            Reply::Seated(s) => Ok(s),
            other => Err(unexpected(other)),
        }
    }

    /// Plays `action` at the current game step and waits until the server stored it. Survives a
    /// reconnection (sent again; the server acknowledges it once).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] with `not_your_turn`, `stale_ply` (the step was played meanwhile,
    /// e.g. by the stand-in), `wrong_phase`, `illegal_move`…; [`NetError::NotSeated`];
    /// [`NetError::Closed`].
    pub async fn act(&self, action: ChaturajiAction) -> Result<ActAck, NetError> {
        match self.request(Req::Act(action)).await? {
            Reply::Acked(a) => Ok(a),
            other => Err(unexpected(other)),
        }
    }

    /// Rolls the dice (from every party's link; acknowledged once the roll is made).
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn roll(&self) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::Roll).await
    }

    /// Moves a piece with one die.
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn play(&self, mv: Move) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::Move(mv)).await
    }

    /// Ends the turn, leaving the unused dice.
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn end_turn(&self) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::EndTurn).await
    }

    /// Resigns the seat (its army stays on the board).
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn resign(&self) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::Resign).await
    }

    /// After the game is over: starts the next game at the table.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`wrong_phase` while a game is on), [`NetError::Interrupted`].
    pub async fn rematch(&self) -> Result<(), NetError> {
        self.request(Req::Rematch).await.map(drop)
    }

    /// What the client knows of its table now (the seat, the game replica…).
    pub fn table(&self) -> TableState {
        lock(&self.state).clone()
    }

    /// The current game's record as this client saw it — settings, every party's commitment,
    /// every step and every roll's links — for the `chaturaji` replay program, which
    /// re-verifies every roll. `None` when the client joined mid-game from a snapshot or was
    /// resumed after a restart (it has not seen every step).
    pub fn record(&self) -> Option<Record> {
        lock(&self.state).record.clone()
    }

    /// This client's device id.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Drops the socket as a Wi-Fi loss would; the client reconnects and resyncs by itself.
    pub fn drop_link(&self) {
        self.link.drop_link();
    }

    /// Closes the connection (the seat stays; [`ChaturajiClient::resume`] or a join from the
    /// same device takes it back).
    pub async fn close(&self) {
        self.link.close().await;
    }
}

/// The Chaturaji client's side of the shared driver.
struct Chaturaji {
    state: Arc<Mutex<TableState>>,
    device: String,
}

impl Flavour for Chaturaji {
    type Req = Req;
    type Reply = Reply;
    type Seat = ChaturajiSeat;
    type Snapshot = Box<ChaturajiSnapshot>;
    type RoomEvent = ChaturajiEvent;

    const PEER: &'static str = "server";
    // The table's view does not show the round trip: no periodic `rtt` reports.
    const REPORTS_RTT: bool = false;

    fn decode(text: &str) -> Result<Incoming<Self>, String> {
        Ok(match decode_server(text).map_err(|e| e.to_string())? {
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSeated { code, seat, token }) => {
                Incoming::Seated(ChaturajiSeat { code, seat, token })
            }
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSnapshot { snapshot }) => {
                Incoming::Snapshot(snapshot)
            }
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiEvent { seq, event, .. }) => {
                Incoming::Event { seq, event }
            }
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiAck { step, seq }) => {
                Incoming::Ack { at: step, seq }
            }
            ServerMsg::Pong { nonce, .. } => Incoming::Pong(nonce),
            ServerMsg::Error { code, message } => Incoming::Error { code, message },
            ServerMsg::Redirect { url } => Incoming::Redirect(url),
            _ => Incoming::Ignored,
        })
    }

    fn seat_code(&self) -> Option<AccessCode> {
        lock(&self.state).seat.as_ref().map(|s| s.code.clone())
    }
    fn set_seat(&self, seat: ChaturajiSeat) {
        lock(&self.state).seat = Some(seat);
    }
    fn last_seq(&self) -> u64 {
        lock(&self.state).last_seq
    }
    fn apply_snapshot(&self, snapshot: &Box<ChaturajiSnapshot>) -> Result<(), String> {
        lock(&self.state).apply_snapshot(snapshot);
        Ok(())
    }
    fn rejoin(&self) -> Option<ClientMsg> {
        let st = lock(&self.state);
        // Without a replica the missed events cannot be folded: ask for a snapshot.
        let last_seq = if st.replica.is_some() { st.last_seq } else { u64::MAX };
        st.seat.clone().map(|s| ClientMsg::RejoinChaturaji {
            code: s.code,
            token: s.token,
            device: self.device.clone(),
            last_seq,
        })
    }
    fn apply_event(&self, seq: u64, event: &ChaturajiEvent) -> Result<(), String> {
        lock(&self.state).apply_event(seq, event)
    }
    fn outgoing(&self) -> Vec<ClientMsg> {
        let mut st = lock(&self.state);
        let Some(token) = st.seat.as_ref().map(|s| s.token.clone()) else { return Vec::new() };
        let step = st.steps;
        std::mem::take(&mut st.fair.outbox)
            .into_iter()
            .map(|action| ClientMsg::ChaturajiAct { token: token.clone(), step, action })
            .collect()
    }

    fn wire(&self, req: &Req, at: &mut Option<u32>) -> Wire {
        let st = lock(&self.state);
        let token = st.seat.as_ref().map(|s| s.token.clone()).unwrap_or_default();
        let next_step = st.steps;
        drop(st);
        let device = self.device.clone();
        let (msg, barrier) = match req {
            Req::Create { settings, stand_in } => (
                ClientMsg::CreateChaturaji {
                    settings: settings.clone(),
                    device,
                    stand_in: *stand_in,
                    rated: false,
                },
                false,
            ),
            Req::Join(code) => (ClientMsg::JoinChaturaji { code: code.clone(), device }, false),
            Req::Act(action) => {
                let step = *at.get_or_insert(next_step);
                (ClientMsg::ChaturajiAct { token, step, action: *action }, false)
            }
            Req::Rematch => (ClientMsg::ChaturajiRematch { token }, true),
        };
        Wire { msgs: vec![msg], barrier }
    }
    fn takes_seat(req: &Req) -> bool {
        matches!(req, Req::Create { .. } | Req::Join(_))
    }
    fn needs_seat(req: &Req) -> bool {
        matches!(req, Req::Act(_) | Req::Rematch)
    }
    /// An action stays in flight (resent at the same step), others fail.
    fn resendable(req: &Req) -> bool {
        matches!(req, Req::Act(_))
    }
    fn acked(req: &Req) -> bool {
        matches!(req, Req::Act(_))
    }
    fn setup(_: &Req) -> bool {
        false
    }
    fn ignores_errors(_: &Req) -> bool {
        false
    }
    fn already_done(_: &Req, _: ErrorCode) -> bool {
        false
    }
    fn seated_reply(seat: ChaturajiSeat) -> Reply {
        Reply::Seated(seat)
    }
    fn ack_reply(step: u32, seq: u64) -> Reply {
        Reply::Acked(ActAck { step, seq })
    }
    fn barrier_reply(_: &Req, _: Duration) -> Reply {
        Reply::Done
    }
    fn done() -> Reply {
        Reply::Done
    }
}

#[cfg(test)]
mod tests {
    use maharajah_chaturaji::game::Event;
    use maharajah_chaturaji::seat::BySeat;
    use maharajah_chaturaji::{Game, Seat, Settings};
    use maharajah_protocol::chaturaji::{ChaturajiSeatView, ChaturajiSnapshot};
    use maharajah_protocol::AccessCode;

    use super::TableState;

    fn snapshot(game_number: u32, seq: u64, log: &[Event]) -> ChaturajiSnapshot {
        let seat =
            ChaturajiSeatView { person: true, taken: true, connected: true, cpu_playing: false };
        ChaturajiSnapshot {
            code: AccessCode::from_indices([0; maharajah_protocol::ACCESS_CODE_LEN]),
            seq,
            game_number,
            settings: Settings::default(),
            seats: BySeat::splat(seat),
            game: Some(Game::new(Settings::default()).expect("the default settings are valid")),
            steps: 0,
            dice: None,
            turn_remaining_ms: None,
            fair: None,
            log: log.iter().cloned().collect(),
        }
    }

    #[test]
    fn a_snapshot_brings_the_rooms_log_without_a_gap_and_none_of_another_game() {
        let red = Event::TurnEnded { seat: Seat::Red };
        let green = Event::TurnEnded { seat: Seat::Green };
        let mut table = TableState::default();
        table.apply_snapshot(&snapshot(1, 5, std::slice::from_ref(&red)));
        assert_eq!(table.log, std::slice::from_ref(&red));
        // Away for a step: the resync of the same game shows the step missed too.
        table.apply_snapshot(&snapshot(1, 9, &[red.clone(), green.clone()]));
        assert_eq!(table.log, [red, green], "a resync of the same game has no gap");
        table.apply_snapshot(&snapshot(2, 30, &[]));
        assert!(table.log.is_empty(), "the rematch shows none of the old game's events");
    }
}
