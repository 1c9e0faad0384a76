//! A mutation fuzzer over every parser, run briefly with the tests
//! on fixed seeds so that CI is repeatable (`FAM_FUZZ_CASES=20000
//! FAM_FUZZ_SEED=N cargo test --release fuzz` runs it longer, elsewhere): the shipped files and fixtures are
//! mutated (bytes flipped, pieces cut, doubled or spliced with absurd
//! numbers and hostile tokens; XML elements given many attributes) and fed to the GZF reader, the scenario and
//! orders builder (battles that build are played), the FTJava importer,
//! the batch result reader and a resumed checkpoint. Every input must come back without a panic and
//! within its time, every error positioned inside its file, and whatever is
//! accepted must read back. `tests/fixtures/fuzz/` keeps every input that
//! broke fam so far; each is replayed here.

use std::fs;
use std::path::{Path, PathBuf};

use fam::diag::{Diagnostic, SourceFile};
use fam::gzf::{self, ParseOptions};
use proptest::prelude::*;

use crate::support::{files_with, fixtures, repo, resealed};

/// Tokens that broke, or could break, a reader: numbers at and past every
/// integer width, line ends, NUL, XML references, TOML structure.
const TOKENS: [&str; 24] = [
    "4294967296",
    "4294967297",
    "18446744073709551616",
    "9223372036854775808",
    "-1",
    "-9223372036854775808",
    "100000000",
    "1e308",
    "nan",
    "\r",
    "\r\n",
    "\0",
    "\n\n",
    "&#x110000;",
    "&#0;",
    "]]>",
    "<",
    "[[range]]\n",
    "[formations]\n",
    "= ",
    "\"",
    "{ hold = 4294967296 }",
    "\u{feff}",
    "\u{fffd}",
];

/// One edit of a text.
#[derive(Debug, Clone)]
enum Edit {
    Flip {
        at: usize,
        byte: u8,
    },
    Cut {
        at: usize,
        len: usize,
    },
    Double {
        at: usize,
        len: usize,
    },
    Insert {
        at: usize,
        token: usize,
    },
    /// The digits at or after `at` replaced by a token.
    Number {
        at: usize,
        token: usize,
    },
    /// The first start tag at or after `at` given `count` more attributes
    /// of names of their own (`f0="1" f1="1" …`): elements crowded to and
    /// past the import's limit.
    Attributes {
        at: usize,
        count: usize,
    },
}

/// The edits of XML: those of [`edit`], and elements given many attributes
/// (below the limit, and far past it: thousands take the XML parser time
/// that grows with their square, unless refused before it).
fn xml_edit() -> BoxedStrategy<Edit> {
    let at = any::<usize>();
    prop_oneof![
        3 => edit(),
        1 => (at, 1usize..=64).prop_map(|(at, count)| Edit::Attributes { at, count }),
        // Up to 100 000 (900 KB): before the limit, over a minute in the
        // parser, past the proptest timeout.
        1 => (at, 64usize..100_000).prop_map(|(at, count)| Edit::Attributes { at, count }),
    ]
    .boxed()
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<usize>();
    prop_oneof![
        (at, any::<u8>()).prop_map(|(at, byte)| Edit::Flip { at, byte }),
        (at, 1usize..200).prop_map(|(at, len)| Edit::Cut { at, len }),
        (at, 1usize..400).prop_map(|(at, len)| Edit::Double { at, len }),
        (at, 0..TOKENS.len()).prop_map(|(at, token)| Edit::Insert { at, token }),
        (at, 0..TOKENS.len()).prop_map(|(at, token)| Edit::Number { at, token }),
    ]
}

/// `bytes` with `edits` applied in turn (positions taken modulo the length).
fn mutate(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = bytes.len().max(1);
        match *e {
            Edit::Flip { at, byte } => {
                if !bytes.is_empty() {
                    bytes[at % n] = byte;
                }
            }
            Edit::Cut { at, len } => {
                let a = (at % n).min(bytes.len());
                let b = (a + len).min(bytes.len());
                bytes.drain(a..b);
            }
            Edit::Double { at, len } => {
                let a = (at % n).min(bytes.len());
                let b = (a + len).min(bytes.len());
                let piece = bytes[a..b].to_vec();
                bytes.splice(b..b, piece);
            }
            Edit::Insert { at, token } => {
                let a = (at % n).min(bytes.len());
                bytes.splice(a..a, TOKENS[token].bytes());
            }
            Edit::Number { at, token } => {
                let from = (at % n).min(bytes.len());
                if let Some(start) = bytes[from..].iter().position(u8::is_ascii_digit).map(|i| from + i) {
                    let end = bytes[start..]
                        .iter()
                        .position(|b| !b.is_ascii_digit())
                        .map_or(bytes.len(), |i| start + i);
                    bytes.splice(start..end, TOKENS[token].bytes());
                }
            }
            Edit::Attributes { at, count } => {
                let from = (at % n).min(bytes.len());
                let tag = bytes[from..]
                    .windows(2)
                    .position(|w| w[0] == b'<' && w[1].is_ascii_alphabetic())
                    .map(|i| from + i + 1);
                if let Some(name) = tag {
                    let end = bytes[name..]
                        .iter()
                        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'.'))
                        .map_or(bytes.len(), |i| name + i);
                    let added: String = (0..count).map(|k| format!(" f{k}=\"1\"")).collect();
                    bytes.splice(end..end, added.into_bytes());
                }
            }
        }
    }
    bytes
}

/// Every diagnostic lies inside its file (it renders with a line and a
/// column of that file).
fn positioned(source: &SourceFile, diags: &[Diagnostic]) -> Result<(), TestCaseError> {
    for d in diags {
        prop_assert!(
            d.span.start <= d.span.end && d.span.end <= source.text.len(),
            "{}: {:?} outside {} bytes: {}",
            source.name,
            d.span,
            source.text.len(),
            d.message
        );
    }
    let rendered = source.render(diags, usize::MAX);
    prop_assert_eq!(rendered.is_empty(), diags.is_empty());
    Ok(())
}

/// The files a target mutates.
fn seeds(dir: &Path, ext: &str) -> Vec<(PathBuf, Vec<u8>)> {
    files_with(dir, ext)
        .into_iter()
        .map(|p| {
            let b = fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

// ---- Targets ------------------------------------------------------------------

fn gzf_target(name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let source = SourceFile::from_bytes(name, bytes);
    let parsed = gzf::parse(&source.text, &ParseOptions::default());
    positioned(&source, &parsed.diagnostics)?;
    if !parsed.has_errors() {
        // What is accepted writes and reads back as the same records.
        let written = gzf::write(&parsed.file);
        let again = gzf::parse(&written, &ParseOptions::default());
        prop_assert!(
            !again.has_errors(),
            "{name}: written back, {:?}",
            again.diagnostics.first()
        );
        prop_assert_eq!(&again.file, &parsed.file);
    }
    Ok(())
}

/// The shipped records, read as a scenario's `gzf` list names them.
fn read_ssd(name: &str) -> Result<SourceFile, String> {
    let file = Path::new(name).file_name().ok_or("no file name")?;
    fs::read(repo().join("ssd").join(file))
        .map(|b| SourceFile::from_bytes(name, &b))
        .map_err(|e| e.to_string())
}

/// A scenario (and orders) built; a battle that builds is played for a few
/// Exchanges on two seeds.
fn scenario_target(scenario: (&str, &[u8]), orders: &[(&str, Vec<u8>)]) -> Result<(), TestCaseError> {
    let source = SourceFile::from_bytes(scenario.0, scenario.1);
    let orders: Vec<SourceFile> = orders.iter().map(|(n, b)| SourceFile::from_bytes(*n, b)).collect();
    match fam::orders::build(source, orders, &mut read_ssd, &ParseOptions::default()) {
        Err(reports) => {
            for (file, diags) in &reports {
                positioned(file, diags)?;
            }
        }
        Ok(loaded) => {
            for (file, diags) in &loaded.warnings {
                positioned(file, diags)?;
            }
            let options = fam::batch::Options {
                seed: 7,
                exchanges: 3,
                threads: Some(1),
            };
            let tally = fam::batch::run(&loaded, &options, 0..2, &|_| {});
            prop_assert!(tally.is_ok(), "{:?}", tally.err());
        }
    }
    Ok(())
}

fn ftjava_target(name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let source = SourceFile::from_bytes(name, bytes);
    let imported = fam::ftjava::import(&source, &fam::ftjava::Options { skip_unmapped: true });
    positioned(&source, &imported.diagnostics)?;
    // However many problems, a bounded list (and one line for the rest).
    prop_assert!(imported.diagnostics.len() <= fam::ftjava::limits::DIAGNOSTICS + 1);
    if !imported.has_errors() {
        // An accepted import reads back through the GZF reader.
        let written = gzf::write(&imported.gzf);
        let options = ParseOptions {
            inert_unknown_systems: imported.inert > 0,
        };
        let again = gzf::parse(&written, &options);
        prop_assert!(
            !again.has_errors(),
            "{name}: the imported record does not read back: {:?}",
            again.diagnostics.first().map(|d| &d.message)
        );
    }
    Ok(())
}

/// A mutated batch result or checkpoint with its digest made again for
/// what the mutation left, where it still reads as one, so that the checks
/// behind the digest are fuzzed too (the digest alone refuses nearly every
/// mutation); else the bytes as mutated.
fn with_digest_renewed(bytes: &[u8]) -> Vec<u8> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(resealed)
        .map_or_else(|| bytes.to_vec(), String::into_bytes)
}

fn batch_json_target(bytes: &[u8]) -> Result<(), TestCaseError> {
    let bytes = with_digest_renewed(bytes);
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(());
    };
    if let Ok(report) = fam::batch::json::parse(text) {
        // Accepted results merge with themselves and render.
        if let Ok(merged) = fam::batch::json::merge(vec![report.clone(), report]) {
            let _ = fam::batch::json::render(&merged);
            let _ = fam::batch::text::table(&merged);
        }
    }
    Ok(())
}

/// The duel, loaded as `fam batch` loads it.
fn duel() -> &'static fam::orders::Loaded {
    static DUEL: std::sync::OnceLock<fam::orders::Loaded> = std::sync::OnceLock::new();
    DUEL.get_or_init(|| {
        fam::orders::load_scenario(&repo().join("scenarios/duel.toml"), &[], &ParseOptions::default())
            .unwrap_or_else(|_| panic!("the duel loads"))
    })
}

const CHECKPOINT_RUNS: std::ops::Range<u64> = 0..60;

fn checkpoint_options() -> fam::batch::Options {
    fam::batch::Options {
        seed: 7,
        exchanges: 4,
        threads: Some(1),
    }
}

/// A checkpoint of the duel's first 20 of 60 runs, as fam writes it.
fn duel_checkpoint() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let cp = fam::batch::Checkpoint {
        path: dir.path().join("duel.ckpt"),
        block: 20,
        max_blocks: Some(1),
    };
    let plan = fam::batch::Plan::Runs(CHECKPOINT_RUNS);
    fam::batch::run_resumable(duel(), &checkpoint_options(), &plan, &cp, &|_| {}).unwrap();
    fs::read(&cp.path).unwrap()
}

/// A (mutated) checkpoint resumed: refused, or played on, never a panic.
fn checkpoint_target(bytes: &[u8]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let cp = fam::batch::Checkpoint {
        path: dir.path().join("duel.ckpt"),
        block: 20,
        max_blocks: Some(1),
    };
    fs::write(&cp.path, with_digest_renewed(bytes)).unwrap();
    let plan = fam::batch::Plan::Runs(CHECKPOINT_RUNS);
    match fam::batch::run_resumable(duel(), &checkpoint_options(), &plan, &cp, &|_| {}) {
        Ok(r) => prop_assert!(r.tally.runs <= CHECKPOINT_RUNS.end),
        Err(e) => prop_assert!(matches!(e, fam::batch::BatchError::Checkpoint(_)), "{e}"),
    }
    Ok(())
}

/// A batch result of the duel, as `fam batch --json` writes it.
fn duel_json() -> Vec<u8> {
    let run = crate::support::fam(&["batch", "scenarios/duel.toml", "--runs", "40", "--json"]);
    assert!(run.status.success());
    run.stdout
}

#[cfg(feature = "serve")]
/// A request body of `fam serve` (a battle for `/api/scenario`, a replay of
/// one Exchange, an upload): whatever it holds, the answer is a success or
/// a refusal with a JSON error, never a failure of the server's own.
fn serve_target(uri: &str, body: Vec<u8>) -> Result<(), TestCaseError> {
    use axum::http::{Request, StatusCode};
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    static STATE: std::sync::OnceLock<std::sync::Arc<fam::serve::AppState>> = std::sync::OnceLock::new();
    let state =
        STATE.get_or_init(|| std::sync::Arc::new(fam::serve::AppState::new(std::time::Duration::from_secs(20))));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .unwrap();
    let req = Request::post(uri)
        .header("host", "localhost:8787")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body))
        .unwrap();
    let (status, bytes) = rt.block_on(async {
        let res = fam::serve::router(std::sync::Arc::clone(state))
            .oneshot(req)
            .await
            .unwrap();
        (res.status(), res.into_body().collect().await.unwrap().to_bytes())
    });
    prop_assert!(
        !status.is_server_error(),
        "{uri}: {status}: {}",
        String::from_utf8_lossy(&bytes)
    );
    prop_assert!(status != StatusCode::FORBIDDEN, "{uri}: refused as a foreign host");
    if status != StatusCode::OK {
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        prop_assert!(v["error"]["message"].is_string(), "{uri}: {status} without a message");
    }
    Ok(())
}

#[cfg(feature = "serve")]
/// Values a request's fields are swapped for: absurd numbers, wrong
/// types, names of the battle's own things in the wrong places, TOML that
/// a careless writer would let through.
fn odd_value(i: usize) -> serde_json::Value {
    use serde_json::json;
    let odd = [
        json!(null),
        json!(-1),
        json!(0),
        json!(u64::MAX),
        json!(1e300),
        json!(""),
        json!("Heading"),
        json!("Watch"),
        json!("Ilse"),
        json!("MCS Clear Heading"),
        json!("a\"b\n[x]\\"),
        json!("kestrel-reach.gzf"),
        json!([]),
        json!({}),
        json!(["Heading", "Heading"]),
        json!({"hold": -3}),
        json!(true),
        json!(4294967296_u64),
    ];
    match odd.get(i % (odd.len() + TOKENS.len())) {
        Some(v) => v.clone(),
        None => json!(TOKENS[i % (odd.len() + TOKENS.len()) - odd.len()]),
    }
}

#[cfg(feature = "serve")]
/// Replaces leaf `leaf` (modulo their count, in document order) of `v` by
/// [`odd_value`]`(value)`.
fn swap_leaf(v: &mut serde_json::Value, leaf: usize, value: usize) {
    fn count(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Array(a) => a.iter().map(count).sum(),
            serde_json::Value::Object(o) => o.values().map(count).sum(),
            _ => 1,
        }
    }
    /// Walks to leaf `k`, counting down; true once it was replaced.
    fn walk(v: &mut serde_json::Value, k: &mut usize, value: usize) -> bool {
        match v {
            serde_json::Value::Array(a) => a.iter_mut().any(|x| walk(x, k, value)),
            serde_json::Value::Object(o) => o.values_mut().any(|x| walk(x, k, value)),
            _ if *k == 0 => {
                *v = odd_value(value);
                true
            }
            _ => {
                *k -= 1;
                false
            }
        }
    }
    let mut k = leaf % count(v).max(1);
    walk(v, &mut k, value);
}

#[cfg(feature = "serve")]
/// The request bodies [`serve_target`] mutates: a duel from the library.
fn serve_bodies() -> [(&'static str, Vec<u8>); 3] {
    let battle = serde_json::json!({
        "title": "Fuzzed",
        "files": [{"name": "meridian-compact.gzf"}, {"name": "kestrel-reach.gzf"}],
        "sides": [
            {"name": "Ilse", "formations": [{"name": "Heading", "units": ["MCS Clear Heading"]}]},
            {"name": "Marek", "formations": [{"name": "Watch", "units": ["KRD Long Watch"],
              "doctrine": {"maneuver": {"hold": 30}, "evasion": "max", "withdraw_when": {"losses": 50}}}]}
        ],
        "start_range": 30,
        "ranges": [{"between": ["Heading", "Watch"], "mu": 24}],
        "victory": {"max_exchanges": 3, "morale": 50}
    });
    let upload = serde_json::json!({"name": "coil.gzf", "text": std::fs::read_to_string(repo().join("ssd/ssarith-coil.gzf")).unwrap()});
    [
        ("/api/scenario", battle.to_string().into_bytes()),
        (
            "/api/replay",
            serde_json::json!({"battle": battle, "seed": 7, "exchanges": 1})
                .to_string()
                .into_bytes(),
        ),
        ("/api/ships", upload.to_string().into_bytes()),
    ]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("FAM_FUZZ_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(48),
        // A hang is a failure: no input may take this long.
        timeout: 20_000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("FAM_FUZZ_SEED")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0xfa),
        ),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_gzf(pick in any::<usize>(), edits in prop::collection::vec(edit(), 1..6)) {
        let mut all = seeds(&repo().join("ssd"), "gzf");
        all.extend(seeds(&fixtures("ok"), "gzf"));
        let (path, bytes) = &all[pick % all.len()];
        gzf_target(&path.display().to_string(), &mutate(bytes.clone(), &edits))?;
    }

    #[test]
    fn fuzz_scenarios(pick in any::<usize>(), edits in prop::collection::vec(edit(), 1..6)) {
        let all = seeds(&repo().join("scenarios"), "toml");
        let (path, bytes) = &all[pick % all.len()];
        scenario_target((&path.display().to_string(), &mutate(bytes.clone(), &edits)), &[])?;
    }

    #[test]
    fn fuzz_orders(pick in 0usize..2, edits in prop::collection::vec(edit(), 1..6)) {
        let dir = fixtures("orders");
        let scenario = fs::read(dir.join("split.toml")).unwrap();
        let name = ["split-ilse.toml", "split-marek.toml"][pick];
        let orders = mutate(fs::read(dir.join(name)).unwrap(), &edits);
        scenario_target(("split.toml", &scenario), &[(name, orders)])?;
    }

    #[test]
    fn fuzz_ftjava(pick in any::<usize>(), edits in prop::collection::vec(xml_edit(), 1..6)) {
        let all = seeds(&fixtures("ftjava"), "xml");
        let (path, bytes) = &all[pick % all.len()];
        ftjava_target(&path.display().to_string(), &mutate(bytes.clone(), &edits))?;
    }

    #[test]
    fn fuzz_checkpoint(edits in prop::collection::vec(edit(), 1..6)) {
        static CHECKPOINT: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let checkpoint = CHECKPOINT.get_or_init(duel_checkpoint);
        checkpoint_target(&mutate(checkpoint.clone(), &edits))?;
    }

    #[cfg(feature = "serve")]
    #[test]
    fn fuzz_serve(pick in 0usize..3, edits in prop::collection::vec(edit(), 1..6)) {
        let (uri, body) = serve_bodies()[pick].clone();
        serve_target(uri, mutate(body, &edits))?;
    }

    #[cfg(feature = "serve")]
    #[test]
    fn fuzz_serve_values(pick in 0usize..3, swaps in prop::collection::vec((any::<usize>(), any::<usize>()), 1..5)) {
        let (uri, body) = serve_bodies()[pick].clone();
        let mut v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        for (leaf, value) in swaps {
            swap_leaf(&mut v, leaf, value);
        }
        serve_target(uri, v.to_string().into_bytes())?;
    }

    #[test]
    fn fuzz_batch_json(edits in prop::collection::vec(edit(), 1..6)) {
        static JSON: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let json = JSON.get_or_init(duel_json);
        batch_json_target(&mutate(json.clone(), &edits))?;
    }
}

/// Every input that broke fam so far, replayed through its reader:
/// `tests/fixtures/fuzz/<reader>/`.
#[test]
fn every_input_that_once_broke_fam_is_handled() {
    let dir = fixtures("fuzz");
    let mut replayed = 0;
    let check = |r: Result<(), TestCaseError>, p: &Path| {
        if let Err(e) = r {
            panic!("{}: {e}", p.display());
        }
    };
    for (path, bytes) in seeds(&dir.join("gzf"), "gzf") {
        check(gzf_target(&path.display().to_string(), &bytes), &path);
        replayed += 1;
    }
    for (path, bytes) in seeds(&dir.join("toml"), "toml") {
        check(scenario_target((&path.display().to_string(), &bytes), &[]), &path);
        replayed += 1;
    }
    for (path, bytes) in seeds(&dir.join("xml"), "xml") {
        check(ftjava_target(&path.display().to_string(), &bytes), &path);
        replayed += 1;
    }
    for (path, bytes) in seeds(&dir.join("json"), "json") {
        check(batch_json_target(&bytes), &path);
        replayed += 1;
    }
    for (path, bytes) in seeds(&dir.join("checkpoint"), "json") {
        check(checkpoint_target(&bytes), &path);
        replayed += 1;
    }
    assert!(replayed >= 6, "{replayed} corpus inputs");
}
