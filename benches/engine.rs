//! Engine speed: whole Exchanges of a beam duel with nothing recorded (the
//! batch path), against a bare loop over the same number of dice.

use criterion::{Criterion, criterion_group, criterion_main};
use fam::engine::checked::CheckedPlot;
use fam::engine::dice::Dice;
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, Maneuver, ManeuverOrder, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, run_exchange};
use fam::gzf::{self, ParseOptions};

fn duel() -> (Battle, CheckedPlot) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ssd/meridian-compact.gzf");
    let text = std::fs::read_to_string(path).expect("ssd file");
    let parsed = gzf::parse(&text, &ParseOptions::default());
    let ship = parsed.file.ship("MCS Clear Heading").expect("ship").clone();
    let units = (0..2)
        .map(|i| Unit::from_ship(&ship, parsed.file.profile, i, i))
        .collect();
    let battle = Battle {
        sides: vec![Side { name: "A".into() }, Side { name: "B".into() }],
        formations: (0..2)
            .map(|i| Formation {
                name: format!("F{i}"),
                side: i,
                units: vec![i],
                reserve: Default::default(),
            })
            .collect(),
        units,
        ranges: RangeTable::new(2, 30),
        rules: Rules::default(),
    };
    let plot = |me: usize| {
        let v = VolleyPlot {
            speed: 4,
            evasion: 2,
            primary: Some(ManeuverOrder {
                target: 1 - me,
                maneuver: Maneuver::Close,
            }),
            fire: vec![
                FireOrder {
                    unit: me,
                    fire_control: 5,
                    target: Some(1 - me),
                    weapons: vec![7, 8, 9],
                    needles: Vec::new(),
                    group: None,
                },
                FireOrder {
                    unit: me,
                    fire_control: 6,
                    target: Some(1 - me),
                    weapons: vec![10, 11],
                    needles: Vec::new(),
                    group: None,
                },
            ],
            ..VolleyPlot::default()
        };
        Some(FormationPlot {
            volleys: [v.clone(), v.clone(), v],
        })
    };
    let plot = ExchangePlot {
        formations: vec![plot(0), plot(1)],
    }
    .check(&battle)
    .expect("the duel's plot is valid");
    (battle, plot)
}

fn bench(c: &mut Criterion) {
    let (start, plot) = duel();
    let mut battle = start.clone();
    let mut scratch = Scratch::default();
    let mut seed = 0u64;
    c.bench_function("exchange: beam duel, no events", |b| {
        b.iter(|| {
            battle.clone_from(&start);
            seed += 1;
            let mut dice = Dice::new(seed);
            run_exchange(&mut battle, &plot, &mut dice, &mut (), &mut scratch);
            dice.count_draws()
        })
    });
    c.bench_function("bare dice: 100 d6", |b| {
        let mut dice = Dice::new(1);
        b.iter(|| (0..100).map(|_| u32::from(dice.d6())).sum::<u32>())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
