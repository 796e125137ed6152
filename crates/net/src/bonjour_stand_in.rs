//! A scripted **stand-in** for the iOS Bonjour plugin (`mobile/ios/MaharajahBonjourPlugin.swift`),
//! for tests on the desktop: it answers the plugin's commands and emits exactly the event
//! shapes documented in [`crate::bonjour`], as JSON text tagged with the browse's or advert's
//! `id`, on the one channel it was given (`listen`), the way the Swift side sends them on a
//! Tauri channel. It replaces only the Apple API (NWBrowser, NetService) that cannot run
//! here: a published advert is "seen" by every browse of the same stand-in, at [`StandIn::address`].
//! Built for tests only (`cfg(test)` or the `stand-in` feature).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::bonjour::{Bridge, EventSink};

/// What the stand-in holds.
#[derive(Default)]
struct State {
    /// Every command with its args, in order (`listen` without its channel).
    calls: Vec<(String, Value)>,
    /// The one event channel (`listen`), and how many times one was given.
    channel: Option<EventSink>,
    listens: usize,
    /// Open browses by id.
    browses: BTreeSet<u64>,
    /// Adverts by id: name, port, TXT, and whether published now.
    adverts: BTreeMap<u64, (String, u64, Value, bool)>,
}

/// The stand-in. Cheap to clone (shared state).
#[derive(Clone, Default)]
pub struct StandIn {
    state: Arc<Mutex<State>>,
    /// The address every published advert is reported at.
    pub address: String,
    /// Answer every browse and advert with `permissionDenied` (the person refused the
    /// local-network prompt).
    pub deny_permission: bool,
    /// Answer every advert with `error` and this message (Bonjour refused to publish, e.g.
    /// `NetService`'s `didNotPublish`); browsing still works.
    pub refuse_advert: Option<String>,
}

impl std::fmt::Debug for StandIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandIn").field("address", &self.address).finish_non_exhaustive()
    }
}

/// `event` for the browse or advert `id`, as the plugin sends it.
fn tagged(id: u64, mut event: Value) -> String {
    event["id"] = json!(id);
    event.to_string()
}

fn found(name: &str, port: u64, txt: &Value, address: &str) -> Value {
    json!({ "event": "found", "name": name, "port": port, "addresses": ["fe80::1", address], "txt": txt })
}

fn lost(name: &str) -> Value {
    json!({ "event": "lost", "name": name })
}

impl StandIn {
    /// A stand-in reporting adverts at `address`.
    #[must_use]
    pub fn new(address: &str) -> StandIn {
        StandIn { address: address.to_owned(), ..StandIn::default() }
    }

    /// The commands received so far, with their args.
    #[must_use]
    pub fn calls(&self) -> Vec<(String, Value)> {
        self.lock().calls.clone()
    }

    /// The names of the commands received so far.
    #[must_use]
    pub fn commands(&self) -> Vec<String> {
        self.lock().calls.iter().map(|(c, _)| c.clone()).collect()
    }

    /// How many event channels the plugin was given (`listen`).
    #[must_use]
    pub fn listens(&self) -> usize {
        self.lock().listens
    }

    /// The browses and adverts the plugin runs now (started and not stopped).
    #[must_use]
    pub fn running(&self) -> (usize, usize) {
        let st = self.lock();
        (st.browses.len(), st.adverts.len())
    }

    /// Sends `event` (JSON text without an id) on every open browse, as the plugin would.
    pub fn emit(&self, event: &str) {
        let (channel, ids) = {
            let st = self.lock();
            (st.channel.clone(), st.browses.iter().copied().collect::<Vec<_>>())
        };
        let (Some(channel), Ok(event)) = (channel, serde_json::from_str::<Value>(event)) else {
            return;
        };
        for id in ids {
            channel(&tagged(id, event.clone()));
        }
    }

    /// Sends `text` as it is on the event channel (an event the plugin should not send).
    pub fn emit_raw(&self, text: &str) {
        let channel = self.lock().channel.clone();
        if let Some(channel) = channel {
            channel(text);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn id_of(args: &Value) -> Result<u64, String> {
    args["id"].as_u64().ok_or_else(|| format!("no id in {args}"))
}

impl Bridge for StandIn {
    fn listen(&self, events: EventSink) -> Result<(), String> {
        let mut st = self.lock();
        st.calls.push(("listen".to_owned(), Value::Null));
        st.channel = Some(events);
        st.listens += 1;
        Ok(())
    }

    fn call(&self, command: &str, args: Value) -> Result<(), String> {
        let id = id_of(&args)?;
        let mut out: Vec<String> = Vec::new();
        let channel = {
            let mut st = self.lock();
            st.calls.push((command.to_owned(), args.clone()));
            let Some(channel) = st.channel.clone() else {
                return Err(format!("{command} before listen: no event channel"));
            };
            let browses: Vec<u64> = st.browses.iter().copied().collect();
            match command {
                "browse" => {
                    if self.deny_permission {
                        out.push(tagged(id, json!({ "event": "permissionDenied" })));
                    } else {
                        out.push(tagged(id, json!({ "event": "searching" })));
                        for (name, port, txt, live) in st.adverts.values() {
                            if *live {
                                out.push(tagged(id, found(name, *port, txt, &self.address)));
                            }
                        }
                    }
                    st.browses.insert(id);
                }
                "stopBrowse" => {
                    st.browses.remove(&id);
                }
                "advertise" => {
                    let name = args["name"].as_str().ok_or("no name")?.to_owned();
                    let port = args["port"].as_u64().ok_or("no port")?;
                    let txt = args["txt"].clone();
                    if !txt.as_object().is_some_and(|m| m.values().all(Value::is_string)) {
                        return Err(format!("TXT values must be strings: {txt}"));
                    }
                    if self.deny_permission {
                        out.push(tagged(id, json!({ "event": "permissionDenied" })));
                        st.adverts.insert(id, (name, port, txt, false));
                    } else if let Some(message) = &self.refuse_advert {
                        out.push(tagged(id, json!({ "event": "error", "message": message })));
                        st.adverts.insert(id, (name, port, txt, false));
                    } else {
                        out.push(tagged(id, json!({ "event": "published", "name": name })));
                        for b in &browses {
                            out.push(tagged(*b, found(&name, port, &txt, &self.address)));
                        }
                        st.adverts.insert(id, (name, port, txt, true));
                    }
                }
                "updateAdvert" => {
                    let address = self.address.clone();
                    let refused = self.deny_permission || self.refuse_advert.is_some();
                    let a = st.adverts.get_mut(&id).ok_or("no such advert")?;
                    a.2 = args["txt"].clone();
                    if !refused {
                        a.3 = true;
                        for b in &browses {
                            out.push(tagged(*b, found(&a.0, a.1, &a.2, &address)));
                        }
                    }
                }
                "withdrawAdvert" | "stopAdvert" => {
                    let gone = if command == "stopAdvert" {
                        st.adverts.remove(&id).filter(|a| a.3).map(|a| a.0)
                    } else {
                        st.adverts.get_mut(&id).filter(|a| a.3).map(|a| {
                            a.3 = false;
                            a.0.clone()
                        })
                    };
                    if let Some(name) = gone {
                        for b in &browses {
                            out.push(tagged(*b, lost(&name)));
                        }
                    }
                }
                other => return Err(format!("the plugin has no command {other}")),
            }
            channel
        };
        // Events go out after the command has returned its state, as the plugin's would.
        for event in out {
            channel(&event);
        }
        Ok(())
    }
}
