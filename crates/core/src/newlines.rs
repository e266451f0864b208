//! The line breaks of a text, found 64 bytes at a time: the indexer reads every file's
//! lines twice (the long-line check of a read and the chunker's split), and a byte search
//! called once per line (memchr's, ~36M calls a pass on the Linux kernel, 31 bytes a line)
//! spent most of its time starting and ending short searches.

/// Calls `f(i)` for the position `i` of every `\n` of `bytes`, in order, while `f` returns
/// true; whether it was called for all of them.
#[inline]
pub(crate) fn each(bytes: &[u8], mut f: impl FnMut(usize) -> bool) -> bool {
    let mut base = 0usize;
    let blocks = bytes.chunks_exact(64);
    let tail = blocks.remainder();
    for block in blocks {
        let mut m = mask(block.try_into().expect("64 bytes"));
        while m != 0 {
            if !f(base + m.trailing_zeros() as usize) {
                return false;
            }
            m &= m - 1;
        }
        base += 64;
    }
    for (i, &b) in tail.iter().enumerate() {
        if b == b'\n' && !f(base + i) {
            return false;
        }
    }
    true
}

/// Bit `i` set where `block[i]` is `\n`.
#[inline]
fn mask(block: &[u8; 64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // Only read by `_mm_loadu_si128`, which takes an unaligned pointer.
        #[allow(clippy::cast_ptr_alignment)]
        let p = block.as_ptr().cast::<__m128i>();
        let mut m = 0u64;
        for k in 0..4 {
            // SAFETY: SSE2 is part of every x86_64 processor; `p.add(k)` for k < 4 is 16
            // bytes inside the 64 of `block`, and the load is unaligned.
            let bits = unsafe {
                let v = _mm_loadu_si128(p.add(k));
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8)))
            };
            m |= u64::from(bits as u16) << (16 * k);
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u64;
        for (i, &b) in block.iter().enumerate() {
            m |= u64::from(b == b'\n') << i;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(bytes: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        assert!(each(bytes, |i| {
            out.push(i);
            true
        }));
        out
    }

    #[test]
    fn finds_breaks_at_every_offset_of_a_block() {
        for n in [0usize, 1, 63, 64, 65, 127, 128, 200] {
            for at in 0..n {
                let mut b = vec![b'x'; n];
                b[at] = b'\n';
                assert_eq!(positions(&b), vec![at], "{n} {at}");
            }
            assert_eq!(positions(&vec![b'\n'; n]), (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn stops_when_asked() {
        let b = b"a\nb\nc\n".repeat(40);
        let mut seen = 0;
        assert!(!each(&b, |_| {
            seen += 1;
            seen < 70
        }));
        assert_eq!(seen, 70);
    }

    proptest::proptest! {
        /// The same positions as memchr's iterator, on bytes of any value.
        #[test]
        fn agrees_with_memchr(bytes in proptest::collection::vec(
            proptest::prop_oneof![Just(b'\n'), Just(b'\r'), proptest::num::u8::ANY], 0..400,
        )) {
            let want: Vec<usize> = memchr::memchr_iter(b'\n', &bytes).collect();
            proptest::prop_assert_eq!(positions(&bytes), want);
        }
    }

    use proptest::strategy::Just;
}
