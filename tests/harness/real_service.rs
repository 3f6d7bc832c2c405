//! What is known of the real service (`spec/real-service.yaml`), held
//! against what the suite expects of it: every requirement of the
//! reference and robustness profiles that rests on the real service names
//! facts that exist, and no scenario of it contradicts them (a code with
//! another HTTP status than a fact gives it, a description no fact records,
//! a step a fact forbids). `docs/real-service.md` is the facts as a page,
//! generated and drift-tested.

use std::collections::BTreeSet;

use payconf_spec::{
    Profile,
    features::{Features, effective_tags, scenarios_with_rules},
    real_service::{Fact, RealService},
    requirements::{Requirements, Source, wildcard_match},
};

fn facts() -> RealService {
    RealService::embedded().expect("the facts load")
}

fn requirements() -> Requirements {
    Requirements::embedded().expect("the catalogue loads")
}

/// `docs/real-service.md`: the facts by topic, each with its sources and
/// the requirements resting on it, then every requirement of the reference
/// and robustness profiles with the facts it rests on.
fn page(facts: &RealService, requirements: &Requirements) -> String {
    let mut page = String::from(
        "# The real service, where the contract is silent\n\n\
         [README](../README.md) · [documentation map](../README.md#documentation)\n\n\
         <!-- Generated from spec/real-service.yaml by tests/harness/real_service.rs; \
         regenerate with PAYCONF_WRITE_DOCS=1 cargo test --test harness real_service -->\n\n\
         The contract leaves much unsaid. What is known of the real service (Axerve \
         Ecommerce Solutions, formerly GestPay) there, in our words, each fact with the \
         public material it was read from. The reference profile follows these facts, the \
         sandbox behaves as they say, and a test holds every scenario of the reference and \
         robustness profiles to the facts its requirements rest on: a code answered with \
         another HTTP status than a fact gives it, a description no fact records, or a step \
         a fact forbids fails it. None of this is `@core`: a server that conforms to the \
         contract may choose otherwise.\n\n## Sources\n\n| key | what |\n|---|---|\n",
    );
    for source in &facts.sources {
        page.push_str(&format!("| {} | {} |\n", source.key, source.what));
    }
    let mut topics: Vec<&str> = Vec::new();
    for fact in &facts.facts {
        if !topics.contains(&fact.topic.as_str()) {
            topics.push(&fact.topic);
        }
    }
    for topic in topics {
        page.push_str(&format!("\n## {topic}\n"));
        for fact in facts.facts.iter().filter(|f| f.topic == topic) {
            page.push_str(&format!("\n### {}\n\n{}\n\n", fact.id, fact.says));
            page.push_str(&format!("Sources: {}.", fact.sources.join("; ")));
            let resting: Vec<&str> = requirements
                .all()
                .iter()
                .filter(|r| r.facts.contains(&fact.id))
                .map(|r| r.id.as_str())
                .collect();
            if !resting.is_empty() {
                page.push_str(&format!(
                    " Requirements resting on it: {}.",
                    resting.join(", ")
                ));
            }
            page.push('\n');
            for forbidden in &fact.forbids {
                page.push_str(&format!(
                    "\n- No scenario resting on it takes the step \"{}\"{}: {}.\n",
                    forbidden.step,
                    forbidden
                        .within
                        .as_ref()
                        .map(|w| format!(" where it takes \"{w}\""))
                        .unwrap_or_default(),
                    forbidden.why
                ));
            }
        }
    }
    let covered = facts.coverage();
    page.push_str(&format!(
        "\n## The real service's operations\n\nEvery operation of the real service's REST API \
         its documentation's summary lists (paths after `/api/v1/`, as it writes them), and \
         what covers it: the spec's operation, the requirements whose scenarios call it, \
         whether the sandbox serves it. {} operations: {} in the spec, {} called by \
         scenarios, {} served by the sandbox (`payconf plan` says the same). A test holds \
         each row to the spec, the features and the sandbox.\n\n\
         | operation | method and path | spec | scenarios | sandbox | not yet |\n\
         |---|---|---|---|---|---|\n",
        covered.operations, covered.in_spec, covered.with_scenarios, covered.served
    ));
    for operation in &facts.operations {
        page.push_str(&format!(
            "| {} | `{} {}` | {} | {} | {} | {} |\n",
            operation.name,
            operation.method,
            operation.path,
            operation
                .spec
                .as_deref()
                .map_or_else(|| "no".to_owned(), |id| format!("`{id}`")),
            if operation.requirements.is_empty() {
                "none".to_owned()
            } else {
                operation.requirements.join(", ")
            },
            if operation.sandbox { "served" } else { "no" },
            operation.not_yet.as_deref().unwrap_or("")
        ));
    }
    page.push_str(
        "\n## By requirement\n\nEvery requirement of the reference and robustness profiles, \
         with the facts it rests on (none: the reference profile's own choice, or a reading \
         of the contract alone).\n\n| requirement | profile | facts |\n|---|---|---|\n",
    );
    for requirement in requirements.all() {
        if requirement.profile == Profile::Core {
            continue;
        }
        let facts: Vec<String> = requirement
            .facts
            .iter()
            .map(|id| format!("[{id}](#{})", id.to_lowercase()))
            .collect();
        page.push_str(&format!(
            "| {} | {} | {} |\n",
            requirement.id,
            requirement.profile.name(),
            if facts.is_empty() {
                "none".to_owned()
            } else {
                facts.join(", ")
            }
        ));
    }
    page
}

#[test]
fn the_real_service_page_is_what_the_facts_generate() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/real-service.md");
    let page = page(&facts(), &requirements());
    if std::env::var_os("PAYCONF_WRITE_DOCS").is_some() {
        std::fs::write(path, &page).expect("docs/real-service.md written");
    }
    let written = std::fs::read_to_string(path).expect("docs/real-service.md reads");
    assert!(
        written == page,
        "docs/real-service.md is out of date with spec/real-service.yaml; regenerate it with \
         PAYCONF_WRITE_DOCS=1 cargo test --test harness real_service"
    );
}

/// A requirement that rests on the real service names facts that exist,
/// and its `section` cites each.
#[test]
fn every_requirement_resting_on_the_real_service_names_facts_that_exist() {
    let facts = facts();
    let mut wrong = Vec::new();
    for requirement in requirements().all() {
        if requirement.source == Some(Source::RealService) && requirement.facts.is_empty() {
            wrong.push(format!(
                "{}: rests on the real service and names no fact",
                requirement.id
            ));
        }
        for id in &requirement.facts {
            if facts.get(id).is_none() {
                wrong.push(format!("{}: names {id}, which is no fact", requirement.id));
            }
            if requirement.source == Some(Source::RealService)
                && !requirement.section.contains(id.as_str())
            {
                wrong.push(format!(
                    "{}: its section does not cite {id}",
                    requirement.id
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What a scenario expects that contradicts a fact its requirements rest
/// on, said as `location: what (fact)`.
fn contradictions(
    features: &Features,
    requirements: &Requirements,
    facts: &RealService,
) -> Vec<String> {
    let mut found = Vec::new();
    for feature in features.features() {
        for (rule, scenario) in scenarios_with_rules(feature) {
            let tags = effective_tags(feature, rule, scenario);
            let mut resting: Vec<&Fact> = payconf_spec::features::requirement_ids(&tags)
                .filter_map(|id| requirements.get(&id))
                .flat_map(|r| r.facts.iter())
                .filter_map(|id| facts.get(id))
                .collect();
            resting.sort_by(|a, b| a.id.cmp(&b.id));
            resting.dedup_by(|a, b| a.id == b.id);
            if resting.is_empty() {
                continue;
            }
            let steps: Vec<&str> = scenario.steps.iter().map(|s| s.value.as_str()).collect();
            let place = format!("{}: {}", feature.name, scenario.name);
            let mut refused_with = None;
            for step in &steps {
                if let Some((status, code)) = refusal(step) {
                    refused_with = Some(code.clone());
                    for fact in &resting {
                        for claim in fact.codes.iter().filter(|c| c.code == code) {
                            if claim.http != status {
                                found.push(format!(
                                    "{place}: expects code {code} with HTTP {status}, and {} gives it HTTP {}",
                                    fact.id, claim.http
                                ));
                            }
                        }
                    }
                }
                if let Some(held) = step
                    .strip_prefix("the error description says \"")
                    .and_then(|rest| rest.split_once('"'))
                    .map(|(held, _)| held)
                {
                    let recorded = resting.iter().flat_map(|f| &f.codes).any(|claim| {
                        Some(&claim.code) == refused_with.as_ref()
                            && claim
                                .description
                                .as_deref()
                                .is_some_and(|d| same_words(d, held))
                    });
                    if !recorded {
                        found.push(format!(
                            "{place}: holds the description {held:?}, which no fact it rests on records for its code"
                        ));
                    }
                }
                for fact in &resting {
                    for forbidden in &fact.forbids {
                        let within = forbidden
                            .within
                            .as_ref()
                            .is_none_or(|w| steps.iter().any(|s| wildcard_match(w, s)));
                        if within && wildcard_match(&forbidden.step, step) {
                            found.push(format!(
                                "{place}: takes the step {step:?}, which {} forbids: {}",
                                fact.id, forbidden.why
                            ));
                        }
                    }
                }
            }
        }
    }
    found
}

/// `(status, code)` of a step `the request is refused with HTTP N and code "C"`.
fn refusal(step: &str) -> Option<(u16, String)> {
    let rest = step.strip_prefix("the request is refused with HTTP ")?;
    let (status, code) = rest.split_once(" and code \"")?;
    Some((status.parse().ok()?, code.trim_end_matches('"').to_owned()))
}

/// Whether two descriptions have the same words, in any order and case.
fn same_words(a: &str, b: &str) -> bool {
    let words = |text: &str| -> BTreeSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    words(a) == words(b)
}

#[test]
fn no_scenario_contradicts_the_facts_its_requirements_rest_on() {
    let features = Features::embedded().expect("the features parse");
    let found = contradictions(&features, &requirements(), &facts());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The check can fail: the readings it corrected, as the features once
/// wrote them, each contradict the fact they rest on.
#[test]
fn the_readings_that_contradicted_the_real_service_are_each_found() {
    let text = r#"Feature: Old readings
  @reference @req:REF-AUTH-03
  Scenario: A submit without a payment token is refused with 1171
    When the buyer pays with the card not enrolled in 3-D Secure without a payment token
    Then the request is refused with HTTP 403 and code "1171"
    And the error description names "paymentToken"

  @reference @req:REF-AUTH-01
  Scenario: A create without the header is refused with 1171 and HTTP 400
    When the merchant creates a payment without the Authorization header
    Then the request is refused with HTTP 400 and code "1171"
    And the error description says "header absent", in any order of its words

  @reference @req:REF-PAY-04
  Scenario: Return addresses passed to submit replace the back-office pages
    When the buyer pays with the card not enrolled in 3-D Secure, returning to "https://shop.example/thanks" or "https://shop.example/sorry"
    Then the redirect address is "https://shop.example/thanks"

  @robustness @req:ROB-02
  Scenario: A token waiting for issuer authentication submitted again executes nothing
    When the buyer pays with the card enrolled in 3-D Secure
    Then the transaction error code is "8006"
    When the buyer pays again with the same payment token
    Then the answer executes nothing

  @robustness @req:ROB-05
  Scenario: Two presses of pay at once execute the payment at most once
    When the buyer presses pay twice at once on the payment page, with the card not enrolled in 3-D Secure and with the declined card
    Then the presses do not land on both the success page and the failure page
"#;
    let dir = std::env::temp_dir().join(format!("payconf-old-readings-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a folder");
    std::fs::write(dir.join("old.feature"), text).expect("written");
    let features = Features::load_dir(&dir).expect("the old readings parse");
    let _ = std::fs::remove_dir_all(&dir);
    let found = contradictions(&features, &requirements(), &facts());
    for expected in [
        "A submit without a payment token is refused with 1171: takes the step \"the error description names \\\"paymentToken\\\"\", which RS-DESCRIPTIONS forbids",
        "expects code 1171 with HTTP 400, and RS-ERR-1171 gives it HTTP 403",
        "holds the description \"header absent\", which no fact it rests on records",
        "Return addresses passed to submit replace the back-office pages: takes the step \"the redirect address is \\\"https://shop.example/thanks\\\"\", which RS-RETURN-PARAMETERS forbids",
        "A token waiting for issuer authentication submitted again executes nothing: takes the step \"the answer executes nothing\", which RS-TOKEN-VALIDITY forbids",
        "Two presses of pay at once execute the payment at most once: takes the step \"the presses do not land on both the success page and the failure page\", which RS-TOKEN-VALIDITY forbids",
    ] {
        assert!(
            found.iter().any(|f| f.contains(expected)),
            "{expected}\nnot among:\n{}",
            found.join("\n")
        );
    }
    assert_eq!(found.len(), 6, "{}", found.join("\n"));
}

/// What payconf says of the real service, it says in its own files: no
/// file of the repository cites a path its users do not have (the notes
/// the facts were first gathered in lay outside it).
#[test]
fn no_file_cites_the_notes_outside_the_repository() {
    let outside = ["shared", "contract/"].concat();
    let output = std::process::Command::new("git")
        .args(["grep", "-l", "-I", "-F", &outside, "--", "."])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git runs");
    let citing = String::from_utf8_lossy(&output.stdout);
    assert!(
        citing.trim().is_empty(),
        "these files cite {outside}, which the repository does not hold:\n{citing}"
    );
    // The search itself works: it finds what is there.
    let found = std::process::Command::new("git")
        .args(["grep", "-l", "-F", "RS-TOKEN-VALIDITY", "--", "spec"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git runs");
    assert!(
        String::from_utf8_lossy(&found.stdout).contains("spec/real-service.yaml"),
        "git grep finds nothing in this checkout"
    );
}

/// The spec's path of an operation as the real service's documentation
/// writes it: `/api/v1/` and the path, its trailing slash and the names of
/// its parameters set aside.
fn path_shape(path: &str) -> String {
    path.trim_start_matches("/api/v1/")
        .trim_end_matches('/')
        .split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                "{}"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Each operation of the coverage table is what it claims: the spec's
/// operation at its method and path, requirements that exist and have
/// scenarios, and the sandbox serving it (answering otherwise than 404
/// 9404 and 405) exactly when the table says so; and every API operation
/// of the spec is one of the real service's, in the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_of_the_real_service_is_covered_as_its_table_says() {
    let facts = facts();
    let requirements = requirements();
    let features = Features::embedded().expect("the features load");
    let spec: serde_json::Value =
        serde_yaml_ng::from_str(include_str!("../../spec/openapi.yaml")).expect("the spec loads");
    let mut spec_operations = std::collections::BTreeMap::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("an item") {
            if let Some(id) = operation["operationId"].as_str() {
                spec_operations.insert(id.to_owned(), (method.to_ascii_uppercase(), path.clone()));
            }
        }
    }
    let server =
        payconf_reference::RunningServer::start(payconf_reference::ReferenceConfig::default())
            .await
            .expect("the sandbox");
    let client = payconf_reference::http_client().build().expect("a client");
    let mut wrong = Vec::new();
    for operation in &facts.operations {
        let said = format!("{} {}", operation.method, operation.path);
        if let Some(id) = &operation.spec {
            match spec_operations.get(id) {
                Some((method, path))
                    if *method == operation.method
                        && path_shape(path) == path_shape(&operation.path) => {}
                other => wrong.push(format!("{said}: the spec's {id} is {other:?}")),
            }
        }
        for id in &operation.requirements {
            let known = requirements.all().iter().any(|r| r.id.as_str() == id);
            let tagged = features
                .scenarios()
                .iter()
                .any(|s| s.has_tag(&format!("req:{id}")));
            if !known || !tagged {
                wrong.push(format!("{said}: {id} is no requirement with scenarios"));
            }
        }
        let path = operation
            .path
            .split('/')
            .map(|segment| match segment {
                "{shopLogin}" => payconf_reference::DEFAULT_SHOP_LOGIN,
                s if s.starts_with('{') => "123456789012",
                s => s,
            })
            .collect::<Vec<_>>()
            .join("/");
        let method = reqwest::Method::from_bytes(operation.method.as_bytes()).expect("a method");
        let answer = client
            .request(
                method,
                server
                    .base_url
                    .join(&format!("api/v1/{path}"))
                    .expect("a URL"),
            )
            .header(
                "Authorization",
                format!("apikey {}", payconf_reference::DEFAULT_API_KEY),
            )
            .header("Content-Type", "application/json")
            .body("{}")
            .send()
            .await
            .expect("answered");
        let status = answer.status().as_u16();
        let body: serde_json::Value = answer.json().await.unwrap_or_default();
        let served = !(status == 405 || (status == 404 && body["error"]["code"] == "9404"));
        if served != operation.sandbox {
            wrong.push(format!(
                "{said}: the table says {}, the sandbox answers {status} {}",
                if operation.sandbox {
                    "served"
                } else {
                    "not served"
                },
                body["error"]["code"]
            ));
        }
    }
    for (id, (method, path)) in &spec_operations {
        if path.starts_with("/api/")
            && !facts
                .operations
                .iter()
                .any(|o| o.spec.as_deref() == Some(id))
        {
            wrong.push(format!(
                "the spec's {id} ({method} {path}) is not in the table"
            ));
        }
    }
    let _ = server.shutdown().await;
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
