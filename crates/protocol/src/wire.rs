//! Serde adapters where the engine's own serde form accepts more than the wire: the wire's
//! bytes are the contract, so these keep decoding exactly as strict as the protocol was.

/// A [`crate::Variant`] as exactly `"chess"`, `"maharajah"` or `"horde"` (the engine's
/// `FromStr` also takes `"standard"` and any case, which the wire never did).
pub(crate) mod variant {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::Variant;

    /// Every variant, for the exact-name lookup.
    const ALL: [Variant; 3] = [Variant::Chess, Variant::Maharajah, Variant::Horde];

    pub(crate) fn serialize<S: Serializer>(v: &Variant, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.name())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Variant, D::Error> {
        let text = String::deserialize(d)?;
        ALL.into_iter().find(|v| v.name() == text).ok_or_else(|| {
            D::Error::custom(format!(
                "unknown variant `{text}`, expected one of `chess`, `maharajah`, `horde`"
            ))
        })
    }
}
