//! Join links: the `maharajah://join/…` text a QR code carries, the QR code itself, and which
//! join a link (or a bare code) asks for.
//!
//! Two kinds of code travel in the same link, told apart by their shape (dashes and spaces
//! aside): **18 characters** is a LAN join code (address, port and room of a host on the Wi-Fi,
//! `maharajah_net::JoinCode`), **8 characters** is an online room code
//! ([`AccessCode`]), optionally with the server it lives on as `?server=<ws:// or wss:// URL>`
//! (percent-encoded). The lengths cannot be confused, and both use the same alphabet, so the
//! shape alone decides: the LAN screen joins the first kind, the Online screen the second, each
//! exactly as a typed code. A Chaturaji table's link adds `game=chaturaji` to the query (e.g.
//! `maharajah://join/ABCD2345?server=…&game=chaturaji`): the Chaturaji screen joins it, by the
//! same two shapes.

use maharajah_net::JoinCode;
use maharajah_protocol::AccessCode;
use serde::Serialize;

use crate::error::AppError;

/// What every join link starts with; the app registers the `maharajah` scheme.
pub const JOIN_URL_PREFIX: &str = "maharajah://join/";

/// Characters of a LAN join code without its dashes.
const LAN_CODE_LEN: usize = 18;

/// A QR code: `size` × `size` modules, row by row, `1` dark and `0` light (no quiet zone).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QrView {
    /// Modules per side.
    pub size: usize,
    /// `size * size` characters.
    pub modules: String,
}

/// The QR code of `text` (error correction M); `None` when the text is too long for one.
#[must_use]
pub fn qr(text: &str) -> Option<QrView> {
    let code = qrcode::QrCode::with_error_correction_level(text, qrcode::EcLevel::M).ok()?;
    let size = code.width();
    let modules = code
        .to_colors()
        .into_iter()
        .map(|c| if c == qrcode::Color::Dark { '1' } else { '0' })
        .collect();
    Some(QrView { size, modules })
}

/// The link for a LAN host's join code, e.g. `maharajah://join/ABCDEF-GHJKLM-NPQRST`.
#[must_use]
pub fn lan_url(code: &JoinCode) -> String {
    format!("{JOIN_URL_PREFIX}{code}")
}

/// The query parameter that makes a link a Chaturaji table's.
const CHATURAJI_PARAM: &str = "game=chaturaji";

/// The link for a Chaturaji table hosted on the Wi-Fi, e.g.
/// `maharajah://join/ABCDEF-GHJKLM-NPQRST?game=chaturaji`.
#[must_use]
pub fn chaturaji_lan_url(code: &JoinCode) -> String {
    format!("{}?{CHATURAJI_PARAM}", lan_url(code))
}

/// The link for the online room `code` on the server at `server`, e.g.
/// `maharajah://join/ABCD2345?server=wss%3A%2F%2Fplay.example.org`.
#[must_use]
pub fn room_url(code: &AccessCode, server: &str) -> String {
    format!("{JOIN_URL_PREFIX}{code}?server={}", percent_encode(server))
}

/// How others join an online room this device waits in: its link and the link's QR code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Invite {
    /// The link ([`room_url`]).
    pub url: String,
    /// Its QR code.
    pub qr: Option<QrView>,
}

impl Invite {
    /// The invitation to the room `code` on `server`.
    #[must_use]
    pub fn new(code: &AccessCode, server: &str) -> Invite {
        Invite::of(room_url(code, server))
    }

    /// The invitation to the Chaturaji table `code` on `server`.
    #[must_use]
    pub fn chaturaji(code: &AccessCode, server: &str) -> Invite {
        Invite::of(format!("{}&{CHATURAJI_PARAM}", room_url(code, server)))
    }

    /// The invitation that is `url`, with its QR code.
    #[must_use]
    pub fn of(url: String) -> Invite {
        Invite { qr: qr(&url), url }
    }
}

/// Which join a link asks for (serialised for the UI as `{ kind: "lan" | "online", … }`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JoinLink {
    /// A host on the Wi-Fi: the LAN screen joins it as a typed join code.
    Lan {
        /// The join code, canonical (`XXXXXX-XXXXXX-XXXXXX`).
        code: String,
    },
    /// An online room: the Online screen joins it as a typed room code.
    Online {
        /// The room code, canonical (8 upper-case characters).
        code: String,
        /// The server the link names (`ws://` or `wss://`), if any; else the one set in the app.
        server: Option<String>,
    },
    /// A Chaturaji table on the Wi-Fi: the Chaturaji screen joins it as a typed join code.
    ChaturajiLan {
        /// The join code, canonical.
        code: String,
    },
    /// A Chaturaji table on an online server: the Chaturaji screen's network join, with the
    /// server the link names (else the one set there).
    ChaturajiOnline {
        /// The room code, canonical.
        code: String,
        /// The server the link names, if any.
        server: Option<String>,
    },
}

/// A link the system opened the app with, as the UI takes it: which join it asks for, or why
/// it cannot be followed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpenedLink {
    /// The link as it arrived.
    pub text: String,
    /// The join it asks for (None when it cannot be read).
    pub link: Option<JoinLink>,
    /// Why it cannot be followed (`bad_link`, `bad_code`, `bad_join_code`).
    pub error: Option<AppError>,
}

impl OpenedLink {
    /// Reads `text` ([`parse`]).
    #[must_use]
    pub fn read(text: &str) -> OpenedLink {
        let (link, error) = match parse(text) {
            Ok(link) => (Some(link), None),
            Err(error) => (None, Some(error)),
        };
        OpenedLink { text: text.to_owned(), link, error }
    }
}

fn bad_link(message: impl Into<String>) -> AppError {
    AppError::new("bad_link", message)
}

/// Reads a join link, or a bare code, and says which join it asks for (by the code's shape, see
/// the module's introduction).
///
/// # Errors
/// `bad_link` for another scheme or path, a code of neither length, or a server that is not a
/// `ws://` / `wss://` address; `bad_join_code` / `bad_code` for a code of the right length
/// with characters outside the alphabet (or, for a join code, stray bits).
pub fn parse(text: &str) -> Result<JoinLink, AppError> {
    let text = text.trim();
    let rest = match text.get(..JOIN_URL_PREFIX.len()) {
        Some(head) if head.eq_ignore_ascii_case(JOIN_URL_PREFIX) => &text[JOIN_URL_PREFIX.len()..],
        _ if text.contains("://") => {
            return Err(bad_link(format!("“{text}” is not a Maharajah join link")));
        }
        _ => text,
    };
    let (code, query) = rest.split_once('?').unwrap_or((rest, ""));
    let code = code.trim_end_matches('/');
    let shape = code.chars().filter(|c| !c.is_whitespace() && *c != '-').count();
    let chaturaji = query.split('&').any(|pair| pair.eq_ignore_ascii_case(CHATURAJI_PARAM));
    match shape {
        LAN_CODE_LEN => {
            let code: JoinCode =
                code.parse().map_err(|e| AppError::new("bad_join_code", format!("{e}")))?;
            let code = code.to_string();
            Ok(if chaturaji { JoinLink::ChaturajiLan { code } } else { JoinLink::Lan { code } })
        }
        maharajah_protocol::ACCESS_CODE_LEN => {
            let code: AccessCode = code.parse().map_err(|e| {
                AppError::new("bad_code", format!("“{code}” is not a room code: {e}"))
            })?;
            let server = server_param(query)?;
            let code = code.to_string();
            Ok(if chaturaji {
                JoinLink::ChaturajiOnline { code, server }
            } else {
                JoinLink::Online { code, server }
            })
        }
        n => Err(bad_link(format!(
            "“{code}” has {n} characters: a room code has 8, a LAN join code 18"
        ))),
    }
}

/// The `server` parameter of a link's query, checked to be a WebSocket address.
fn server_param(query: &str) -> Result<Option<String>, AppError> {
    for pair in query.split('&') {
        let Some(value) = pair.strip_prefix("server=") else { continue };
        let server = percent_decode(value)
            .ok_or_else(|| bad_link("the link's server is not readable"))?
            .trim()
            .to_owned();
        let lower = server.to_ascii_lowercase();
        if !(lower.starts_with("ws://") || lower.starts_with("wss://")) || server.len() <= 6 {
            return Err(bad_link(format!("“{server}” is not a ws:// or wss:// server address")));
        }
        return Ok(Some(server));
    }
    Ok(None)
}

/// `text` with every byte but the URL-unreserved ones (`A-Z a-z 0-9 - . _ ~`) as `%XX`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The text `%XX` escapes stand for; `None` for a broken escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn lan_code() -> JoinCode {
        JoinCode { addr: "192.168.1.20:40123".parse().unwrap(), room: "ABCD2345".parse().unwrap() }
    }

    #[test]
    fn a_lan_link_and_a_bare_join_code_ask_for_the_lan_join() {
        let code = lan_code();
        let url = lan_url(&code);
        assert!(url.starts_with("maharajah://join/"), "{url}");
        let want = JoinLink::Lan { code: code.to_string() };
        assert_eq!(parse(&url).unwrap(), want);
        assert_eq!(parse(&code.to_string().to_lowercase()).unwrap(), want);
        assert_eq!(parse(&code.to_string().replace('-', "")).unwrap(), want);
        // What a launcher hands over may have a trailing slash, another case, spaces around.
        assert_eq!(parse(&format!("  MAHARAJAH://JOIN/{code}/ ")).unwrap(), want);
    }

    #[test]
    fn a_room_link_asks_for_the_online_join_with_its_server() {
        let room: AccessCode = "abcd-2345".parse().unwrap();
        let url = room_url(&room, "wss://play.example.org:7878/ws?x=1");
        assert_eq!(
            url,
            "maharajah://join/ABCD2345?server=wss%3A%2F%2Fplay.example.org%3A7878%2Fws%3Fx%3D1"
        );
        assert_eq!(
            parse(&url).unwrap(),
            JoinLink::Online {
                code: "ABCD2345".into(),
                server: Some("wss://play.example.org:7878/ws?x=1".into())
            }
        );
        // No server: the app's own; a bare room code is the same.
        let want = JoinLink::Online { code: "ABCD2345".into(), server: None };
        assert_eq!(parse("maharajah://join/abcd2345").unwrap(), want);
        assert_eq!(parse("ABCD 2345").unwrap(), want);
    }

    #[test]
    fn a_chaturaji_table_link_asks_for_the_chaturaji_join_by_the_same_shapes() {
        let room: AccessCode = "abcd2345".parse().unwrap();
        let invite = Invite::chaturaji(&room, "ws://10.0.0.2:7878");
        assert_eq!(
            invite.url,
            "maharajah://join/ABCD2345?server=ws%3A%2F%2F10.0.0.2%3A7878&game=chaturaji"
        );
        assert!(invite.qr.is_some());
        assert_eq!(
            parse(&invite.url).unwrap(),
            JoinLink::ChaturajiOnline {
                code: "ABCD2345".into(),
                server: Some("ws://10.0.0.2:7878".into())
            }
        );
        assert_eq!(
            parse("maharajah://join/ABCD2345?game=chaturaji").unwrap(),
            JoinLink::ChaturajiOnline { code: "ABCD2345".into(), server: None }
        );
        let code = lan_code();
        let url = chaturaji_lan_url(&code);
        assert_eq!(url, format!("maharajah://join/{code}?game=chaturaji"));
        assert_eq!(parse(&url).unwrap(), JoinLink::ChaturajiLan { code: code.to_string() });
        // The chess links are unchanged, and a bad code is refused the same way.
        assert_eq!(parse(&lan_url(&code)).unwrap(), JoinLink::Lan { code: code.to_string() });
        assert_eq!(parse("maharajah://join/ABCD0345?game=chaturaji").unwrap_err().code, "bad_code");
        let json = serde_json::to_value(parse(&url).unwrap()).unwrap();
        assert_eq!(json, serde_json::json!({ "kind": "chaturaji_lan", "code": code.to_string() }));
    }

    #[test]
    fn the_shape_decides_and_a_wrong_one_is_refused_with_its_code() {
        let code = |text: &str| parse(text).unwrap_err().code;
        assert_eq!(code("maharajah://join/ABC"), "bad_link");
        assert_eq!(code("maharajah://join/"), "bad_link");
        assert_eq!(code("https://example.org/join/ABCD2345"), "bad_link");
        assert_eq!(code("maharajah://play/ABCD2345"), "bad_link");
        // Right length, a look-alike character (0, 1, I, O are not in the alphabet).
        assert_eq!(code("maharajah://join/ABCD0345"), "bad_code");
        assert_eq!(code("maharajah://join/ABCDEF-GHJKLM-NPQRS1"), "bad_join_code");
        // A server that is not a WebSocket address is not followed.
        assert_eq!(code("maharajah://join/ABCD2345?server=http%3A%2F%2Fevil.example"), "bad_link");
        assert_eq!(code("maharajah://join/ABCD2345?server=%ZZ"), "bad_link");
        assert_eq!(code("maharajah://join/ABCD2345?server=ws%3A%2F%2F"), "bad_link");
    }

    #[test]
    fn every_code_of_either_kind_round_trips_through_its_link() {
        let alphabet = maharajah_protocol::ACCESS_CODE_ALPHABET;
        for seed in 0u8..64 {
            let indices =
                [0, 1, 2, 3, 4, 5, 6, 7].map(|i: u8| seed.wrapping_mul(7).wrapping_add(i * 13));
            let room = AccessCode::from_indices(indices);
            assert!(room.as_str().bytes().all(|b| alphabet.contains(&b)));
            let server = format!("ws://10.0.0.{seed}:{}", 7000 + u16::from(seed));
            assert_eq!(
                parse(&room_url(&room, &server)).unwrap(),
                JoinLink::Online { code: room.to_string(), server: Some(server) }
            );
            let lan = JoinCode {
                addr: std::net::SocketAddrV4::new(
                    [192, 168, seed, 7].into(),
                    40000 + u16::from(seed),
                ),
                room: room.clone(),
            };
            assert_eq!(parse(&lan_url(&lan)).unwrap(), JoinLink::Lan { code: lan.to_string() });
        }
    }

    #[test]
    fn an_invite_carries_the_link_and_its_qr_code() {
        let room: AccessCode = "ABCD2345".parse().unwrap();
        let invite = Invite::new(&room, "ws://127.0.0.1:7878");
        assert_eq!(invite.url, "maharajah://join/ABCD2345?server=ws%3A%2F%2F127.0.0.1%3A7878");
        let qr = invite.qr.expect("a short link fits a QR code");
        assert_eq!(qr.modules.len(), qr.size * qr.size);
        assert!(qr.modules.contains('1') && qr.modules.contains('0'));
        assert!(qr.size >= 21, "a QR code has at least 21 modules a side");
    }
}
