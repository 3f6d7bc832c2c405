//! The requirements catalogue and the features agree: every requirement has
//! a scenario, every scenario names known requirements of its own profile,
//! and the features compiled into the binary are the files in features/.

use std::collections::BTreeSet;

use payconf::runner::{
    CARD_DATA_DEFINITIONS, PRODUCTION_SAFE, RunOptions, Scope, Suite, definition_file,
};
use payconf_spec::{
    Profile,
    contract::Contract,
    features::{EMBEDDED_FEATURES, Features, effective_tags, scenarios_with_rules},
    requirements::{RequirementId, Requirements},
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
        .filter(|r| !scenarios.iter().any(|s| s.checks(&r.id)))
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
        let expected = Profile::of_tags(&scenario.tags).unwrap_or_else(|| {
            panic!(
                "{}: exactly one of @core, @reference, @robustness",
                scenario.location()
            )
        });
        let ids: Vec<RequirementId> = scenario.requirements().collect();
        assert!(!ids.is_empty(), "{}: no @req: tag", scenario.location());
        for id in ids {
            let requirement = requirements
                .get(&id)
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
        "payment-page",
        "notification",
        "lifecycle",
        "outcome",
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
        scope: Scope {
            features_dir: Some(dir.clone()),
            ..Scope::default()
        },
        ..RunOptions::default()
    };
    let error = Suite::load(&options).expect_err("unknown requirement");
    assert!(error.to_string().contains("NOPE-01"), "{error}");
    let _ = std::fs::remove_dir_all(dir);
}

/// What can drift is the list in `EMBEDDED_FEATURES` (its text follows the
/// files by `include_str!`): a feature file added to `features/` and not to
/// the list, or a name paired with another file's text. Loading the
/// directory as `--features` does and listing its scenarios must give the
/// embedded list exactly.
#[test]
fn the_embedded_features_are_the_feature_files_each_under_its_own_name() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/features");
    let from_disk = Features::load_dir(std::path::Path::new(dir)).expect("features/ parses");
    let embedded = features();
    let names =
        |f: &Features| -> BTreeSet<String> { f.scenarios().into_iter().map(|s| s.file).collect() };
    assert_eq!(
        names(&embedded),
        names(&from_disk),
        "feature files embedded"
    );
    assert_eq!(embedded.scenarios(), from_disk.scenarios());
    assert_eq!(EMBEDDED_FEATURES.len(), names(&from_disk).len());
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
    let file = payconf::runner::TargetFile::load(std::path::Path::new(path)).expect("parses");
    let target = file.resolve().expect("complete");
    assert_eq!(target.api_key.expose(), payconf_reference::DEFAULT_API_KEY);
    assert!(target.cards.declined.is_some() && target.failure_url.is_some());
    let notifications = target.notifications.expect("[notifications]");
    assert_eq!(
        notifications.signing_secret.map(|s| s.expose().to_owned()),
        Some(payconf_reference::DEFAULT_SIGNING_SECRET.to_owned())
    );
    let lifecycle = target.lifecycle.expect("[lifecycle]");
    let unified = lifecycle
        .shop(payconf::runner::SettlementMode::Unified)
        .expect("the sandbox's shop settles by itself");
    assert_eq!(unified.shop_login, payconf_reference::DEFAULT_SHOP_LOGIN);
}

/// The definition each step of a `@production-safe` scenario runs, found
/// as cucumber finds it, is not one that sends card data. Tags are the
/// feature's, the rule's and the scenario's; background steps count.
#[test]
fn production_safe_scenarios_use_no_step_definition_that_sends_card_data() {
    let mut checked = 0;
    for feature in features().features() {
        for (rule, scenario) in scenarios_with_rules(feature) {
            if !effective_tags(feature, rule, scenario)
                .iter()
                .any(|t| t == PRODUCTION_SAFE)
            {
                continue;
            }
            let backgrounds = feature
                .background
                .iter()
                .chain(rule.and_then(|r| r.background.as_ref()));
            for step in backgrounds.flat_map(|b| &b.steps).chain(&scenario.steps) {
                let defined_in = definition_of(step);
                assert!(
                    !CARD_DATA_DEFINITIONS.contains(&defined_in.as_str()),
                    "{}: {:?} is @production-safe but its step {:?} is defined in {defined_in}, which sends card data",
                    feature.name,
                    scenario.name,
                    step.value
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no @production-safe scenario found");
}

/// The check above can fail: a paying step resolves to a definition that
/// sends card data, and a creating step does not.
#[test]
fn a_paying_step_is_found_among_the_definitions_that_send_card_data() {
    let text = "Feature: f\n  Scenario: s\n    Given a payment created by the merchant\n    When the buyer pays with the card not enrolled in 3-D Secure\n    And the buyer's payment is submitted by many requests at once\n";
    let feature = cucumber::gherkin::Feature::parse(text, Default::default()).expect("parses");
    let steps = &feature.scenarios[0].steps;
    let defined: Vec<String> = steps.iter().map(definition_of).collect();
    assert!(
        !CARD_DATA_DEFINITIONS.contains(&defined[0].as_str()),
        "{defined:?}"
    );
    assert!(
        CARD_DATA_DEFINITIONS.contains(&defined[1].as_str()),
        "{defined:?}"
    );
    assert!(
        CARD_DATA_DEFINITIONS.contains(&defined[2].as_str()),
        "{defined:?}"
    );
}

/// The file of the step definition cucumber runs for a step.
fn definition_of(step: &cucumber::gherkin::Step) -> String {
    definition_file(step)
        .unwrap_or_else(|| panic!("{:?} matches no definition, or several", step.value))
        .to_owned()
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
        for (rule, scenario) in scenarios_with_rules(feature) {
            let tags = effective_tags(feature, rule, scenario);
            // Core and robustness checks are named; reference ones may be
            // (and the patterns they use count as used).
            let binds = Profile::of_tags(&tags).is_some_and(Profile::binds_every_server);
            let checked: Vec<RequirementId> =
                payconf_spec::features::requirement_ids(&tags).collect();
            let mut checking = false;
            for step in &scenario.steps {
                match step.keyword.trim() {
                    "Then" => checking = true,
                    "Given" | "When" => checking = false,
                    _ => {}
                }
                let named = requirements.named_by(&step.value, &checked);
                for id in &named {
                    let requirement = requirements.get(id).expect("a known requirement");
                    for pattern in &requirement.steps {
                        if payconf_spec::requirements::wildcard_match(pattern, &step.value) {
                            used.insert((id.clone(), pattern.clone()));
                        }
                    }
                }
                if binds && checking && named.is_empty() {
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

/// Each Examples row of an outline is named by its values (the outline's
/// name holds its placeholders), so that every report tells them apart:
/// JUnit above all, whose CI views merge test cases of one name. Every
/// scenario's name is unique in its feature.
#[test]
fn every_scenario_is_named_apart_from_the_others_of_its_feature() {
    let scenarios = payconf_spec::features::Features::embedded()
        .expect("features parse")
        .scenarios();
    let mut seen = std::collections::BTreeMap::new();
    let mut twice = Vec::new();
    for scenario in &scenarios {
        if let Some(first) = seen.insert(
            (scenario.file.clone(), scenario.name.clone()),
            scenario.location(),
        ) {
            twice.push(format!(
                "{first} and {}: {}",
                scenario.location(),
                scenario.name
            ));
        }
    }
    assert!(twice.is_empty(), "named alike: {twice:#?}");
    assert!(
        scenarios.iter().all(|s| !s.name.contains('<')),
        "every placeholder of a name is filled"
    );
}
