//! A small deterministic generator for the tests' generated data (xorshift64), so that generated
//! corpora and secrets need no dependency and are the same on every run.

/// Xorshift64: `Xorshift(state)` with a non-zero state, or [`Xorshift::seeded`] for any seed.
pub struct Xorshift(pub u64);

impl Xorshift {
    /// A generator for any seed (zero included), the seed spread over the state's bits.
    pub fn seeded(seed: u64) -> Xorshift {
        Xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `items` (not empty).
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `len` characters drawn from `alphabet` (not empty).
    pub fn chars(&mut self, len: usize, alphabet: &str) -> String {
        let alphabet: Vec<char> = alphabet.chars().collect();
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Xorshift;

    #[test]
    fn the_same_seed_gives_the_same_sequence_and_draws_stay_in_range() {
        let mut a = Xorshift::seeded(0);
        let mut b = Xorshift::seeded(0);
        let xs: Vec<u64> = (0..64).map(|_| a.next()).collect();
        assert_eq!(xs, (0..64).map(|_| b.next()).collect::<Vec<_>>());
        // A zero seed still moves (a zero state would stay zero forever).
        assert!(xs.iter().all(|&x| x != 0));
        let mut c = Xorshift::seeded(7);
        assert!((0..1000).all(|_| c.below(3) < 3));
        let s = c.chars(40, "ab");
        assert_eq!(s.len(), 40);
        assert!(s.contains('a') && s.contains('b'));
        assert_ne!(Xorshift::seeded(1).next(), Xorshift::seeded(2).next());
    }
}
