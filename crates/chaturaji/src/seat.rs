//! The four seats, their turn order and per-seat tables.

use std::fmt;
use std::ops::{Index, IndexMut};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the four players. Turns go clockwise: Red → Blue → Yellow → Green.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    /// Red ●, bottom of the board, pawns move north.
    Red,
    /// Blue ▲, left side, pawns move east.
    Blue,
    /// Yellow ■, top, pawns move south.
    Yellow,
    /// Green ◆, right side, pawns move west.
    Green,
}

impl Seat {
    /// All seats in turn order.
    pub const ALL: [Seat; 4] = [Seat::Red, Seat::Blue, Seat::Yellow, Seat::Green];

    /// The seat that plays after this one (clockwise).
    #[must_use]
    pub const fn next(self) -> Seat {
        match self {
            Seat::Red => Seat::Blue,
            Seat::Blue => Seat::Yellow,
            Seat::Yellow => Seat::Green,
            Seat::Green => Seat::Red,
        }
    }

    /// Position in turn order, 0 for Red to 3 for Green.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The seat's symbol as shown on the board: ●, ▲, ■ or ◆.
    #[must_use]
    pub const fn symbol(self) -> char {
        match self {
            Seat::Red => '●',
            Seat::Blue => '▲',
            Seat::Yellow => '■',
            Seat::Green => '◆',
        }
    }

    /// The seat's name in lowercase, as used in records.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Seat::Red => "red",
            Seat::Blue => "blue",
            Seat::Yellow => "yellow",
            Seat::Green => "green",
        }
    }

    /// The seats that follow this one, in turn order (three of them).
    #[must_use]
    pub fn others(self) -> [Seat; 3] {
        let a = self.next();
        let b = a.next();
        [a, b, b.next()]
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A seat name that is not one of red, blue, yellow, green.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown seat {0:?} (expected red, blue, yellow or green)")]
pub struct ParseSeatError(pub String);

impl FromStr for Seat {
    type Err = ParseSeatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Seat::ALL
            .into_iter()
            .find(|seat| seat.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseSeatError(s.to_owned()))
    }
}

/// A value per seat, serialised as `{ "red": .., "blue": .., "yellow": .., "green": .. }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BySeat<T> {
    /// Red's value.
    pub red: T,
    /// Blue's value.
    pub blue: T,
    /// Yellow's value.
    pub yellow: T,
    /// Green's value.
    pub green: T,
}

impl<T> BySeat<T> {
    /// Builds a table by calling `f` for each seat in turn order.
    pub fn from_fn(mut f: impl FnMut(Seat) -> T) -> BySeat<T> {
        BySeat {
            red: f(Seat::Red),
            blue: f(Seat::Blue),
            yellow: f(Seat::Yellow),
            green: f(Seat::Green),
        }
    }

    /// Iterates over `(seat, value)` in turn order.
    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        Seat::ALL.into_iter().map(move |seat| (seat, &self[seat]))
    }

    /// Applies `f` to every value.
    pub fn map<U>(&self, mut f: impl FnMut(Seat, &T) -> U) -> BySeat<U> {
        BySeat::from_fn(|seat| f(seat, &self[seat]))
    }
}

impl<T: Clone> BySeat<T> {
    /// The same value for every seat.
    pub fn splat(value: T) -> BySeat<T> {
        BySeat::from_fn(|_| value.clone())
    }
}

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;

    fn index(&self, seat: Seat) -> &T {
        match seat {
            Seat::Red => &self.red,
            Seat::Blue => &self.blue,
            Seat::Yellow => &self.yellow,
            Seat::Green => &self.green,
        }
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        match seat {
            Seat::Red => &mut self.red,
            Seat::Blue => &mut self.blue,
            Seat::Yellow => &mut self.yellow,
            Seat::Green => &mut self.green,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_order_is_clockwise_and_cycles() {
        assert_eq!(Seat::Red.next(), Seat::Blue);
        assert_eq!(Seat::Blue.next(), Seat::Yellow);
        assert_eq!(Seat::Yellow.next(), Seat::Green);
        assert_eq!(Seat::Green.next(), Seat::Red);
        assert_eq!(Seat::Yellow.others(), [Seat::Green, Seat::Red, Seat::Blue]);
    }

    #[test]
    fn seat_names_round_trip() {
        for seat in Seat::ALL {
            assert_eq!(seat.to_string().parse::<Seat>(), Ok(seat));
        }
        assert!("purple".parse::<Seat>().is_err());
    }

    #[test]
    fn by_seat_serialises_with_seat_names() {
        let table = BySeat::from_fn(|s| s.index());
        let json = serde_json::to_string(&table).expect("plain struct serialises");
        assert_eq!(json, r#"{"red":0,"blue":1,"yellow":2,"green":3}"#);
    }
}
