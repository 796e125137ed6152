//! One path for what the app tells the UI unasked: every service's news becomes a [`Push`], handed
//! to the one [`Sink`] the shell gives the [`App`](crate::App). The Tauri shell emits each push as
//! the event [`Push::event`] with the push's payload; tests collect them.

use serde::Serialize;

use crate::analysis::view::{AnalysisView, EngineView};
use crate::chaturaji::lan::ChaturajiHosted;
use crate::chaturaji::TableView;
use crate::chess::online::{NetTick, NetUpdate, NetView};
use crate::chess::session::{ClockView, GameView};
use crate::lan::{HostList, HostedView, LanPush, LanStatus};
use crate::link::OpenedLink;
use crate::lobby::LobbyView;

/// Something the UI is told without asking. It serialises as its payload alone (the event name
/// says what it is), so the JSON is the payload's own.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Push {
    /// A new local game view the UI did not ask for: the computer moved, a flag fell (`game`).
    Game(GameView),
    /// The running local clock, a few times a second (`clock`).
    Clock(ClockView),
    /// The network game's view changed (`net`).
    Net(Box<NetView>),
    /// The network game's clocks and pause countdown (`net-clock`).
    NetClock(NetTick),
    /// A Chaturaji table's view changed: a CPU step, a time-out, a room event (`chaturaji`).
    Chaturaji(Box<TableView>),
    /// The LAN host list changed (`lan-hosts`).
    LanHosts(HostList),
    /// The LAN game's state changed (`lan-status`).
    LanStatus(LanStatus),
    /// What the chess host's screen shows changed: its advert problem (`lan-hosted`).
    LanHosted(Box<HostedView>),
    /// What the Chaturaji host's table shows about hosting changed: its advert problem
    /// (`chaturaji-hosted`).
    ChaturajiHosted(Box<ChaturajiHosted>),
    /// The analysis board changed by itself: review progress, a review done (`analysis`).
    Analysis(Box<AnalysisView>),
    /// The engine's latest word on the analysis board's node (`analysis-engine`).
    AnalysisEngine(EngineView),
    /// The system opened the app with a join link (`join-link`); the UI takes it with
    /// [`Services::take_link`](crate::Services::take_link), so a link is followed once.
    JoinLink(OpenedLink),
    /// The online lobby changed (event `lobby`).
    Lobby(Box<LobbyView>),
}

impl Push {
    /// The event name the UI listens to for this push.
    #[must_use]
    pub fn event(&self) -> &'static str {
        match self {
            Push::Game(_) => "game",
            Push::Clock(_) => "clock",
            Push::Net(_) => "net",
            Push::NetClock(_) => "net-clock",
            Push::Chaturaji(_) => "chaturaji",
            Push::LanHosts(_) => "lan-hosts",
            Push::LanStatus(_) => "lan-status",
            Push::LanHosted(_) => "lan-hosted",
            Push::ChaturajiHosted(_) => "chaturaji-hosted",
            Push::Analysis(_) => "analysis",
            Push::AnalysisEngine(_) => "analysis-engine",
            Push::JoinLink(_) => "join-link",
            Push::Lobby(_) => "lobby",
        }
    }
}

impl From<NetUpdate> for Push {
    fn from(update: NetUpdate) -> Push {
        match update {
            NetUpdate::View(view) => Push::Net(view),
            NetUpdate::Tick(tick) => Push::NetClock(tick),
        }
    }
}

impl From<LanPush> for Push {
    fn from(push: LanPush) -> Push {
        match push {
            LanPush::Hosts(list) => Push::LanHosts(list),
            LanPush::Status(status) => Push::LanStatus(status),
            LanPush::Hosted(hosted) => Push::LanHosted(Box::new(hosted)),
        }
    }
}

/// Where pushes go: the shell's event emitter, a test's channel.
pub trait Sink: Send + Sync {
    /// Delivers one push (it must not block for long: services call it while working).
    fn push(&self, push: Push);
}

impl<F: Fn(Push) + Send + Sync> Sink for F {
    fn push(&self, push: Push) {
        self(push);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_serialises_as_its_payload_and_names_its_event() {
        let tick = NetTick { clock: None, pause: None };
        let push = Push::from(NetUpdate::Tick(tick));
        assert_eq!(push.event(), "net-clock");
        assert_eq!(
            serde_json::to_string(&push).expect("serialises"),
            serde_json::to_string(&tick).expect("serialises")
        );
    }
}
