//! [`MoveTree`]: a game with its variations — the main line, side lines, comments, NAGs and
//! evaluations — and a cursor to step through it.
//!
//! Every node but the root is one move; its first child continues its line (the main line from
//! the root follows first children), the others are variations. Nodes are addressed by
//! [`NodeId`]s that stay valid until the node is deleted.

use std::fmt;

use maharajah_engine::{Game, Move, Position, SanError};

use crate::eval::Eval;

/// The address of a node of a [`MoveTree`]; stays valid until that node is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(usize);

impl NodeId {
    /// The id as a plain number (for a UI or a wire; [`NodeId::from_index`] reads it back).
    #[must_use]
    pub const fn index(self) -> usize {
        self.0
    }

    /// The id numbered `index`; check it with [`MoveTree::contains`] before use.
    #[must_use]
    pub const fn from_index(index: usize) -> NodeId {
        NodeId(index)
    }
}

/// One node: the move that led here (none at the root), the position after it and the
/// annotations.
#[derive(Debug, Clone)]
pub struct Node {
    parent: Option<NodeId>,
    children: Vec<NodeId>,
    mv: Option<Move>,
    san: String,
    position: Position,
    /// Comments after the move (before the first move at the root), without braces.
    pub comments: Vec<String>,
    /// Numeric annotation glyphs of the move (`2` is `?`, `4` is `??`, `6` is `?!`).
    pub nags: Vec<u8>,
    /// The engine's evaluation of the position after the move.
    pub eval: Option<Eval>,
}

impl Node {
    /// The move that led to this node; `None` at the root.
    #[must_use]
    pub fn mv(&self) -> Option<Move> {
        self.mv
    }

    /// The move in SAN (empty at the root).
    #[must_use]
    pub fn san(&self) -> &str {
        &self.san
    }

    /// The position after the move (the start position at the root).
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The node before this one; `None` at the root.
    #[must_use]
    pub fn parent(&self) -> Option<NodeId> {
        self.parent
    }

    /// The continuations: the first continues this line, the others are variations.
    #[must_use]
    pub fn children(&self) -> &[NodeId] {
        &self.children
    }
}

/// A move that is not legal at the node it was played at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// The node it was tried at.
    pub at: NodeId,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {} here", self.mv)
    }
}

impl std::error::Error for IllegalMove {}

/// A game tree with a main line, variations and a cursor ([`MoveTree::current`]).
///
/// # Examples
/// ```
/// use maharajah_analysis::MoveTree;
/// use maharajah_engine::{Position, Variant};
///
/// let mut tree = MoveTree::new(Position::new(Variant::Chess));
/// tree.play_san("e4")?;
/// tree.play_san("e5")?;
/// tree.back();
/// let c5 = tree.play_san("c5")?;                // a variation after 1. e4
/// assert!(!tree.is_main_line(c5));
/// tree.promote(c5);                              // 1... c5 becomes the main line
/// assert!(tree.is_main_line(c5));
/// assert_eq!(tree.main_line_san(), ["e4", "c5"]);
/// # Ok::<(), maharajah_engine::SanError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MoveTree {
    /// Slots by [`NodeId`]; a deleted node leaves `None` so the other ids stay valid.
    nodes: Vec<Option<Node>>,
    current: NodeId,
}

const ROOT: NodeId = NodeId(0);

impl MoveTree {
    /// A tree holding only the start position.
    #[must_use]
    pub fn new(start: Position) -> MoveTree {
        let root = Node {
            parent: None,
            children: Vec::new(),
            mv: None,
            san: String::new(),
            position: start,
            comments: Vec::new(),
            nags: Vec::new(),
            eval: None,
        };
        MoveTree { nodes: vec![Some(root)], current: ROOT }
    }

    /// A tree whose main line is `game`'s moves; the cursor is at the root.
    #[must_use]
    pub fn from_game(game: &Game) -> MoveTree {
        let mut tree = MoveTree::new(game.start().clone());
        let mut at = ROOT;
        for &mv in game.moves() {
            // A game holds only legal moves.
            at = tree.add_unchecked(at, mv);
        }
        tree
    }

    /// The root: the start position.
    #[must_use]
    pub const fn root(&self) -> NodeId {
        ROOT
    }

    /// The cursor: the node on the board.
    #[must_use]
    pub const fn current(&self) -> NodeId {
        self.current
    }

    /// The node `id`, if it was not deleted.
    #[must_use]
    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.0).and_then(Option::as_ref)
    }

    /// The node `id` to annotate, if it was not deleted.
    pub fn get_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.get_mut(id.0).and_then(Option::as_mut)
    }

    /// The node `id`.
    ///
    /// # Panics
    /// If `id` was deleted; use [`MoveTree::get`] for ids that may be stale.
    #[must_use]
    pub fn node(&self, id: NodeId) -> &Node {
        self.get(id).expect("a live node id")
    }

    /// The node under the cursor.
    #[must_use]
    pub fn current_node(&self) -> &Node {
        self.node(self.current)
    }

    /// The position under the cursor.
    #[must_use]
    pub fn position(&self) -> &Position {
        self.current_node().position()
    }

    /// `true` if `id` names a node that was not deleted.
    #[must_use]
    pub fn contains(&self, id: NodeId) -> bool {
        self.get(id).is_some()
    }

    fn add_unchecked(&mut self, at: NodeId, mv: Move) -> NodeId {
        let parent = self.node(at);
        let san = parent.position.san(mv);
        let mut position = parent.position.clone();
        position.play_unchecked(mv);
        let id = NodeId(self.nodes.len());
        self.nodes.push(Some(Node {
            parent: Some(at),
            children: Vec::new(),
            mv: Some(mv),
            san,
            position,
            comments: Vec::new(),
            nags: Vec::new(),
            eval: None,
        }));
        if let Some(p) = self.get_mut(at) {
            p.children.push(id);
        }
        id
    }

    /// Plays `mv` at node `at` without moving the cursor: follows the child with that move if
    /// there is one, else adds it (the main continuation if `at` had none, else a variation).
    ///
    /// # Errors
    /// [`IllegalMove`] if `at` is deleted or `mv` is not legal there.
    pub fn add(&mut self, at: NodeId, mv: Move) -> Result<NodeId, IllegalMove> {
        let illegal = IllegalMove { mv, at };
        let node = self.get(at).ok_or_else(|| illegal.clone())?;
        if let Some(&child) = node.children.iter().find(|&&c| self.node(c).mv == Some(mv)) {
            return Ok(child);
        }
        if !node.position.is_legal(mv) {
            return Err(illegal);
        }
        Ok(self.add_unchecked(at, mv))
    }

    /// Plays `mv` at the cursor and moves the cursor to it (see [`MoveTree::add`]).
    ///
    /// # Errors
    /// [`IllegalMove`] if `mv` is not legal at the cursor.
    pub fn play(&mut self, mv: Move) -> Result<NodeId, IllegalMove> {
        let id = self.add(self.current, mv)?;
        self.current = id;
        Ok(id)
    }

    /// Plays a SAN move at the cursor and moves the cursor to it.
    ///
    /// # Errors
    /// [`SanError`] if the text names no legal move at the cursor.
    pub fn play_san(&mut self, san: &str) -> Result<NodeId, SanError> {
        let mv = self.position().parse_san(san)?;
        let id = self.add(self.current, mv).expect("parse_san returns a legal move");
        self.current = id;
        Ok(id)
    }

    /// Moves the cursor one move back; `false` at the root.
    pub fn back(&mut self) -> bool {
        match self.current_node().parent {
            Some(p) => {
                self.current = p;
                true
            }
            None => false,
        }
    }

    /// Moves the cursor one move forward along its line (the first child); `false` at a leaf.
    pub fn forward(&mut self) -> bool {
        match self.current_node().children.first() {
            Some(&c) => {
                self.current = c;
                true
            }
            None => false,
        }
    }

    /// Moves the cursor to `id`; `false` (cursor unchanged) if `id` was deleted.
    pub fn go_to(&mut self, id: NodeId) -> bool {
        if self.contains(id) {
            self.current = id;
        }
        self.current == id
    }

    /// Moves the cursor to the start position.
    pub fn go_to_start(&mut self) {
        self.current = ROOT;
    }

    /// Moves the cursor to the end of its line (following first children).
    pub fn go_to_end(&mut self) {
        while self.forward() {}
    }

    /// `true` if `id` lies on the main line (every node on its path is a first child).
    #[must_use]
    pub fn is_main_line(&self, id: NodeId) -> bool {
        let mut at = id;
        while let Some(p) = self.get(at).and_then(|n| n.parent) {
            if self.node(p).children.first() != Some(&at) {
                return false;
            }
            at = p;
        }
        self.contains(id)
    }

    /// Returns the cursor to the main line: to the last main-line node on its path (where its
    /// variation branched off); nothing moves if the cursor is on the main line.
    pub fn to_main_line(&mut self) {
        let path = self.path(self.current);
        let mut last = ROOT;
        for (i, &id) in path.iter().enumerate().skip(1) {
            if self.node(path[i - 1]).children.first() != Some(&id) {
                break;
            }
            last = id;
        }
        self.current = last;
    }

    /// The nodes from the root to `id`, both included (empty if `id` was deleted).
    #[must_use]
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut at = Some(id).filter(|&i| self.contains(i));
        while let Some(i) = at {
            out.push(i);
            at = self.node(i).parent;
        }
        out.reverse();
        out
    }

    /// The main line's nodes after the root, in order.
    #[must_use]
    pub fn main_line(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut at = ROOT;
        while let Some(&c) = self.node(at).children.first() {
            out.push(c);
            at = c;
        }
        out
    }

    /// The main line's moves in SAN.
    #[must_use]
    pub fn main_line_san(&self) -> Vec<String> {
        self.main_line().into_iter().map(|id| self.node(id).san.clone()).collect()
    }

    /// The game from the start to `id` (its history counts for repetitions and draws).
    ///
    /// # Panics
    /// If `id` was deleted.
    #[must_use]
    pub fn game_at(&self, id: NodeId) -> Game {
        let mut game = Game::new(self.node(ROOT).position.clone());
        for &n in self.path(id).iter().skip(1) {
            if let Some(mv) = self.node(n).mv {
                game.play_unchecked(mv);
            }
        }
        game
    }

    /// The main line as a game.
    #[must_use]
    pub fn main_game(&self) -> Game {
        self.game_at(self.main_line().last().copied().unwrap_or(ROOT))
    }

    /// Makes `id`'s line the main line: at every branch on its path, its branch becomes the
    /// first child. `false` if `id` was deleted.
    pub fn promote(&mut self, id: NodeId) -> bool {
        let path = self.path(id);
        if path.is_empty() {
            return false;
        }
        for pair in path.windows(2) {
            self.move_first(pair[0], pair[1]);
        }
        true
    }

    /// Promotes `id`'s variation one step: at the nearest branch on its path where its branch
    /// is not first, it moves one place up (lichess's "promote variation"). `false` if `id`
    /// is on the main line already or was deleted.
    pub fn promote_one(&mut self, id: NodeId) -> bool {
        let path = self.path(id);
        for pair in path.windows(2).rev() {
            let (parent, child) = (pair[0], pair[1]);
            let siblings = &mut self.nodes[parent.0].as_mut().expect("a live parent").children;
            let i = siblings.iter().position(|&c| c == child).expect("a child of its parent");
            if i > 0 {
                siblings.swap(i - 1, i);
                return true;
            }
        }
        false
    }

    fn move_first(&mut self, parent: NodeId, child: NodeId) {
        let siblings = &mut self.nodes[parent.0].as_mut().expect("a live parent").children;
        if let Some(i) = siblings.iter().position(|&c| c == child) {
            let c = siblings.remove(i);
            siblings.insert(0, c);
        }
    }

    /// Deletes `id` and everything after it; if it was the main continuation, the next
    /// variation takes its place. The cursor moves to `id`'s parent if it was inside. `false`
    /// for the root or a deleted node.
    pub fn delete(&mut self, id: NodeId) -> bool {
        let Some(parent) = self.get(id).and_then(|n| n.parent) else { return false };
        let cursor_inside = self.path(self.current).contains(&id);
        if let Some(p) = self.get_mut(parent) {
            p.children.retain(|&c| c != id);
        }
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            if let Some(node) = self.nodes[n.0].take() {
                stack.extend(node.children);
            }
        }
        if cursor_inside {
            self.current = parent;
        }
        true
    }

    /// How many live nodes the tree holds, the root included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.iter().flatten().count()
    }

    /// `true` when the tree holds no move.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.node(ROOT).children.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use maharajah_engine::Variant;

    use super::*;

    fn tree(moves: &[&str]) -> MoveTree {
        let mut t = MoveTree::new(Position::new(Variant::Chess));
        for m in moves {
            t.play_san(m).expect("legal test move");
        }
        t
    }

    #[test]
    fn playing_extends_then_branches_then_follows() {
        let mut t = tree(&["e4", "e5", "Nf3"]);
        assert_eq!(t.main_line_san(), ["e4", "e5", "Nf3"]);
        assert!(t.back());
        assert!(t.back());
        let c5 = t.play_san("c5").expect("legal");
        assert!(!t.is_main_line(c5));
        assert_eq!(t.current(), c5);
        assert_eq!(t.main_line_san(), ["e4", "e5", "Nf3"], "a variation leaves the main line");
        // Playing the existing move follows it instead of adding a duplicate.
        t.back();
        let before = t.len();
        let e5 = t.play_san("e5").expect("legal");
        assert_eq!(t.len(), before);
        assert!(t.is_main_line(e5));
        let e4 = t.node(e5).parent().expect("e5 has a parent");
        assert_eq!(t.node(e4).children().len(), 2);
        assert_eq!(t.node(t.node(e4).children()[1]).san(), "c5");
    }

    #[test]
    fn stepping_and_going_to() {
        let mut t = tree(&["d4", "d5"]);
        let end = t.current();
        t.go_to_start();
        assert_eq!(t.current(), t.root());
        assert!(!t.back(), "nothing before the root");
        assert!(t.forward());
        assert_eq!(t.current_node().san(), "d4");
        t.go_to_end();
        assert_eq!(t.current(), end);
        assert!(!t.forward(), "nothing after the end");
        assert!(t.go_to(t.root()));
        assert_eq!(t.position().to_string(), Position::new(Variant::Chess).to_string());
        t.go_to(end);
        assert_eq!(t.game_at(end).moves().len(), 2);
    }

    #[test]
    fn illegal_moves_are_refused_and_the_cursor_stays() {
        let mut t = tree(&["e4"]);
        let at = t.current();
        let bad: Move = "e2e4".parse().expect("uci");
        assert_eq!(t.play(bad), Err(IllegalMove { mv: bad, at }));
        assert_eq!(t.current(), at);
        assert!(t.play_san("Ke2").is_err(), "1... Ke2 is White's king, not Black's");
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn promote_makes_a_deep_variation_the_main_line() {
        let mut t = tree(&["e4", "e5", "Nf3", "Nc6"]);
        t.go_to_start();
        t.forward();
        t.play_san("c5").expect("legal");
        let nf3 = t.play_san("Nf3").expect("legal");
        let d6 = t.play_san("d6").expect("legal");
        assert!(!t.is_main_line(d6));
        assert!(t.promote(d6));
        assert!(t.is_main_line(d6) && t.is_main_line(nf3));
        assert_eq!(t.main_line_san(), ["e4", "c5", "Nf3", "d6"]);
        // The old main line is now a variation, intact.
        let e4 = t.main_line()[0];
        let old = t.node(e4).children()[1];
        assert_eq!(t.node(old).san(), "e5");
        assert!(!t.is_main_line(old));
    }

    #[test]
    fn promote_one_moves_up_a_single_place() {
        let mut t = tree(&["e4"]);
        t.back();
        let d4 = t.play_san("d4").expect("legal");
        t.back();
        let c4 = t.play_san("c4").expect("legal");
        let root = t.root();
        assert_eq!(t.node(root).children()[2], c4);
        assert!(t.promote_one(c4));
        assert_eq!(t.node(root).children()[1], c4);
        assert_eq!(t.node(root).children()[2], d4);
        assert!(t.promote_one(c4));
        assert!(t.is_main_line(c4));
        assert!(!t.promote_one(c4), "already the main line");
    }

    #[test]
    fn delete_removes_the_subtree_and_moves_the_cursor_out() {
        let mut t = tree(&["e4", "e5"]);
        t.back();
        let c5 = t.play_san("c5").expect("legal");
        let nf3 = t.play_san("Nf3").expect("legal");
        assert_eq!(t.len(), 5);
        assert!(t.delete(c5));
        assert_eq!(t.len(), 3);
        assert!(!t.contains(c5) && !t.contains(nf3));
        assert_eq!(t.current_node().san(), "e4", "the cursor left the deleted line");
        assert!(!t.go_to(nf3));
        assert!(!t.delete(c5), "already gone");
        assert!(!t.delete(t.root()));
        // Deleting the main continuation promotes the next variation.
        t.play_san("d5").expect("legal");
        let e5 = t.main_line()[1];
        assert!(t.delete(e5));
        assert_eq!(t.main_line_san(), ["e4", "d5"]);
    }

    #[test]
    fn to_main_line_goes_back_to_the_branch_point() {
        let mut t = tree(&["e4", "e5", "Nf3"]);
        t.back();
        t.back();
        t.play_san("c5").expect("legal");
        t.play_san("Nf3").expect("legal");
        t.to_main_line();
        assert_eq!(t.current_node().san(), "e4");
        assert!(t.is_main_line(t.current()));
        let end = t.main_line()[2];
        t.go_to(end);
        t.to_main_line();
        assert_eq!(t.current(), end, "already on the main line");
    }

    #[test]
    fn annotations_live_on_nodes() {
        let mut t = tree(&["f3", "e5", "g4", "Qh4#"]);
        let g4 = t.main_line()[2];
        let node = t.get_mut(g4).expect("live");
        node.nags.push(4);
        node.comments.push("Blunder.".into());
        node.eval = Some(Eval::Mate { winner: maharajah_engine::Color::Black, moves: 1 });
        assert_eq!(t.node(g4).nags, [4]);
        assert!(t.position().is_checkmate());
        let game = t.main_game();
        assert_eq!(game.moves().len(), 4);
        assert!(game.outcome().is_some());
        let copy = MoveTree::from_game(&game);
        assert_eq!(copy.main_line_san(), t.main_line_san());
        assert_eq!(copy.current(), copy.root());
    }
}
