//! Players the server knows: identified by their Ed25519 public key, with a unique display name
//! (unique by its look-alike skeleton) and their ratings per game and speed class.
//!
//! The registry is held in memory (read from the store at start) and every change is queued to
//! the store while the registry's lock is held, so the store sees changes in the order they were
//! made. A player is stored once they have a name or a rating; a key that only identified is
//! known for that connection and nothing is written. In a cluster the other nodes change
//! players too: their stored records replace the ones here ([`Players::refresh`]) as a node
//! follows the database, and before a rated result is applied.

use std::collections::{BTreeMap, HashMap};

use maharajah_protocol::identity::{check_name, name_skeleton, PlayerKey};
use maharajah_protocol::{ErrorCode, PlayerView, RatingChange, RatingKey, RatingView};
use maharajah_ratings::{periods_between, places_update, Rating, DEFAULT_TAU};
use serde::{Deserialize, Serialize};

use crate::lobby::Standing;
use crate::room::RatedEnd;
use crate::store::PlayerRow;

/// One rating of a player as stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRating {
    /// The rating after the player's last rated game of this kind.
    pub rating: Rating,
    /// Rated games played.
    pub games: u32,
    /// When the last one ended, Unix milliseconds (the deviation grows from then).
    pub updated_ms: u64,
}

impl StoredRating {
    /// The rating as of `now_ms`: the deviation grown by the rating periods since the last game.
    #[must_use]
    pub fn as_of(&self, now_ms: u64) -> Rating {
        self.rating.after_inactivity(periods_between(self.updated_ms, now_ms))
    }
}

/// One player as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerRecord {
    /// The public key.
    pub key: PlayerKey,
    /// The display name, once registered.
    pub name: Option<String>,
    /// When the server first stored the player, Unix milliseconds.
    pub created_ms: u64,
    /// Ratings by `game/speed` (see [`RatingKey`]'s text form).
    #[serde(default)]
    pub ratings: BTreeMap<String, StoredRating>,
}

impl PlayerRecord {
    fn new(key: PlayerKey, now_ms: u64) -> PlayerRecord {
        PlayerRecord { key, name: None, created_ms: now_ms, ratings: BTreeMap::new() }
    }

    /// The rating `key` (a new player's default when never played).
    #[must_use]
    pub fn rating(&self, key: RatingKey) -> Option<&StoredRating> {
        self.ratings.get(&key.to_string())
    }

    /// The player as the wire shows them, with deviations as of `now_ms`.
    #[must_use]
    pub fn view(&self, now_ms: u64) -> PlayerView {
        let ratings = self
            .ratings
            .iter()
            .filter_map(|(key, stored)| {
                let key: RatingKey = key.parse().ok()?;
                let now = stored.as_of(now_ms);
                Some(RatingView {
                    game: key.game,
                    speed: key.speed,
                    rating: round(now.rating),
                    deviation: round(now.deviation),
                    provisional: now.is_provisional(),
                    games: stored.games,
                })
            })
            .collect();
        PlayerView { key: self.key, name: self.name.clone(), ratings }
    }

    /// The row the store writes.
    ///
    /// # Errors
    ///
    /// The JSON error, which cannot happen for these plain types.
    pub fn row(&self) -> Result<PlayerRow, serde_json::Error> {
        Ok(PlayerRow {
            key: self.key.to_string(),
            skeleton: self.name.as_deref().map(name_skeleton),
            json: serde_json::to_string(self)?,
        })
    }
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // ratings are small, positive
fn round(x: f64) -> u32 {
    x.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// A refused request, as the wire reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// For programs.
    pub code: ErrorCode,
    /// For people.
    pub message: String,
}

/// Every known player, by key and by name skeleton.
#[derive(Debug, Default)]
pub struct Players {
    by_key: HashMap<PlayerKey, PlayerRecord>,
    by_skeleton: HashMap<String, PlayerKey>,
}

impl Players {
    /// The registry of the stored records `(key, json)`; unreadable ones are skipped and
    /// returned as text for the log.
    #[must_use]
    pub fn from_rows(rows: Vec<(String, String)>) -> (Players, Vec<String>) {
        let mut players = Players::default();
        let bad = players.refresh(rows);
        (players, bad)
    }

    /// Puts the stored records `(key, json)` in place of the ones held (the store's copy is
    /// the newer: another node of a cluster changed them), names included; unreadable ones are
    /// skipped and returned as text for the log.
    pub fn refresh(&mut self, rows: impl IntoIterator<Item = (String, String)>) -> Vec<String> {
        let mut bad = Vec::new();
        for (key, json) in rows {
            match serde_json::from_str::<PlayerRecord>(&json) {
                Ok(record) if record.key.to_string() == key => self.insert(record),
                Ok(_) => bad.push(format!("player {key}: the record names another key")),
                Err(e) => bad.push(format!("player {key}: {e}")),
            }
        }
        bad
    }

    /// Holds `record` in place of the player's current one, if any: a name it no longer has
    /// leaves the name index (the store has one holder per name, so its holder replaces any
    /// other here).
    fn insert(&mut self, record: PlayerRecord) {
        let old = self.by_key.get(&record.key).and_then(|r| r.name.as_deref());
        if let Some(old) = old.filter(|old| record.name.as_deref() != Some(*old)) {
            let skeleton = name_skeleton(old);
            if self.by_skeleton.get(&skeleton) == Some(&record.key) {
                self.by_skeleton.remove(&skeleton);
            }
        }
        if let Some(name) = &record.name {
            self.by_skeleton.insert(name_skeleton(name), record.key);
        }
        self.by_key.insert(record.key, record);
    }

    /// Players known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether no player is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The player `key`, if stored.
    #[must_use]
    pub fn get(&self, key: &PlayerKey) -> Option<&PlayerRecord> {
        self.by_key.get(key)
    }

    /// The player whose name has the look-alike `skeleton`.
    #[must_use]
    pub fn by_name(&self, skeleton: &str) -> Option<&PlayerRecord> {
        self.by_skeleton.get(skeleton).and_then(|key| self.by_key.get(key))
    }

    /// The best `n` named players of the rating `rating` as of `now_ms` (players without a
    /// rated game of the kind are absent), best first; ties by more games, then name.
    #[must_use]
    pub fn leaderboard(
        &self,
        rating: RatingKey,
        now_ms: u64,
        n: usize,
    ) -> Vec<(String, RatingView)> {
        let key = rating.to_string();
        let mut rows: Vec<(String, RatingView)> = self
            .by_key
            .values()
            .filter_map(|record| {
                let name = record.name.clone()?;
                let stored = record.ratings.get(&key)?;
                let now = stored.as_of(now_ms);
                Some((
                    name,
                    RatingView {
                        game: rating.game,
                        speed: rating.speed,
                        rating: round(now.rating),
                        deviation: round(now.deviation),
                        provisional: now.is_provisional(),
                        games: stored.games,
                    },
                ))
            })
            .collect();
        rows.sort_by(|a, b| {
            b.1.rating.cmp(&a.1.rating).then(b.1.games.cmp(&a.1.games)).then(a.0.cmp(&b.0))
        });
        rows.truncate(n);
        rows
    }

    /// The player `key` as the wire shows them (a key never stored: no name, no ratings).
    #[must_use]
    pub fn view(&self, key: &PlayerKey, now_ms: u64) -> PlayerView {
        match self.by_key.get(key) {
            Some(record) => record.view(now_ms),
            None => PlayerView { key: *key, name: None, ratings: Vec::new() },
        }
    }

    /// How the lobby shows and pairs `key` for the rating `rating` as of `now_ms`: the name,
    /// the rating (a new player's default when never played rated) and whether it is
    /// provisional (the deviation grown by the time since the last rated game).
    #[must_use]
    pub fn standing(&self, key: PlayerKey, rating: RatingKey, now_ms: u64) -> Standing {
        let record = self.by_key.get(&key);
        let now = record
            .and_then(|r| r.rating(rating))
            .map_or_else(Rating::default, |stored| stored.as_of(now_ms));
        Standing {
            player: Some(key),
            name: record.and_then(|r| r.name.clone()),
            rating: round(now.rating),
            provisional: now.is_provisional(),
        }
    }

    /// Gives `key` the display name `name`: the new record to store, or `None` when the player
    /// already had exactly this name (nothing to write).
    ///
    /// # Errors
    ///
    /// `invalid_name` for a name against the rules, `name_taken` when another player has it
    /// or a look-alike, `wrong_phase` when this player already has another name.
    pub fn register(
        &mut self,
        key: PlayerKey,
        name: &str,
        now_ms: u64,
    ) -> Result<Option<PlayerRecord>, Refusal> {
        check_name(name)
            .map_err(|e| Refusal { code: ErrorCode::InvalidName, message: e.to_string() })?;
        let skeleton = name_skeleton(name);
        if let Some(current) = self.by_key.get(&key).and_then(|r| r.name.as_deref()) {
            if current == name {
                return Ok(None);
            }
            return Err(Refusal {
                code: ErrorCode::WrongPhase,
                message: format!("you are already called {current}; names are permanent"),
            });
        }
        if let Some(holder) = self.by_skeleton.get(&skeleton) {
            let taken = self.by_key.get(holder).and_then(|r| r.name.clone()).unwrap_or_default();
            let message = if taken.eq_ignore_ascii_case(name) {
                format!("the name {taken} is taken")
            } else {
                format!("{name} looks too much like {taken}, which is taken")
            };
            return Err(Refusal { code: ErrorCode::NameTaken, message });
        }
        let record = self.by_key.entry(key).or_insert_with(|| PlayerRecord::new(key, now_ms));
        record.name = Some(name.to_owned());
        let record = record.clone();
        self.by_skeleton.insert(skeleton, key);
        Ok(Some(record))
    }

    /// Takes back a registration the store could not keep (the record as it was before).
    pub fn unregister(&mut self, key: &PlayerKey, name: &str) {
        if self.by_skeleton.get(&name_skeleton(name)) == Some(key) {
            self.by_skeleton.remove(&name_skeleton(name));
        }
        if let Some(record) = self.by_key.get_mut(key) {
            if record.name.as_deref() == Some(name) {
                record.name = None;
            }
        }
    }

    /// The record of `key`, created (not stored yet) if new: for rating updates.
    pub fn entry(&mut self, key: PlayerKey, now_ms: u64) -> &mut PlayerRecord {
        self.by_key.entry(key).or_insert_with(|| PlayerRecord::new(key, now_ms))
    }

    /// Applies a rated game's places at `now_ms` (Glicko-2, each player against the others'
    /// ratings before the game, the deviation grown by the periods since their last rated
    /// game of this kind): the changes in the game's player order, the rows to store, and
    /// what each player's rating was (for [`Players::restore_rating`] if storing fails).
    pub fn apply(&mut self, end: &RatedEnd, now_ms: u64) -> Applied {
        let key = end.rating.to_string();
        let (before, periods): (Vec<Rating>, Vec<f64>) = end
            .players
            .iter()
            .map(|player| match self.get(player).and_then(|r| r.ratings.get(&key)) {
                Some(stored) => (stored.rating, periods_between(stored.updated_ms, now_ms)),
                None => (Rating::default(), 1.0),
            })
            .unzip();
        let after = places_update(&before, &end.places, &periods, DEFAULT_TAU);
        let mut applied = Applied::default();
        for (i, player) in end.players.iter().enumerate() {
            let record = self.entry(*player, now_ms);
            let previous = record.ratings.get(&key).copied();
            let games = previous.map_or(0, |s| s.games) + 1;
            record
                .ratings
                .insert(key.clone(), StoredRating { rating: after[i], games, updated_ms: now_ms });
            match record.row() {
                Ok(row) => applied.rows.push(row),
                Err(e) => tracing::error!(player = %player, "player record: {e}"),
            }
            applied.previous.push((*player, previous));
            applied.changes.push(RatingChange {
                player: *player,
                game: end.rating.game,
                speed: end.rating.speed,
                before: round(before[i].rating),
                after: round(after[i].rating),
                deviation: round(after[i].deviation),
                provisional: after[i].is_provisional(),
            });
        }
        applied
    }

    /// Puts back a rating as it was before [`Players::apply`] (`None`: never rated).
    pub fn restore_rating(
        &mut self,
        player: &PlayerKey,
        rating: RatingKey,
        previous: Option<StoredRating>,
    ) {
        if let Some(record) = self.by_key.get_mut(player) {
            match previous {
                Some(p) => record.ratings.insert(rating.to_string(), p),
                None => record.ratings.remove(&rating.to_string()),
            };
        }
    }
}

/// What [`Players::apply`] did.
#[derive(Debug, Default)]
pub struct Applied {
    /// Each player's change, in the game's player order.
    pub changes: Vec<RatingChange>,
    /// The records to store.
    pub rows: Vec<PlayerRow>,
    /// Each player's rating before.
    pub previous: Vec<(PlayerKey, Option<StoredRating>)>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use maharajah_protocol::identity::PlayerSecret;

    fn key(seed: u8) -> PlayerKey {
        PlayerSecret::from_bytes([seed; 32]).public()
    }

    #[test]
    fn names_are_unique_by_skeleton_and_permanent() {
        let mut p = Players::default();
        let first = p.register(key(1), "Magnus", 5).unwrap().unwrap();
        assert_eq!((first.name.as_deref(), first.created_ms), (Some("Magnus"), 5));
        assert_eq!(p.register(key(1), "Magnus", 6), Ok(None));
        let taken = p.register(key(2), "rnagnu5", 6).unwrap_err();
        assert_eq!(taken.code, ErrorCode::NameTaken);
        assert!(taken.message.contains("looks too much like Magnus"), "{}", taken.message);
        let same = p.register(key(2), "MAGNUS", 6).unwrap_err();
        assert_eq!(same.message, "the name Magnus is taken");
        assert_eq!(p.register(key(1), "Other", 6).unwrap_err().code, ErrorCode::WrongPhase);
        assert_eq!(p.register(key(2), "x", 6).unwrap_err().code, ErrorCode::InvalidName);
        p.unregister(&key(1), "Magnus");
        assert!(p.register(key(2), "magnus", 7).unwrap().is_some());
    }

    #[test]
    fn a_rated_result_moves_both_ratings_and_counts_the_games() {
        let mut p = Players::default();
        let rk: RatingKey = "chess/blitz".parse().unwrap();
        let end = RatedEnd { rating: rk, players: vec![key(1), key(2)], places: vec![1, 2] };
        let first = p.apply(&end, 1_000);
        assert_eq!(first.rows.len(), 2);
        let (w, l) = (first.changes[0], first.changes[1]);
        assert_eq!((w.before, l.before), (1500, 1500));
        assert!(w.after > 1500 && l.after < 1500, "{w:?} {l:?}");
        // Equal before, so the change is symmetric; a new player is provisional.
        assert_eq!(w.after - 1500, 1500 - l.after);
        assert!(w.provisional && l.provisional);
        // The second game starts from the first one's ratings.
        let draw = RatedEnd { places: vec![1, 1], ..end.clone() };
        let second = p.apply(&draw, 2_000);
        assert_eq!(second.changes[0].before, w.after);
        assert!(second.changes[0].after < w.after, "a draw with the weaker player costs");
        assert_eq!(p.get(&key(1)).unwrap().rating(rk).unwrap().games, 2);
        // Restoring puts the first game's rating back.
        for (player, previous) in second.previous {
            p.restore_rating(&player, rk, previous);
        }
        assert_eq!(p.get(&key(1)).unwrap().rating(rk).unwrap().games, 1);
        assert_eq!(p.view(&key(1), 2_000).ratings[0].rating, w.after);
    }

    #[test]
    fn the_lobby_standing_is_the_rating_of_that_game_and_speed() {
        let mut p = Players::default();
        let blitz: RatingKey = "horde/blitz".parse().unwrap();
        let rapid: RatingKey = "horde/rapid".parse().unwrap();
        // Never seen: the default, provisional, no name.
        let fresh = p.standing(key(1), blitz, 0);
        assert_eq!((fresh.name, fresh.rating, fresh.provisional), (None, 1500, true));
        p.register(key(1), "Ana", 0).unwrap();
        let rating = Rating { rating: 1712.6, deviation: 60.0, volatility: 0.06 };
        p.entry(key(1), 0)
            .ratings
            .insert(blitz.to_string(), StoredRating { rating, games: 20, updated_ms: 0 });
        let s = p.standing(key(1), blitz, 0);
        assert_eq!((s.player, s.name.as_deref()), (Some(key(1)), Some("Ana")));
        assert_eq!((s.rating, s.provisional), (1713, false));
        // Another speed class is another rating.
        assert_eq!(p.standing(key(1), rapid, 0).rating, 1500);
        // A year idle: the same rating, provisional again.
        let later = p.standing(key(1), blitz, 365 * 86_400_000);
        assert_eq!((later.rating, later.provisional), (1713, true));
    }

    #[test]
    fn a_refresh_replaces_records_and_keeps_the_name_index() {
        let mut p = Players::default();
        p.register(key(1), "Magnus", 1).unwrap();
        let rk: RatingKey = "chess/blitz".parse().unwrap();
        let rating = Rating { rating: 1712.0, deviation: 60.0, volatility: 0.06 };
        // Another node rated the player: the stored record replaces this one.
        let mut stored = p.get(&key(1)).unwrap().clone();
        stored.ratings.insert(rk.to_string(), StoredRating { rating, games: 7, updated_ms: 2 });
        let row = stored.row().unwrap();
        assert!(p.refresh([(row.key, row.json)]).is_empty());
        assert_eq!(p.get(&key(1)).unwrap().rating(rk).unwrap().games, 7);
        assert_eq!(p.by_name(&name_skeleton("Magnus")).unwrap().key, key(1));
        // A name given on another node is found by it, and its look-alikes are refused here.
        let mut named = PlayerRecord::new(key(2), 3);
        named.name = Some("Ana".into());
        let row = named.row().unwrap();
        assert!(p.refresh([(row.key, row.json)]).is_empty());
        assert_eq!(p.by_name(&name_skeleton("ANA")).unwrap().key, key(2));
        assert_eq!(p.register(key(3), "Ana", 4).unwrap_err().code, ErrorCode::NameTaken);
        // A record without the name it had here (a registration the store refused) takes it
        // out of the index; an unreadable record is reported and changes nothing.
        let row = PlayerRecord::new(key(1), 1).row().unwrap();
        let bad = p.refresh([(row.key, row.json), (key(2).to_string(), "{".into())]);
        assert_eq!(bad.len(), 1);
        assert!(p.by_name(&name_skeleton("Magnus")).is_none());
        assert_eq!(p.get(&key(2)).unwrap().name.as_deref(), Some("Ana"));
    }

    #[test]
    fn records_round_trip_through_rows() {
        let mut p = Players::default();
        p.register(key(1), "alice", 1).unwrap();
        let rating = Rating { rating: 1612.4, deviation: 80.2, volatility: 0.06 };
        let rk: RatingKey = "chess/blitz".parse().unwrap();
        p.entry(key(1), 2)
            .ratings
            .insert(rk.to_string(), StoredRating { rating, games: 3, updated_ms: 10 });
        let row = p.get(&key(1)).unwrap().row().unwrap();
        assert_eq!(row.skeleton.as_deref(), Some("allce"));
        let (back, bad) = Players::from_rows(vec![(row.key.clone(), row.json)]);
        assert!(bad.is_empty());
        assert_eq!(back.get(&key(1)), p.get(&key(1)));
        let view = back.view(&key(1), 10);
        assert_eq!(view.ratings[0].rating, 1612);
        assert_eq!(view.ratings[0].deviation, 80);
        assert!(!view.ratings[0].provisional);
        // Long idle: provisional again.
        assert!(back.view(&key(1), 10 + 400 * 86_400_000).ratings[0].provisional);
        // A record under the wrong key is not trusted.
        let (_, bad) = Players::from_rows(vec![(
            key(2).to_string(),
            back.get(&key(1)).unwrap().row().unwrap().json,
        )]);
        assert_eq!(bad.len(), 1);
    }
}
