//! GZF reading and writing speed over the shipped ship library.

use criterion::{Criterion, criterion_group, criterion_main};
use fam::gzf::{self, ParseOptions};

fn library() -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ssd");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("ssd/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "gzf"))
        .collect();
    paths.sort();
    // One FB1 file's worth of text per profile is enough to measure.
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("read"))
        .find(|t| t.contains("FB1"))
        .expect("an FB1 file in ssd/")
}

fn bench(c: &mut Criterion) {
    let text = library();
    let options = ParseOptions::default();
    c.bench_function("gzf parse (one ssd file)", |b| b.iter(|| gzf::parse(&text, &options)));
    let file = gzf::parse(&text, &options).file;
    c.bench_function("gzf write (one ssd file)", |b| b.iter(|| gzf::write(&file)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
