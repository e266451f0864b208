//! Work spread over threads: each item mapped once, results in input order whatever the
//! threads, so the output never depends on how many there were or how they raced.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The threads a call uses by default: one per core the process may run on.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// `f` over `items` on up to [`default_threads`] threads, results in input order.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    parallel_map_on(default_threads(), items, |_| 0, f)
}

/// `f` over `items` on up to `threads` threads (scoped, so `f` may borrow), results in input
/// order. Threads take the next item from a shared counter, the costliest first (`cost`, e.g. a
/// file's size): the long ones start early and the short ones fill in at the end, so no thread
/// is left with one large item while the others wait. A panic in `f` is re-raised here.
pub(crate) fn parallel_map_on<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    cost: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 || items.len() < 2 {
        return items.iter().map(&f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    // Stable: equal costs keep input order.
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&items[i])));
    let next = AtomicUsize::new(0);
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else { break };
                        out.push((i, f(&items[i])));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, r) in parts.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots
        .into_iter()
        .map(|r| r.expect("every item was mapped"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_input_order_on_any_number_of_threads() {
        let items: Vec<usize> = (0..1000).map(|i| (i * 7919) % 1000).collect();
        let want: Vec<usize> = items.iter().map(|x| x * 2).collect();
        for threads in [1, 2, 3, 16, 5000] {
            assert_eq!(
                parallel_map_on(threads, &items, |&x| x, |&x| x * 2),
                want,
                "{threads}"
            );
        }
        assert!(parallel_map_on(4, &[] as &[u8], |_| 0, |&x| x).is_empty());
    }

    #[test]
    fn every_thread_takes_part() {
        use std::collections::HashSet;
        use std::sync::Mutex;
        let seen = Mutex::new(HashSet::new());
        let items: Vec<u32> = (0..64).collect();
        parallel_map_on(
            4,
            &items,
            |_| 1,
            |_| {
                seen.lock().unwrap().insert(std::thread::current().id());
                std::thread::sleep(std::time::Duration::from_millis(2));
            },
        );
        assert!(seen.lock().unwrap().len() > 1);
    }
}
