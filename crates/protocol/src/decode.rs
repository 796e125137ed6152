//! Checked decoding of one frame: size first, then JSON, then the tag, then the fields.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{ChaturajiMsg, ClientMsg, ErrorCode, LobbyMsg, ServerMsg, MAX_FRAME_BYTES};

/// Why a frame could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The frame is larger than [`MAX_FRAME_BYTES`].
    #[error("frame of {len} bytes exceeds the limit of {max} bytes")]
    TooLarge {
        /// The frame's length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Not a JSON object.
    #[error("not a JSON object: {0}")]
    NotJson(String),
    /// No string field `t`.
    #[error("the message has no \"t\" tag")]
    MissingTag,
    /// `t` names no known message.
    #[error("unknown message type \"{0}\"")]
    UnknownTag(String),
    /// Known tag, but the fields do not fit.
    #[error("bad \"{tag}\" message: {detail}")]
    BadFields {
        /// The tag.
        tag: String,
        /// What serde said.
        detail: String,
    },
}

impl DecodeError {
    /// The error code to answer with.
    pub fn code(&self) -> ErrorCode {
        match self {
            DecodeError::TooLarge { .. } => ErrorCode::FrameTooLarge,
            DecodeError::UnknownTag(_) => ErrorCode::UnknownMessage,
            DecodeError::NotJson(_) | DecodeError::MissingTag | DecodeError::BadFields { .. } => {
                ErrorCode::Malformed
            }
        }
    }
}

fn decode<T: DeserializeOwned>(text: &str, tags: &[&str]) -> Result<T, DecodeError> {
    if text.len() > MAX_FRAME_BYTES {
        return Err(DecodeError::TooLarge { len: text.len(), max: MAX_FRAME_BYTES });
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let obj = value.as_object().ok_or_else(|| DecodeError::NotJson("not an object".into()))?;
    let tag = obj.get("t").and_then(|t| t.as_str()).ok_or(DecodeError::MissingTag)?;
    if !tags.contains(&tag) {
        return Err(DecodeError::UnknownTag(tag.chars().take(40).collect()));
    }
    let tag = tag.to_owned();
    serde_json::from_value(value).map_err(|e| DecodeError::BadFields { tag, detail: e.to_string() })
}

/// Decodes a frame a server received.
///
/// # Errors
///
/// [`DecodeError`] for an oversize frame, invalid JSON, a missing or unknown tag, or bad fields.
///
/// # Examples
///
/// ```
/// use maharajah_protocol::{decode_client, ClientMsg, DecodeError};
/// let m = decode_client(r#"{"t":"ping","nonce":7}"#).unwrap();
/// assert_eq!(m, ClientMsg::Ping { nonce: 7 });
/// assert!(matches!(decode_client(r#"{"t":"fly"}"#), Err(DecodeError::UnknownTag(_))));
/// ```
pub fn decode_client(text: &str) -> Result<ClientMsg, DecodeError> {
    decode(text, ClientMsg::TAGS)
}

/// Decodes a frame a client received.
///
/// # Errors
///
/// As [`decode_client`].
pub fn decode_server(text: &str) -> Result<ServerMsg, DecodeError> {
    let value: serde_json::Value = decode(text, ServerMsg::TAGS)?;
    let tag = value.get("t").and_then(|t| t.as_str()).unwrap_or_default().to_owned();
    let bad =
        |e: serde_json::Error| DecodeError::BadFields { tag: tag.clone(), detail: e.to_string() };
    // The Chaturaji and lobby messages are untagged variants: decode them by their own tags, so
    // a bad field is reported by the message it belongs to.
    if ChaturajiMsg::TAGS.contains(&tag.as_str()) {
        return serde_json::from_value::<ChaturajiMsg>(value).map(ServerMsg::from).map_err(bad);
    }
    if LobbyMsg::TAGS.contains(&tag.as_str()) {
        return serde_json::from_value::<LobbyMsg>(value).map(ServerMsg::from).map_err(bad);
    }
    serde_json::from_value(value).map_err(bad)
}

/// Encodes a message as one JSON frame.
pub fn encode<T: Serialize>(msg: &T) -> String {
    // Serialising these plain data types cannot fail: no maps with non-string keys, no I/O.
    serde_json::to_string(msg)
        .unwrap_or_else(|e| format!(r#"{{"t":"error","code":"internal","message":"encode: {e}"}}"#))
}
