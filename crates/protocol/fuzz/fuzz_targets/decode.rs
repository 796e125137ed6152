//! Frame decoders: any bytes give a message or a typed error, never a panic; whatever decodes
//! re-encodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use maharajah_protocol::{decode_client, decode_server, encode};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match decode_client(&text) {
        Ok(msg) => assert_eq!(decode_client(&encode(&msg)).expect("own encoding decodes"), msg),
        Err(e) => {
            let _ = (e.code(), e.to_string());
        }
    }
    if let Ok(msg) = decode_server(&text) {
        assert_eq!(decode_server(&encode(&msg)).expect("own encoding decodes"), msg);
    }
});
