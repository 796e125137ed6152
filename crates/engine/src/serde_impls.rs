//! Serde forms for the types the app, protocol and server exchange. Text forms are the
//! notation already used elsewhere: squares `"e4"`, moves in UCI `"e7e8m"`, armies as a
//! one-sided FEN board, colours/roles/variants/statuses as lower-case names, `ByColor` as an
//! object `{"white": …, "black": …}`.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::army::Army;
use crate::moves::Move;
use crate::profile::{Status, Variant};
use crate::types::{ByColor, Color, Role, Square};

macro_rules! via_text {
    ($ty:ty, $to:expr, $from:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let to: fn(&$ty) -> String = $to;
                s.serialize_str(&to(self))
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                let text = String::deserialize(d)?;
                let from: fn(&str) -> Option<$ty> = $from;
                from(&text).ok_or_else(|| {
                    D::Error::custom(format!("invalid {}: {text:?}", stringify!($ty)))
                })
            }
        }
    };
}

via_text!(Square, |s| s.to_string(), |t| t.parse().ok());
via_text!(Move, |m| m.to_string(), |t| t.parse().ok());
via_text!(Army, |a| a.to_string(), |t| t.parse().ok());
via_text!(Variant, |v| v.name().to_owned(), |t| t.parse().ok());
via_text!(Color, |c| c.name().to_owned(), |t| Color::ALL.into_iter().find(|c| c.name() == t));
via_text!(Role, |r| r.name().to_owned(), |t| Role::ALL.into_iter().find(|r| r.name() == t));
via_text!(
    Status,
    |s| match s {
        Status::Classic => "classic".to_owned(),
        Status::Variant => "variant".to_owned(),
    },
    |t| match t {
        "classic" => Some(Status::Classic),
        "variant" => Some(Status::Variant),
        _ => None,
    }
);

/// `ByColor<T>` travels as an object with a `white` and a `black` field, in that order.
#[derive(Serialize)]
#[serde(rename = "ByColor")]
struct ByColorRef<'a, T> {
    white: &'a T,
    black: &'a T,
}

#[derive(Deserialize)]
#[serde(rename = "ByColor")]
struct ByColorOwned<T> {
    white: T,
    black: T,
}

impl<T: Serialize> Serialize for ByColor<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ByColorRef { white: &self.white, black: &self.black }.serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ByColor<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ByColor<T>, D::Error> {
        let ByColorOwned { white, black } = ByColorOwned::deserialize(d)?;
        Ok(ByColor { white, black })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms() -> Result<(), serde_json::Error> {
        let mv: Move = serde_json::from_str("\"e7e8m\"")?;
        assert_eq!(serde_json::to_string(&mv)?, "\"e7e8m\"");
        assert_eq!(serde_json::to_string(&Color::Black)?, "\"black\"");
        assert_eq!(serde_json::from_str::<Role>("\"maharajah\"")?, Role::Maharajah);
        assert_eq!(serde_json::to_string(&Status::Variant)?, "\"variant\"");
        let army = Army::orthodox(Color::White);
        assert_eq!(serde_json::from_str::<Army>(&serde_json::to_string(&army)?)?, army);
        assert!(serde_json::from_str::<Square>("\"z9\"").is_err());
        let table = ByColor { white: Some(1u8), black: None };
        assert_eq!(serde_json::to_string(&table)?, r#"{"white":1,"black":null}"#);
        assert_eq!(
            serde_json::from_str::<ByColor<Option<u8>>>(r#"{"black":2,"white":1}"#)?,
            ByColor { white: Some(1), black: Some(2) }
        );
        assert!(serde_json::from_str::<ByColor<u8>>(r#"{"white":1}"#).is_err());
        Ok(())
    }
}
