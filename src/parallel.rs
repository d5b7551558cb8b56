//! Independent pieces of work shared between the calling thread and one helper thread.

/// `work` applied to every item of `items` (with its position), the items shared between
/// this thread and one helper; the results come back in the items' order. Both threads take
/// items until none is left, so a helper that starts late, or not at all (the system refused
/// a thread), just takes fewer.
pub(crate) fn share_in_order<I, R>(items: I, work: impl Fn(usize, I::Item) -> R + Sync) -> Vec<R>
where
    I: Iterator + Send,
    I::Item: Send,
    R: Send,
{
    let items = std::sync::Mutex::new(items.enumerate());
    let take_all = || {
        let mut done = Vec::new();
        while let Some((k, item)) = items.lock().ok().and_then(|mut i| i.next()) {
            done.push((k, work(k, item)));
        }
        done
    };
    let mut done = std::thread::scope(|scope| {
        let helper = std::thread::Builder::new().spawn_scoped(scope, take_all).ok();
        let mut done = take_all();
        if let Some(helper) = helper {
            done.extend(helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        done
    });
    done.sort_unstable_by_key(|(k, _)| *k);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_done_once_and_results_keep_the_items_order() {
        let mut items: Vec<u64> = (0..1_000).collect();
        let out = share_in_order(items.chunks_mut(7), |k, run| {
            run.iter_mut().for_each(|x| *x *= 2);
            (k, run.len())
        });
        let positions: Vec<usize> = out.iter().map(|(k, _)| *k).collect();
        assert_eq!(positions, (0..143).collect::<Vec<_>>());
        assert_eq!(out.iter().map(|(_, n)| n).sum::<usize>(), 1_000);
        assert!(items.iter().enumerate().all(|(i, x)| *x == 2 * i as u64));
    }
}
