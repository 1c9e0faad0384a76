//! The one kind of table the commander keeps what it weighed in
//! ([`Cache`]), and the hash that picks its slots ([`SlotHasher`]).
//!
//! Every memo of the doctrine is a [`Cache`]: the plans, the pairs'
//! work, sustained fire on the grid and for fire targets, the arsenals'
//! numbers, a pair's candidates and ordnance terms (docs/performance.md).
//! What the doctrine weighs is a pure function of a key, so a value read
//! back is the value weighing it again gives: the cache is a speed-up and
//! nothing else. Which slot a key lands in, and whether a value is still
//! there, decides only how often the weighing runs, never what it gives.

use std::hash::{Hash, Hasher};

/// A fixed number of slots, each holding one key and its value. A key's
/// slot is picked by its hash ([`SlotHasher`]); a read compares the whole
/// key there, so a different key never reads another's value; a store
/// overwrites whatever the slot held (no probing, no growth).
///
/// The slots are `S` ([`Slots`]): on the heap, made all at once at the
/// first store (the default: the megabytes of a batch worker's memos,
/// which a plot that plans nothing never makes), or inline, an array made
/// with the cache ([`InlineCache`]: the few slots a pair's work keeps, so
/// that making one allocates nothing). Either way, once made a cache
/// allocates nothing.
///
/// A cache of no slots keeps nothing: every read misses, and the value
/// made is handed back from one slot of scratch (a memo switched off).
#[derive(Debug, Clone)]
pub struct Cache<K, V, S = Vec<Option<(K, V)>>> {
    slots: S,
    /// Slots used (at most those `S` holds); 0: none kept.
    size: usize,
    /// Values read back so far.
    hits: u64,
    kept: std::marker::PhantomData<(K, V)>,
}

/// A [`Cache`] of at most `N` slots held inline.
pub type InlineCache<K, V, const N: usize> = Cache<K, V, [Option<(K, V)>; N]>;

/// Where a [`Cache`]'s slots are: on the heap, made when first needed, or
/// inline, made with the cache.
pub trait Slots<K, V> {
    /// The slots, `size` of them made if none are yet (at least one).
    fn made(&mut self, size: usize) -> &mut [Option<(K, V)>];

    /// The slots made so far.
    fn so_far(&self) -> &[Option<(K, V)>];

    fn so_far_mut(&mut self) -> &mut [Option<(K, V)>];
}

impl<K, V> Slots<K, V> for Vec<Option<(K, V)>> {
    fn made(&mut self, size: usize) -> &mut [Option<(K, V)>] {
        if self.is_empty() {
            self.resize_with(size.max(1), || None);
        }
        self
    }

    fn so_far(&self) -> &[Option<(K, V)>] {
        self
    }

    fn so_far_mut(&mut self) -> &mut [Option<(K, V)>] {
        self
    }
}

impl<K, V, const N: usize> Slots<K, V> for [Option<(K, V)>; N] {
    fn made(&mut self, _: usize) -> &mut [Option<(K, V)>] {
        self
    }

    fn so_far(&self) -> &[Option<(K, V)>] {
        self
    }

    fn so_far_mut(&mut self) -> &mut [Option<(K, V)>] {
        self
    }
}

impl<K: Hash + Eq + Clone, V> Cache<K, V> {
    /// A cache of `slots` slots on the heap (none made yet); 0 keeps
    /// nothing.
    pub const fn new(slots: usize) -> Cache<K, V> {
        Cache {
            slots: Vec::new(),
            size: slots,
            hits: 0,
            kept: std::marker::PhantomData,
        }
    }
}

impl<K: Hash + Eq + Clone, V, const N: usize> InlineCache<K, V, N> {
    /// A cache of `slots` of its `N` inline slots (more count as `N`); 0
    /// keeps nothing.
    pub fn inline(slots: usize) -> InlineCache<K, V, N> {
        const { assert!(N > 0, "a slot of scratch at least") };
        Cache {
            slots: std::array::from_fn(|_| None),
            size: slots.min(N),
            hits: 0,
            kept: std::marker::PhantomData,
        }
    }
}

impl<K: Hash + Eq + Clone, V, S: Slots<K, V>> Cache<K, V, S> {
    /// Values read back so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Slots made so far that may keep a value: none, or all of them.
    #[cfg(test)]
    pub fn slots_made(&self) -> usize {
        if self.size == 0 {
            0
        } else {
            self.slots.so_far().len().min(self.size)
        }
    }

    /// The value kept for `key`, if it is still there (not counted as a
    /// hit: for checks).
    pub fn get(&self, key: &K) -> Option<&V> {
        let slots = self.slots.so_far();
        if self.size == 0 || slots.is_empty() {
            return None;
        }
        match &slots[slot_of(key, self.size)] {
            Some((k, v)) if k == key => Some(v),
            _ => None,
        }
    }

    /// The value of `key`: read back when its slot holds it, else made by
    /// `make` and stored there.
    pub fn get_or_insert_with(&mut self, key: &K, make: impl FnOnce() -> V) -> &mut V {
        let (slot, hit) = self.find(key);
        if !hit {
            *slot = Some((key.clone(), make()));
        }
        match slot {
            Some((_, v)) => v,
            None => unreachable!("stored above"),
        }
    }

    /// The value of `key`: read back when its slot holds it, else made
    /// again in place by `renew` from what the slot held (another key's
    /// value, or `empty()` in a slot never stored to), for values too
    /// large to make afresh and move.
    pub fn get_or_renew(&mut self, key: &K, empty: impl FnOnce() -> V, renew: impl FnOnce(&mut V)) -> &mut V {
        let (slot, hit) = self.find(key);
        let (k, v) = slot.get_or_insert_with(|| (key.clone(), empty()));
        if !hit {
            k.clone_from(key);
            renew(v);
        }
        v
    }

    /// Keeps nothing again (the slots stay made).
    pub fn clear(&mut self) {
        for slot in self.slots.so_far_mut() {
            *slot = None;
        }
    }

    /// The slot of `key` (made with all the others at the first ask), and
    /// whether it holds `key`'s value (counted as a hit).
    fn find(&mut self, key: &K) -> (&mut Option<(K, V)>, bool) {
        let slots = self.slots.made(self.size);
        let keep = self.size > 0;
        let slot = &mut slots[if keep { slot_of(key, self.size) } else { 0 }];
        let hit = keep && matches!(slot, Some((k, _)) if k == key);
        self.hits += u64::from(hit);
        (slot, hit)
    }
}

/// The slot of `key` among `slots`: the high bits of its hash, scaled to
/// the slots (a multiply, no division; the high bits are the hash's best
/// mixed).
fn slot_of<K: Hash>(key: &K, slots: usize) -> usize {
    ((u128::from(hash_of(key)) * slots as u128) >> 64) as usize
}

/// The hash of `key` ([`SlotHasher`]).
pub fn hash_of<K: Hash + ?Sized>(key: &K) -> u64 {
    let mut h = SlotHasher::default();
    key.hash(&mut h);
    h.finish()
}

/// FxHash, the hash of Firefox and rustc: each word is mixed in with a
/// rotate, an exclusive or and a multiply. Fixed, so a key lands in the
/// same slot on every run and machine (std's `RandomState` is seeded
/// afresh each process). Written here rather than taken from a crate: the
/// engine's manifest names only `rand` and `rand_chacha`
/// (`tests/all/engine_crate.rs` holds it), and the hash is these few
/// lines; std's `DefaultHasher` (SipHash) costs several times more a
/// word, and the keys are the doctrine's own numbers, so it needs no
/// defence against chosen collisions.
#[derive(Debug, Clone, Copy, Default)]
pub struct SlotHasher(u64);

impl SlotHasher {
    fn add(&mut self, word: u64) {
        const SEED: u64 = 0x517c_c1b7_2722_0a95;
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for SlotHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    /// Bytes eight at a time, little-endian (the same words on every
    /// machine), the last word padded with zeros.
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut word = [0; 8];
            word.copy_from_slice(w);
            self.add(u64::from_le_bytes(word));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `keys` three rounds through `cache`: every read is the value
    /// stored for that very key or made afresh, never another key's.
    /// Returns the values made.
    fn read_rounds<S: Slots<u64, u64>>(cache: &mut Cache<u64, u64, S>, keys: std::ops::Range<u64>) -> u64 {
        let mut made = 0;
        for round in 0..3 {
            for k in keys.clone() {
                let v = *cache.get_or_insert_with(&k, || {
                    made += 1;
                    k * 10
                });
                assert_eq!(v, k * 10, "round {round}, key {k}");
            }
        }
        made
    }

    #[test]
    fn a_key_reads_back_its_own_value_and_no_other() {
        // Two slots and many keys, on the heap.
        let mut cache: Cache<u64, u64> = Cache::new(2);
        assert_eq!(cache.slots_made(), 0, "made at the first store");
        let made = read_rounds(&mut cache, 0..20);
        assert_eq!(cache.slots_made(), 2);
        assert_eq!(made + cache.hits(), 60);
        // The key just stored is there.
        assert_eq!(cache.get(&19), Some(&190));
        let hits = cache.hits();
        assert_eq!(*cache.get_or_insert_with(&19, || unreachable!("kept")), 190);
        assert_eq!(cache.hits(), hits + 1);
        // Inline, the same slots give the same reads; with room for every
        // key, all but the first round read back.
        let mut inline: InlineCache<u64, u64, 4> = InlineCache::inline(2);
        assert_eq!(read_rounds(&mut inline, 0..20), made);
        let mut roomy: InlineCache<u64, u64, 64> = InlineCache::inline(1 << 20);
        assert_eq!(roomy.slots_made(), 64);
        let distinct: std::collections::BTreeSet<usize> = (0..4).map(|k| slot_of(&k, 64)).collect();
        assert_eq!(distinct.len(), 4);
        assert_eq!(read_rounds(&mut roomy, 0..4), 4);
    }

    #[test]
    fn a_cache_of_no_slots_keeps_nothing() {
        let mut cache: Cache<u32, u32> = Cache::new(0);
        let mut made = 0;
        for _ in 0..3 {
            assert_eq!(
                *cache.get_or_insert_with(&7, || {
                    made += 1;
                    70
                }),
                70
            );
        }
        assert_eq!((made, cache.hits(), cache.get(&7), cache.slots_made()), (3, 0, None, 0));
        // Made again in place, every time.
        let mut renewed = 0;
        for _ in 0..2 {
            cache.get_or_renew(
                &7,
                || 0,
                |v| {
                    renewed += 1;
                    *v = 71;
                },
            );
        }
        assert_eq!((renewed, cache.hits()), (2, 0));
    }

    #[test]
    fn a_value_made_again_in_place_starts_from_what_the_slot_held() {
        // One slot: a second key renews the first key's value in place;
        // the first key then misses and is renewed again.
        let mut cache: Cache<u8, Vec<u8>> = Cache::new(1);
        let renew = |k: u8| move |v: &mut Vec<u8>| v.push(k);
        assert_eq!(cache.get_or_renew(&1, Vec::new, renew(1)), &[1]);
        assert_eq!(cache.get_or_renew(&1, Vec::new, renew(9)), &[1], "kept: not renewed");
        assert_eq!(cache.get_or_renew(&2, Vec::new, renew(2)), &[1, 2]);
        assert_eq!(cache.get(&1), None);
        assert_eq!(cache.get_or_renew(&1, Vec::new, renew(1)), &[1, 2, 1]);
        cache.clear();
        assert_eq!(cache.get(&1), None);
        assert_eq!(
            cache.get_or_renew(&1, Vec::new, renew(3)),
            &[3],
            "cleared: made from empty"
        );
    }

    #[test]
    fn slots_are_spread_and_the_same_on_every_run() {
        // The hash is fixed: a one-word key lands in the top bits of the
        // word times FxHash's seed, whatever the run or machine. And
        // consecutive numbers spread over the slots rather than pile into
        // a few.
        for k in 0..100u64 {
            let top = k.wrapping_mul(0x517c_c1b7_2722_0a95) >> 54;
            assert_eq!(slot_of(&k, 1024) as u64, top);
        }
        let mut used = vec![0u32; 64];
        for k in 0..4096u32 {
            used[slot_of(&(k, 7u32), 64)] += 1;
        }
        assert!(used.iter().all(|&n| (32..=96).contains(&n)), "{used:?}");
        // Bytes hash as little-endian words, padded.
        let mut a = SlotHasher::default();
        a.write(&[1, 0, 0, 0, 0, 0, 0, 0, 2]);
        let mut b = SlotHasher::default();
        b.write_u64(1);
        b.write_u64(2);
        assert_eq!(a.finish(), b.finish());
    }
}
