//! A scripted **stand-in** for the iOS Bonjour plugin (`mobile/ios/MaharajahBonjourPlugin.swift`),
//! for tests on the desktop: it answers the plugin's commands and emits exactly the event
//! shapes documented in [`crate::bonjour`], as JSON text, the way the Swift side sends them on
//! a Tauri channel. It replaces only the Apple API (NWBrowser, NetService) that cannot run
//! here: a published advert is "seen" by every browse of the same stand-in, at [`StandIn::address`].
//! Built for tests only (`cfg(test)` or the `stand-in` feature).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::bonjour::{Bridge, EventSink};

/// What the stand-in holds.
#[derive(Default)]
struct State {
    /// Every command with its args (without the channel), in order.
    calls: Vec<(String, Value)>,
    /// Browses by id.
    browses: BTreeMap<u64, EventSink>,
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
}

impl std::fmt::Debug for StandIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandIn").field("address", &self.address).finish_non_exhaustive()
    }
}

fn found(name: &str, port: u64, txt: &Value, address: &str) -> String {
    json!({ "event": "found", "name": name, "port": port, "addresses": ["fe80::1", address], "txt": txt })
        .to_string()
}

fn lost(name: &str) -> String {
    json!({ "event": "lost", "name": name }).to_string()
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

    /// Sends `event` (JSON text) on every open browse, as the plugin would.
    pub fn emit(&self, event: &str) {
        let sinks: Vec<EventSink> = self.lock().browses.values().cloned().collect();
        for s in sinks {
            s(event);
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
    fn call(&self, command: &str, args: Value, on_event: Option<EventSink>) -> Result<(), String> {
        let id = id_of(&args)?;
        let mut out: Vec<(EventSink, String)> = Vec::new();
        {
            let mut st = self.lock();
            st.calls.push((command.to_owned(), args.clone()));
            let browses: Vec<EventSink> = st.browses.values().cloned().collect();
            match command {
                "browse" => {
                    let sink = on_event.ok_or("browse without a channel")?;
                    if self.deny_permission {
                        out.push((
                            sink.clone(),
                            json!({ "event": "permissionDenied" }).to_string(),
                        ));
                    } else {
                        out.push((sink.clone(), json!({ "event": "searching" }).to_string()));
                        for (name, port, txt, live) in st.adverts.values() {
                            if *live {
                                out.push((sink.clone(), found(name, *port, txt, &self.address)));
                            }
                        }
                    }
                    st.browses.insert(id, sink);
                }
                "stopBrowse" => {
                    st.browses.remove(&id);
                }
                "advertise" => {
                    let sink = on_event.ok_or("advertise without a channel")?;
                    let name = args["name"].as_str().ok_or("no name")?.to_owned();
                    let port = args["port"].as_u64().ok_or("no port")?;
                    let txt = args["txt"].clone();
                    if !txt.as_object().is_some_and(|m| m.values().all(Value::is_string)) {
                        return Err(format!("TXT values must be strings: {txt}"));
                    }
                    if self.deny_permission {
                        out.push((sink, json!({ "event": "permissionDenied" }).to_string()));
                        st.adverts.insert(id, (name, port, txt, false));
                    } else {
                        out.push((sink, json!({ "event": "published", "name": name }).to_string()));
                        for b in &browses {
                            out.push((b.clone(), found(&name, port, &txt, &self.address)));
                        }
                        st.adverts.insert(id, (name, port, txt, true));
                    }
                }
                "updateAdvert" => {
                    let address = self.address.clone();
                    let a = st.adverts.get_mut(&id).ok_or("no such advert")?;
                    a.2 = args["txt"].clone();
                    a.3 = true;
                    for b in &browses {
                        out.push((b.clone(), found(&a.0, a.1, &a.2, &address)));
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
                            out.push((b.clone(), lost(&name)));
                        }
                    }
                }
                other => return Err(format!("the plugin has no command {other}")),
            }
        }
        // Events go out after the command has returned its state, as the plugin's would.
        for (sink, event) in out {
            sink(&event);
        }
        Ok(())
    }
}
