//! The app's time: seconds by the wall clock for dates.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since 1970 by the wall clock (dates of saved games).
#[must_use]
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
