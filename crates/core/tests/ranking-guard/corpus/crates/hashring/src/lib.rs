//! Consistent hashing: which node owns a queue, stable when nodes join or leave.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Points each node puts on the ring, so keys spread evenly over few nodes.
pub const VIRTUAL_NODES: u32 = 64;

/// A ring of nodes; a key belongs to the first node clockwise from its hash.
#[derive(Debug, Default, Clone)]
pub struct HashRing {
    ring: BTreeMap<u64, String>,
}

fn hash_of<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

impl HashRing {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a node with its virtual nodes.
    pub fn add_node(&mut self, node: &str) {
        for i in 0..VIRTUAL_NODES {
            self.ring.insert(hash_of(&(node, i)), node.to_string());
        }
    }

    pub fn remove_node(&mut self, node: &str) {
        self.ring.retain(|_, n| n != node);
    }

    /// The node that owns `key`. Panics when the ring has no node.
    pub fn node_for(&self, key: &str) -> &str {
        if self.ring.is_empty() {
            panic!("hash ring is empty");
        }
        let h = hash_of(key);
        self.ring
            .range(h..)
            .next()
            .or_else(|| self.ring.iter().next())
            .map(|(_, n)| n.as_str())
            .unwrap()
    }
}
