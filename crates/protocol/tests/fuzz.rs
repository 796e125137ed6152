//! The decoder never panics and always answers a typed error or a message (property tests;
//! a stand-in for a cargo-fuzz target, which this machine cannot install).
#![allow(clippy::unwrap_used)]

use maharajah_protocol::*;
use proptest::prelude::*;

fn tag() -> impl Strategy<Value = String> {
    prop_oneof![proptest::sample::select(ClientMsg::TAGS).prop_map(str::to_owned), "[a-z_]{0,12}",]
}

fn json_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| format!("{f:?}")),
        "\\PC{0,20}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        Just("{}".to_owned()),
        Just("[]".to_owned()),
        Just(
            r#"{"variant":"chess","time_control":null,"hidden_setup":false,"color":null}"#
                .to_owned()
        ),
    ]
}

fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("version"),
        Just("client"),
        Just("nonce"),
        Just("options"),
        Just("code"),
        Just("token"),
        Just("last_seq"),
        Just("commitment"),
        Just("army"),
        Just("ply"),
        Just("uci"),
        Just("x"),
    ]
    .prop_map(str::to_owned)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = decode_client(&text);
        let _ = decode_server(&text);
    }

    #[test]
    fn arbitrary_bytes_as_lossy_text_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = decode_client(&text);
    }

    #[test]
    fn object_shaped_frames_decode_or_fail_typed(
        t in tag(),
        fields in proptest::collection::vec((field(), json_value()), 0..5),
    ) {
        let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        let frame = format!("{{\"t\":{},{}}}", serde_json::to_string(&t).unwrap(), body.join(","))
            .replace(",}", "}");
        match decode_client(&frame) {
            Ok(msg) => {
                // Whatever decodes re-encodes to something that decodes to the same message.
                prop_assert_eq!(decode_client(&encode(&msg)).unwrap(), msg);
            }
            Err(e) => {
                let known = ClientMsg::TAGS.contains(&t.as_str());
                prop_assert_eq!(e.code() == ErrorCode::UnknownMessage, !known, "{}", e);
            }
        }
    }

    #[test]
    fn army_text_never_panics(text in "[KQRBNPMCAkqrbnpmcax]?[a-iA-I]?[0-9]?(,[KQRBNPMCA][a-h][1-9]){0,20}") {
        if let Ok(c) = army::canonical_army(&text) {
            prop_assert_eq!(army::canonical_army(&c).unwrap(), c.clone());
        }
        let _ = army::commitment(&text, &[0; 32]);
    }
}
