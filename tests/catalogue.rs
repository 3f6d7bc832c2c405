//! The requirements catalogue and the features agree: every requirement has
//! a scenario, every scenario names known requirements of its own profile,
//! and the features compiled into the binary are the files in features/.

use std::collections::BTreeSet;

use payconf::{
    contract::Contract,
    features::{EMBEDDED_FEATURES, Features},
    requirements::{RequirementProfile, Requirements},
    run::{RunOptions, Suite},
};

fn requirements() -> Requirements {
    Requirements::embedded().expect("catalogue loads")
}

fn features() -> Features {
    Features::embedded().expect("features parse")
}

#[test]
fn every_requirement_is_checked_by_a_scenario() {
    let scenarios = features().scenarios();
    let requirements = requirements();
    let unchecked: Vec<&str> = requirements
        .all()
        .iter()
        .filter(|r| {
            !scenarios
                .iter()
                .any(|s| s.requirements().any(|id| id == r.id))
        })
        .map(|r| r.id.as_str())
        .collect();
    assert!(
        unchecked.is_empty(),
        "requirements without a scenario: {unchecked:?}"
    );
}

#[test]
fn every_scenario_names_known_requirements_of_its_own_profile() {
    let requirements = requirements();
    for scenario in features().scenarios() {
        let expected = RequirementProfile::of_tags(&scenario.tags).unwrap_or_else(|| {
            panic!(
                "{}: exactly one of @core, @reference, @robustness",
                scenario.location()
            )
        });
        let ids: Vec<&str> = scenario.requirements().collect();
        assert!(!ids.is_empty(), "{}: no @req: tag", scenario.location());
        for id in ids {
            let requirement = requirements
                .get(id)
                .unwrap_or_else(|| panic!("{}: unknown requirement {id}", scenario.location()));
            assert_eq!(
                requirement.profile,
                expected,
                "{}: {id} is not a requirement of its profile",
                scenario.location()
            );
        }
    }
}

#[test]
fn every_scenario_carries_its_features_area_tag() {
    let areas = [
        "create",
        "submit",
        "three-d-secure",
        "authentication",
        "envelope",
        "resilience",
    ];
    for feature in features().features() {
        let area: Vec<&String> = feature
            .tags
            .iter()
            .filter(|t| areas.contains(&t.as_str()))
            .collect();
        assert_eq!(area.len(), 1, "{}: one area tag", feature.name);
    }
}

#[test]
fn a_scenario_naming_an_unknown_requirement_stops_the_run() {
    let dir = std::env::temp_dir().join(format!("payconf-features-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("bad.feature"),
        "@create\nFeature: X\n  @core @req:NOPE-01\n  Scenario: y\n    When the merchant creates a payment\n",
    )
    .expect("write");
    let options = RunOptions {
        features_dir: Some(dir.clone()),
        ..RunOptions::default()
    };
    let error = Suite::load(&options).expect_err("unknown requirement");
    assert!(error.to_string().contains("NOPE-01"), "{error}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_embedded_features_are_the_files_in_the_features_directory() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/features");
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir)
        .expect("features dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".feature"))
        .collect();
    let embedded: BTreeSet<String> = EMBEDDED_FEATURES
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect();
    assert_eq!(on_disk, embedded);
    for (name, text) in EMBEDDED_FEATURES {
        let file = std::fs::read_to_string(format!("{dir}/{name}")).expect("feature file");
        assert_eq!(&file, text, "{name} differs from the embedded copy");
    }
}

#[test]
fn requirement_fields_name_operations_of_the_spec() {
    let contract = Contract::embedded().expect("spec");
    let operations: Vec<String> = contract
        .openapi()
        .operations()
        .filter_map(|(_, _, op)| op.operation_id.clone())
        .collect();
    for requirement in requirements().all() {
        for field in requirement.fields.iter().chain(&requirement.exact_fields) {
            let (operation, _) = field.split_once(' ').expect("well formed");
            assert!(
                operations.iter().any(|o| o == operation),
                "{}: {operation} is not in the spec",
                requirement.id
            );
        }
    }
}

#[test]
fn the_example_target_file_is_complete() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/target.toml");
    let file = payconf::target::TargetFile::load(std::path::Path::new(path)).expect("parses");
    let target = file.resolve().expect("complete");
    assert_eq!(target.api_key.expose(), payconf_reference::DEFAULT_API_KEY);
    assert!(target.cards.declined.is_some() && target.failure_url.is_some());
}

#[test]
fn production_safe_scenarios_send_no_card_data() {
    for feature in features().features() {
        let background: Vec<&str> = feature
            .background
            .iter()
            .flat_map(|b| b.steps.iter().map(|s| s.value.as_str()))
            .collect();
        for scenario in &feature.scenarios {
            if !scenario.tags.iter().any(|t| t == "production-safe") {
                continue;
            }
            let steps = background
                .iter()
                .copied()
                .chain(scenario.steps.iter().map(|s| s.value.as_str()));
            for step in steps {
                assert!(
                    !step.contains("pays"),
                    "{}: {:?} is @production-safe but sends card data: {step}",
                    feature.name,
                    scenario.name
                );
            }
        }
    }
}

/// Every check (`Then`, and the `And`/`But` after it) of a core or robustness scenario
/// names one of the scenario's requirements through the catalogue's
/// `steps`, so that a failure is put on the requirement at fault and not on
/// all of them; and every step pattern of a requirement is used.
#[test]
fn every_check_of_a_core_scenario_names_one_of_its_requirements() {
    let requirements = requirements();
    let mut unnamed = Vec::new();
    let mut used = BTreeSet::new();
    for feature in features().features() {
        for scenario in &feature.scenarios {
            let tags: Vec<String> = feature.tags.iter().chain(&scenario.tags).cloned().collect();
            // Core and robustness checks are named; reference ones may be.
            if !tags.iter().any(|t| t == "core" || t == "robustness") {
                continue;
            }
            let checked: Vec<&str> = payconf::features::requirement_ids(&tags).collect();
            let mut checking = false;
            for step in &scenario.steps {
                match step.keyword.trim() {
                    "Then" => checking = true,
                    "Given" | "When" => checking = false,
                    _ => {}
                }
                let named = requirements.named_by(&step.value, checked.iter().copied());
                for id in &named {
                    let requirement = requirements.get(id).expect("a known requirement");
                    for pattern in &requirement.steps {
                        if payconf::requirements::wildcard_match(pattern, &step.value) {
                            used.insert((id.clone(), pattern.clone()));
                        }
                    }
                }
                if checking && named.is_empty() {
                    unnamed.push(format!(
                        "{}: {}: {}",
                        feature.name, scenario.name, step.value
                    ));
                }
            }
        }
    }
    assert!(
        unnamed.is_empty(),
        "checks that name none of their scenario's requirements (add the step to a \
         requirement's `steps` in spec/requirements.yaml):\n{}",
        unnamed.join("\n")
    );
    let unused: Vec<String> = requirements
        .all()
        .iter()
        .flat_map(|r| r.steps.iter().map(move |p| (r.id.clone(), p.clone())))
        .filter(|entry| !used.contains(entry))
        .map(|(id, pattern)| format!("{id}: {pattern}"))
        .collect();
    assert!(
        unused.is_empty(),
        "step patterns no core or robustness scenario uses: {unused:?}"
    );
}
