//! Placeholder replaced by the LAN benchmark.
fn main() {}
