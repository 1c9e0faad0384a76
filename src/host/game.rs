//! A hosted game's life (docs/host.md): created from a scenario, signed up
//! for, plotted, resolved Exchange by Exchange exactly once, ended. Each
//! public function is one transaction on the store, so a crash leaves
//! every change wholly made or not at all. Turns are played by
//! [`crate::turn`], as `fam resolve` plays them.

use std::sync::Mutex;

use rusqlite::{Connection, Transaction, TransactionBehavior};
use sha2::{Digest, Sha256};

use crate::diag::SourceFile;
use crate::orders::{Loaded, Report};
use crate::turn::{self, TurnFile};

use super::store::{self, Game, Holder, Side, Status, StoreError};
use super::token;
use super::view::{self, Display, Played, Summary};

/// The most games one database holds.
pub const MAX_GAMES: u64 = 1_000;
/// The longest plot taken.
pub const MAX_PLOT_BYTES: usize = 256 << 10;
/// The longest name a commander signs up with.
pub const MAX_NAME_CHARS: usize = 60;
/// The longest deadline: thirty days.
pub const MAX_DEADLINE_SECONDS: u64 = 30 * 24 * 3600;

/// Why the host refused or failed.
#[derive(Debug)]
pub enum HostError {
    /// A file fam cannot take, with its diagnostics (422).
    Input {
        message: String,
        reports: Vec<Report>,
    },
    /// A request fam cannot take, without a file (422).
    Refused(String),
    /// No token, or one that is unknown or revoked (401).
    Unauthorized,
    /// A valid token asking for what it may not (403).
    Forbidden(String),
    NotFound(String),
    /// Not now: the game is not in the state this needs (409).
    Conflict(String),
    /// The database holds as many games as it may (507).
    Full,
    Store(StoreError),
    /// Something fam did not expect (500).
    Failed(String),
}

impl From<StoreError> for HostError {
    fn from(e: StoreError) -> HostError {
        HostError::Store(e)
    }
}

impl From<rusqlite::Error> for HostError {
    fn from(e: rusqlite::Error) -> HostError {
        HostError::Store(StoreError::Sqlite(e))
    }
}

impl From<token::NoRandom> for HostError {
    fn from(e: token::NoRandom) -> HostError {
        HostError::Failed(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, HostError>;

/// The game host: the database, one connection, one change at a time.
#[derive(Debug)]
pub struct Host {
    conn: Mutex<Connection>,
}

/// A new game, as the referee asks for it.
#[derive(Debug, Clone)]
pub struct NewGame {
    pub scenario: SourceFile,
    /// Ship records the scenario names, by file name; a record not among
    /// them comes from fam's ship library.
    pub files: Vec<SourceFile>,
    /// The game seed; `None`: fam draws one.
    pub seed: Option<u64>,
    /// Seconds each Exchange allows; `None`: until every plot is in.
    pub deadline_seconds: Option<u64>,
}

/// A created game and its links' tokens (shown once: only hashes are kept).
#[derive(Debug, Clone)]
pub struct Created {
    pub id: String,
    pub referee: String,
    /// Each side's name and its commander's token.
    pub commanders: Vec<(String, String)>,
}

/// What a submitted plot came to.
#[derive(Debug, Clone)]
pub struct Submitted {
    pub exchange: u32,
    /// The warnings `fam check` gives the orders.
    pub warnings: Vec<Report>,
    /// The submission completed the set and the Exchange resolved.
    pub resolved: bool,
}

/// What a token's holder may read of their game now (`me`).
#[derive(Debug, Clone)]
pub struct Mine {
    pub game: Game,
    pub side: Option<(usize, String)>,
    pub template: Option<String>,
    pub plot: Option<String>,
    pub battle: Option<crate::engine::state::Battle>,
    /// For the referee: each side and whether its plot is in.
    pub plots: Vec<(usize, String, bool)>,
}

/// The turn seed of Exchange `k` of a game with seed `seed` (docs/host.md,
/// "The seed chain"): known to the referee, unknown to the commanders
/// until the Exchange's files are published.
pub fn turn_seed(seed: u64, k: u32) -> u64 {
    let mut h = Sha256::new();
    h.update(b"fam game seed");
    h.update(seed.to_le_bytes());
    h.update(u64::from(k).to_le_bytes());
    let d = h.finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_le_bytes(b)
}

/// Loads a turn's scenario from its files held in memory, with `orders`
/// (name, text), as `fam resolve` loads them from a turn directory.
fn load_turn(files: &[store::File], orders: &[(String, String)]) -> std::result::Result<Loaded, Vec<Report>> {
    let scenario = files
        .iter()
        .find(|f| f.name == "scenario.toml")
        .map(|f| SourceFile::new("scenario.toml", f.bytes.clone()))
        .unwrap_or_else(|| SourceFile::new("scenario.toml", String::new()));
    let sources: Vec<SourceFile> = orders
        .iter()
        .map(|(name, text)| SourceFile::new(name.clone(), text.clone()))
        .collect();
    let mut read_gzf = |p: &str| -> std::result::Result<SourceFile, String> {
        files
            .iter()
            .find(|f| f.side.is_none() && f.name == p)
            .map(|f| SourceFile::new(p, f.bytes.clone()))
            .ok_or_else(|| format!("no file `{p}` in this turn"))
    };
    crate::orders::build(scenario, sources, &mut read_gzf, &crate::gzf::ParseOptions::default())
}

/// A turn's files as stored rows.
fn rows(files: Vec<TurnFile>) -> Vec<store::File> {
    files
        .into_iter()
        .map(|f| store::File {
            name: f.name,
            side: f.side,
            bytes: f.bytes,
        })
        .collect()
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| HostError::Failed(e.to_string()))
}

impl Host {
    /// Opens (or makes) the database and finishes any Exchange that was
    /// due while the host was down.
    pub fn open(path: &std::path::Path, now: i64) -> Result<Host> {
        let host = Host {
            conn: Mutex::new(store::open(path)?),
        };
        host.tick(now, true)?;
        Ok(host)
    }

    /// One transaction, taking the write lock at its start, so two changes
    /// never interleave (nor do two processes on one file).
    fn change<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// A read in one transaction (a consistent view).
    fn read<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
        f(&tx)
    }

    /// Creates a game: checks the scenario as `fam check` does, keeps its
    /// first turn directory and issues the links.
    pub fn create(&self, new: NewGame, now: i64) -> Result<Created> {
        let mut loaded = load_new(&new)?;
        if loaded.battle.sides.len() < 2 {
            return Err(HostError::Refused("a game needs at least two sides".to_string()));
        }
        let seed = match new.seed {
            Some(s) => s,
            None => {
                let mut b = [0u8; 8];
                getrandom::fill(&mut b).map_err(|e| HostError::Failed(e.to_string()))?;
                u64::from_le_bytes(b)
            }
        };
        let first = loaded.exchange;
        let files = turn::opening_files(&mut loaded, turn_seed(seed, first))
            .map_err(|clash| HostError::Refused(clash.to_string()))?;
        let game = Game {
            id: token::new_game_id()?,
            title: loaded.title.clone().unwrap_or_else(|| loaded.scenario.clone()),
            seed,
            status: Status::Signup,
            deadline_seconds: new.deadline_seconds,
            deadline_at: None,
            exchange: first,
            first_exchange: first,
            start_mass: crate::engine::victory::side_masses(&loaded.battle),
            opening: json(&view::summary(&loaded.battle))?,
            outcome: None,
            created_at: now,
        };
        let referee = token::new_token()?;
        let mut commanders = Vec::new();
        for side in &loaded.battle.sides {
            commanders.push((side.name.clone(), token::new_token()?));
        }
        self.change(|tx| {
            if store::game_count(tx)? >= MAX_GAMES {
                return Err(HostError::Full);
            }
            store::insert_game(tx, &game)?;
            store::insert_token(tx, &token::hash(&referee), &game.id, None)?;
            for (s, (name, t)) in commanders.iter().enumerate() {
                let side = Side {
                    side: s,
                    name: name.clone(),
                    commander: None,
                };
                store::insert_side(tx, &game.id, &side)?;
                store::insert_token(tx, &token::hash(t), &game.id, Some(s))?;
            }
            for f in rows(files) {
                store::insert_file(tx, &game.id, first, &f)?;
            }
            Ok(())
        })?;
        Ok(Created {
            id: game.id,
            referee,
            commanders,
        })
    }

    /// Who holds `token` for game `id`: 401 for no token or one that is
    /// unknown or revoked (after the same hash and lookup as a valid one),
    /// 403 for another game's.
    pub fn holder(&self, id: &str, token: Option<&str>) -> Result<Holder> {
        let hash = token::hash(token.unwrap_or(""));
        let found = self.read(|tx| Ok(store::holder(tx, &hash)?))?;
        match found {
            Some(h) if token.is_some() && !h.revoked => {
                if h.game == id {
                    Ok(h)
                } else {
                    Err(HostError::Forbidden("this link is for another game".to_string()))
                }
            }
            _ => Err(HostError::Unauthorized),
        }
    }

    /// The public display.
    pub fn display(&self, id: &str) -> Result<Display> {
        self.read(|tx| display_in(tx, id))
    }

    /// What the holder may read now: their side's template and plot, and
    /// the battle for the form (a commander); every side's plot state (the
    /// referee).
    pub fn mine(&self, h: &Holder) -> Result<Mine> {
        self.read(|tx| {
            let game = game_in(tx, &h.game)?;
            let sides = store::sides(tx, &game.id)?;
            let files = store::files(tx, &game.id, game.exchange)?;
            let plots = store::plots(tx, &game.id, game.exchange)?;
            let battle = load_turn(&files, &[]).ok().map(|l| l.battle);
            let mut mine = Mine {
                side: None,
                template: None,
                plot: None,
                battle,
                plots: Vec::new(),
                game,
            };
            match h.side {
                Some(s) => {
                    let side = sides
                        .get(s)
                        .ok_or_else(|| HostError::Failed("a side without a row".into()))?;
                    mine.side = Some((s, side.name.clone()));
                    mine.template = files.into_iter().find(|f| f.side == Some(s)).map(|f| f.bytes);
                    mine.plot = plots.into_iter().find(|p| p.side == s).map(|p| p.text);
                }
                None => {
                    mine.plots = sides
                        .iter()
                        .map(|s| (s.side, s.name.clone(), plots.iter().any(|p| p.side == s.side)))
                        .collect();
                }
            }
            Ok(mine)
        })
    }

    /// A commander signs up (or changes their name). The game starts when
    /// every side has a commander.
    pub fn join(&self, h: &Holder, name: &str, now: i64) -> Result<Display> {
        let side = commander_side(h)?;
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(HostError::Refused(format!(
                "a name of 1 to {MAX_NAME_CHARS} characters, without control characters"
            )));
        }
        self.change(|tx| {
            let mut game = game_in(tx, &h.game)?;
            if game.status == Status::Completed {
                return Err(HostError::Conflict("the game is over".to_string()));
            }
            store::set_commander(tx, &game.id, side, name)?;
            let sides = store::sides(tx, &game.id)?;
            if game.status == Status::Signup && sides.iter().all(|s| s.commander.is_some()) {
                game.status = Status::Progress;
                game.deadline_at = game.deadline_seconds.map(|s| now + s as i64);
                store::update_game(tx, &game)?;
            }
            display_in(tx, &game.id)
        })
    }

    /// A commander's plot for the Exchange being plotted: checked against
    /// the turn's scenario, kept (replacing any earlier one), and, when it
    /// completes the set, the Exchange resolved in the same transaction.
    pub fn submit(&self, h: &Holder, text: String, now: i64) -> Result<Submitted> {
        let side = commander_side(h)?;
        if text.len() > MAX_PLOT_BYTES {
            return Err(HostError::Refused(format!(
                "an orders file holds at most {} KiB",
                MAX_PLOT_BYTES >> 10
            )));
        }
        self.change(|tx| {
            let mut game = game_in(tx, &h.game)?;
            match game.status {
                Status::Signup => {
                    return Err(HostError::Conflict(
                        "the game is in signup: plots are taken once every side has a commander".into(),
                    ));
                }
                Status::Completed => return Err(HostError::Conflict("the game is over".into())),
                Status::Progress => {}
            }
            let sides = store::sides(tx, &game.id)?;
            let files = store::files(tx, &game.id, game.exchange)?;
            let warnings = check_plot(&files, &sides[side].name, &text)?;
            let plot = store::Plot {
                side,
                text,
                submitted_at: now,
            };
            store::put_plot(tx, &game.id, game.exchange, &plot)?;
            let exchange = game.exchange;
            let all_in = store::plots(tx, &game.id, exchange)?.len() == sides.len();
            if all_in {
                resolve_in(tx, &mut game, "all plots in", now)?;
            }
            Ok(Submitted {
                exchange,
                warnings,
                resolved: all_in,
            })
        })
    }

    /// A side's submitted plot for the Exchange being plotted: for the
    /// referee, or that side's own commander.
    pub fn plot_of(&self, h: &Holder, side: usize) -> Result<(u32, store::Plot)> {
        if let Some(own) = h.side
            && own != side
        {
            return Err(HostError::Forbidden(
                "a commander reads only their own plot before the Exchange resolves".to_string(),
            ));
        }
        self.read(|tx| {
            let game = game_in(tx, &h.game)?;
            let plot = store::plots(tx, &game.id, game.exchange)?
                .into_iter()
                .find(|p| p.side == side)
                .ok_or_else(|| HostError::NotFound(format!("no plot of side {side} for this Exchange")))?;
            Ok((game.exchange, plot))
        })
    }

    /// The referee resolves the Exchange now, with the plots that are in.
    pub fn resolve_now(&self, h: &Holder, now: i64) -> Result<Display> {
        referee(h)?;
        self.change(|tx| {
            let mut game = game_in(tx, &h.game)?;
            if game.status != Status::Progress {
                return Err(HostError::Conflict(format!(
                    "the game is {}: only a game in progress resolves",
                    words(game.status)
                )));
            }
            resolve_in(tx, &mut game, "referee", now)?;
            display_in(tx, &game.id)
        })
    }

    /// The referee ends the game.
    pub fn end(&self, h: &Holder, reason: &str) -> Result<Display> {
        referee(h)?;
        let reason: String = reason.trim().chars().filter(|c| !c.is_control()).take(200).collect();
        self.change(|tx| {
            let mut game = game_in(tx, &h.game)?;
            if game.status == Status::Completed {
                return Err(HostError::Conflict("the game is over already".to_string()));
            }
            game.status = Status::Completed;
            game.deadline_at = None;
            game.outcome = Some(if reason.is_empty() {
                "ended by the referee".to_string()
            } else {
                format!("ended by the referee: {reason}")
            });
            store::update_game(tx, &game)?;
            display_in(tx, &game.id)
        })
    }

    /// The referee re-issues a commander's link; the old one stops working.
    pub fn reissue(&self, h: &Holder, side: usize) -> Result<String> {
        referee(h)?;
        let fresh = token::new_token()?;
        self.change(|tx| {
            let sides = store::sides(tx, &h.game)?;
            if side >= sides.len() {
                return Err(HostError::NotFound(format!("no side {side} in this game")));
            }
            store::revoke_side(tx, &h.game, side)?;
            store::insert_token(tx, &token::hash(&fresh), &h.game, Some(side))?;
            Ok(())
        })?;
        Ok(fresh)
    }

    /// The turn directory of Exchange `k` (name, bytes): a resolved one
    /// with the orders it played, its report, log and README; the one being
    /// plotted without its seed and without any plot.
    pub fn turn_dir(&self, h: &Holder, k: u32) -> Result<Vec<(String, String)>> {
        self.read(|tx| {
            let game = game_in(tx, &h.game)?;
            let files = store::files(tx, &game.id, k)?;
            if files.is_empty() {
                return Err(HostError::NotFound(format!("no Exchange {k} in this game")));
            }
            let inputs = files.iter().filter(|f| f.side.is_none());
            match store::turn(tx, &game.id, k)? {
                Some(t) => {
                    let played: Vec<Played> =
                        serde_json::from_str(&t.orders).map_err(|_| StoreError::Corrupt("a turn's orders".into()))?;
                    let mut out: Vec<(String, String)> = inputs.map(|f| (f.name.clone(), f.bytes.clone())).collect();
                    out.extend(played.iter().map(|p| (p.file.clone(), p.text.clone())));
                    out.push(("report.txt".to_string(), t.report));
                    out.push(("log.jsonl".to_string(), t.log));
                    out.push(("README.txt".to_string(), readme(&game, k, &played)));
                    Ok(out)
                }
                None => Ok(inputs
                    .map(|f| {
                        let bytes = if f.name == "scenario.toml" {
                            without_seed(&f.bytes)
                        } else {
                            f.bytes.clone()
                        };
                        (f.name.clone(), bytes)
                    })
                    .collect()),
            }
        })
    }

    /// The Atom feed's entries: the game and its resolved turns.
    pub fn feed(&self, id: &str) -> Result<Display> {
        self.display(id)
    }

    /// Resolves every game whose deadline has passed at `now`; `start`:
    /// also every game whose plots are all in (an Exchange a crash left
    /// unresolved). Returns how many Exchanges it resolved.
    pub fn tick(&self, now: i64, start: bool) -> Result<usize> {
        let due = self.read(|tx| Ok(store::games_due(tx, now, start)?))?;
        let mut done = 0;
        for id in due {
            done += self.change(|tx| {
                let mut game = game_in(tx, &id)?;
                if game.status != Status::Progress {
                    return Ok(0);
                }
                let late = game.deadline_at.is_some_and(|d| d <= now);
                let sides = store::sides(tx, &id)?.len();
                let all_in = store::plots(tx, &id, game.exchange)?.len() == sides;
                if late || all_in {
                    resolve_in(tx, &mut game, if all_in { "all plots in" } else { "deadline" }, now)?;
                    Ok(1)
                } else {
                    Ok(0)
                }
            })?;
        }
        Ok(done)
    }
}

fn words(s: Status) -> &'static str {
    match s {
        Status::Signup => "in signup",
        Status::Progress => "in progress",
        Status::Completed => "completed",
    }
}

fn commander_side(h: &Holder) -> Result<usize> {
    h.side
        .ok_or_else(|| HostError::Forbidden("this is the referee's link: only a commander's link plots".to_string()))
}

fn referee(h: &Holder) -> Result<()> {
    match h.side {
        None => Ok(()),
        Some(_) => Err(HostError::Forbidden(
            "only the referee's link may do this; yours is a commander's".to_string(),
        )),
    }
}

fn game_in(tx: &Connection, id: &str) -> Result<Game> {
    store::game(tx, id)?.ok_or_else(|| HostError::NotFound(format!("no game `{id}`")))
}

fn display_in(tx: &Connection, id: &str) -> Result<Display> {
    let game = game_in(tx, id)?;
    let sides = store::sides(tx, id)?;
    let plotted: Vec<usize> = store::plots(tx, id, game.exchange)?.iter().map(|p| p.side).collect();
    let turns = store::turns(tx, id)?;
    let opening: Summary =
        serde_json::from_str(&game.opening).map_err(|_| StoreError::Corrupt("a game's opening state".into()))?;
    Ok(view::display(&game, &sides, &plotted, &turns, &opening))
}

/// Checks the scenario of a new game with its records (uploaded, else from
/// the ship library, by file name).
fn load_new(new: &NewGame) -> Result<Loaded> {
    let mut read_gzf = |p: &str| -> std::result::Result<SourceFile, String> {
        let name = turn::record_name(p);
        if let Some(f) = new.files.iter().find(|f| f.name == name) {
            return Ok(SourceFile::new(p, f.text.clone()));
        }
        crate::library::text(&name)
            .map(|t| SourceFile::new(p, t))
            .ok_or_else(|| format!("`{name}` was not uploaded and is not in fam's ship library"))
    };
    crate::orders::build(
        new.scenario.clone(),
        Vec::new(),
        &mut read_gzf,
        &crate::gzf::ParseOptions::default(),
    )
    .map_err(|reports| HostError::Input {
        message: format!("{}: fam cannot play this scenario", new.scenario.name),
        reports,
    })
}

/// Checks a commander's orders for the turn in `files`, as `fam check`
/// checks them against the turn's scenario; their warnings.
fn check_plot(files: &[store::File], side: &str, text: &str) -> Result<Vec<Report>> {
    let name = turn::orders_name(side);
    let keys: Option<toml::Table> = toml::from_str(text).ok();
    if let Some(keys) = &keys {
        match keys.get("commander").and_then(toml::Value::as_str) {
            Some(c) if c == side => {}
            Some(c) => {
                return Err(HostError::Forbidden(format!(
                    "these orders are for commander `{c}`; your link is `{side}`'s"
                )));
            }
            None => {
                return Err(HostError::Refused(format!(
                    "write `commander = \"{side}\"` at the top of the orders (the side of your link)"
                )));
            }
        }
        if let Some(s) = keys.get("scenario").and_then(toml::Value::as_str)
            && s != "scenario.toml"
        {
            return Err(HostError::Refused(format!(
                "these orders name scenario `{s}`; a game's orders name `scenario.toml` or no scenario"
            )));
        }
    }
    match load_turn(files, &[(name.clone(), text.to_string())]) {
        Ok(loaded) => Ok(loaded.warnings),
        Err(reports) => Err(HostError::Input {
            message: format!("{name}: fam cannot take these orders"),
            reports,
        }),
    }
}

/// Resolves the Exchange `game` is plotting, in the caller's transaction:
/// each side plays its plot, else its orders template; the turn, the next
/// turn's files and the game's new state are written together.
fn resolve_in(tx: &Connection, game: &mut Game, trigger: &str, now: i64) -> Result<()> {
    let k = game.exchange;
    let sides = store::sides(tx, &game.id)?;
    let files = store::files(tx, &game.id, k)?;
    let plots = store::plots(tx, &game.id, k)?;
    let played: Vec<Played> = sides
        .iter()
        .map(|s| {
            let plot = plots.iter().find(|p| p.side == s.side);
            let text = plot
                .map(|p| p.text.clone())
                .or_else(|| files.iter().find(|f| f.side == Some(s.side)).map(|f| f.bytes.clone()));
            Played {
                side: s.side,
                name: s.name.clone(),
                file: turn::orders_name(&s.name),
                text: text.unwrap_or_default(),
                submitted: plot.is_some(),
            }
        })
        .collect();
    let orders: Vec<(String, String)> = played.iter().map(|p| (p.file.clone(), p.text.clone())).collect();
    let mut loaded = load_turn(&files, &orders).map_err(|reports| {
        let first = reports
            .iter()
            .flat_map(|(s, d)| d.iter().map(move |d| format!("{}: {}", s.name, d.message)))
            .next()
            .unwrap_or_default();
        HostError::Failed(format!("Exchange {k} of game {} cannot be loaded: {first}", game.id))
    })?;
    let seed = loaded
        .seed
        .ok_or_else(|| HostError::Failed(format!("Exchange {k}'s scenario has no seed")))?;
    let first = turn::first_plot(&mut loaded, seed, 1);
    let header = crate::resolve::first_header(&loaded, seed);
    let resolved = turn::play(&loaded, seed, &header, &first, turn::How::ONE_EXCHANGE);
    loaded.write_back(&resolved.battle);
    let next = turn::next_files(&loaded, &resolved, &header, turn_seed(game.seed, k + 1))
        .map_err(|clash| HostError::Failed(clash.to_string()))?;
    let outcome = crate::engine::victory::decide(&resolved.battle, &game.start_mass, &loaded.victory, k);
    store::insert_turn(
        tx,
        &game.id,
        &store::Turn {
            exchange: k,
            trigger: trigger.to_string(),
            orders: json(&played)?,
            report: resolved.report,
            log: resolved.log,
            summary: json(&view::summary(&resolved.battle))?,
            resolved_at: now,
        },
    )?;
    for f in rows(next) {
        store::insert_file(tx, &game.id, k + 1, &f)?;
    }
    match outcome {
        Some(o) => {
            game.status = Status::Completed;
            game.deadline_at = None;
            game.outcome = Some(crate::report::outcome_text(&resolved.battle, &o));
        }
        None => {
            game.exchange = k + 1;
            game.deadline_at = game.deadline_seconds.map(|s| now + s as i64);
        }
    }
    store::update_game(tx, game)?;
    Ok(())
}

/// The scenario of an Exchange not yet resolved, as a commander may read
/// it: without its `seed` line (the turn seed stays secret until then).
fn without_seed(scenario: &str) -> String {
    scenario
        .lines()
        .filter(|l| !l.starts_with("seed = "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The README of a resolved turn directory: how to replay it.
fn readme(game: &Game, k: u32, played: &[Played]) -> String {
    let orders: Vec<String> = played.iter().map(|p| format!("--orders {}", p.file)).collect();
    let templates: Vec<&str> = played
        .iter()
        .filter(|p| !p.submitted)
        .map(|p| p.name.as_str())
        .collect();
    let mut s = format!(
        "Exchange {k} of \"{}\" (game {}), as the host resolved it.\n\n\
         Replay it, byte for byte:\n\n    \
         fam resolve scenario.toml {} --log log.jsonl.new > report.txt.new\n    \
         cmp report.txt report.txt.new && cmp log.jsonl log.jsonl.new\n\n\
         Continue the game on the command line: add --out DIR for the next turn's files.\n",
        game.title,
        game.id,
        orders.join(" ")
    );
    if !templates.is_empty() {
        s.push_str(&format!(
            "\nNo plot came from {}: each such side played its orders template (its standing orders, else the default doctrine).\n",
            templates.join(", ")
        ));
    }
    s
}
