//! The difference between two stored records of one room, as PostgreSQL's `room_events` keeps
//! it: a room's log is its snapshot plus these patches in order, so a move appends a few bytes
//! (the new move, its event number, the clocks) instead of rewriting the whole room.
//!
//! A patch is a JSON object: `{"full": record}` replaces everything (the first write after an
//! unknown state); otherwise `set` gives fields with new values, `push` items appended to an
//! array field (the moves), `unset` fields that are gone. Any serde record works: the patch is
//! taken of its JSON form, field by field at the top level.

use serde_json::{Map, Value};

/// The patch that turns `before` (the last record written, `None` if unknown) into `after`.
pub fn diff(before: Option<&Value>, after: &Value) -> Value {
    let (Some(Value::Object(old)), Value::Object(new)) = (before, after) else {
        return full(after);
    };
    let mut set = Map::new();
    let mut push = Map::new();
    for (key, value) in new {
        match (old.get(key), value) {
            (Some(was), _) if was == value => {}
            (Some(Value::Array(was)), Value::Array(now))
                if now.len() > was.len() && now[..was.len()] == was[..] =>
            {
                push.insert(key.clone(), Value::Array(now[was.len()..].to_vec()));
            }
            _ => {
                set.insert(key.clone(), value.clone());
            }
        }
    }
    let unset: Vec<Value> =
        old.keys().filter(|k| !new.contains_key(*k)).map(|k| Value::String(k.clone())).collect();
    let mut patch = Map::new();
    if !set.is_empty() {
        patch.insert("set".into(), Value::Object(set));
    }
    if !push.is_empty() {
        patch.insert("push".into(), Value::Object(push));
    }
    if !unset.is_empty() {
        patch.insert("unset".into(), Value::Array(unset));
    }
    Value::Object(patch)
}

fn full(record: &Value) -> Value {
    let mut patch = Map::new();
    patch.insert("full".into(), record.clone());
    Value::Object(patch)
}

/// Applies `patch` to `record` (see the module documentation).
///
/// # Errors
///
/// A description of the patch that does not fit the record (a `push` to a field that is not
/// an array, a patch that is not an object).
pub fn apply(record: &mut Value, patch: Value) -> Result<(), String> {
    let Value::Object(mut patch) = patch else { return Err("a patch is an object".into()) };
    if let Some(whole) = patch.remove("full") {
        *record = whole;
        return Ok(());
    }
    let Value::Object(fields) = record else { return Err("the record is not an object".into()) };
    if let Some(Value::Object(set)) = patch.remove("set") {
        fields.extend(set);
    }
    if let Some(Value::Object(push)) = patch.remove("push") {
        for (key, items) in push {
            let (Some(Value::Array(list)), Value::Array(items)) = (fields.get_mut(&key), items)
            else {
                return Err(format!("push to {key}, which is not a list"));
            };
            list.extend(items);
        }
    }
    if let Some(Value::Array(unset)) = patch.remove("unset") {
        for key in unset {
            if let Value::String(key) = key {
                fields.remove(&key);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn a_move_appends_only_what_changed() {
        let a =
            json!({"code": "K7", "moves": ["e2e4"], "seq": 3, "clock": {"white": 5, "black": 6}});
        let b = json!({"code": "K7", "moves": ["e2e4", "e7e5"], "seq": 4, "clock": {"white": 5, "black": 4}});
        let p = diff(Some(&a), &b);
        assert_eq!(
            p,
            json!({"set": {"seq": 4, "clock": {"white": 5, "black": 4}}, "push": {"moves": ["e7e5"]}})
        );
        let mut r = a.clone();
        apply(&mut r, p).unwrap();
        assert_eq!(r, b);
    }

    #[test]
    fn a_rewritten_list_a_removed_field_and_an_unknown_start_round_trip() {
        let a = json!({"moves": ["e2e4", "e7e5"], "draw": "white"});
        let b = json!({"moves": ["d2d4"], "result": null});
        let mut r = a.clone();
        apply(&mut r, diff(Some(&a), &b)).unwrap();
        assert_eq!(r, b);
        let mut r = json!({});
        apply(&mut r, diff(None, &b)).unwrap();
        assert_eq!(r, b);
        assert!(apply(&mut json!({"moves": 3}), json!({"push": {"moves": [1]}})).is_err());
        assert_eq!(diff(Some(&b), &b), json!({}));
    }
}
