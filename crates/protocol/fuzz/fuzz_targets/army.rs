//! Army text: any input is a canonical army or a typed error; canonical form is a fixed point
//! and commitments are deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use maharajah_protocol::army::{canonical_army, commitment, opens, parse_nonce};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(c) = canonical_army(&text) {
        assert_eq!(canonical_army(&c).expect("canonical reparses"), c);
        let nonce = [7u8; 32];
        let h = commitment(&text, &nonce).expect("valid army commits");
        assert!(opens(&h, &c, &nonce).expect("valid army"));
    }
    let _ = parse_nonce(&text);
});
