//! Hostile request bodies for the `@robustness` profile, generated and
//! shrunk with proptest: a valid body of the operation with one mutation
//! (truncated or garbled JSON, deep nesting, a wrong type, a huge string,
//! non-ASCII and control characters, unknown fields, a duplicate key).
//!
//! A run's bodies follow from its seed alone: the `i`-th body of a seed is
//! the same in every run, so a finding replays exactly (`--seed`), and its
//! proptest value tree can be rebuilt to shrink it to a small failing body.

use proptest::{
    prelude::*,
    strategy::{BoxedStrategy, ValueTree},
    test_runner::{Config, RngAlgorithm, TestRng, TestRunner},
};
use serde_json::{Map, Value};

/// One way of breaking a valid body.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// The body cut short after this many thousandths of its length.
    Truncate(u16),
    /// These bytes written over the body at this many thousandths of it.
    Garble(u16, Vec<u8>),
    /// A field's value nested this deep in arrays (or objects).
    Nest {
        /// Which of the operation's fields.
        field: usize,
        /// How many levels.
        depth: usize,
        /// Objects instead of arrays.
        objects: bool,
    },
    /// A field's value of another JSON type.
    WrongType(usize, Value),
    /// A field's value a string this long.
    Huge(usize, usize),
    /// A field's value this text: non-ASCII, control characters.
    Text(usize, String),
    /// Fields the contract does not name, added.
    Unknown(Vec<(String, Value)>),
    /// A field written twice, the second time with this value.
    Duplicate(usize, String),
}

impl Mutation {
    /// How deep it nests a value, when it nests one.
    pub fn nesting(&self) -> Option<usize> {
        match self {
            Self::Nest { depth, .. } => Some(*depth),
            _ => None,
        }
    }
}

/// The hostile bodies of one operation.
#[derive(Clone, Debug)]
pub struct Generator {
    /// A valid body of the operation.
    base: Value,
    /// JSON pointers of the fields mutations may touch.
    fields: Vec<String>,
    strategy: BoxedStrategy<Mutation>,
}

/// Text no parser should stumble on: accents, CJK, right-to-left, emoji,
/// a byte-order mark, NUL and other control characters, lone combining marks.
const TEXTS: [&str; 10] = [
    "Zoë Ångström-Søren",
    "支付测试 顾客",
    "مرحبا بالعالم",
    "💳🧾✅ 𝔭𝔞𝔶",
    "\u{feff}BOM-prefixed",
    "nul\u{0}inside",
    "tab\tnew\nline\rcarriage\u{1b}[31mescape",
    "\u{301}\u{302}combining first",
    "\u{202e}override",
    "\u{ffff}\u{fffe} non-characters",
];

fn mutation_strategy(fields: usize) -> BoxedStrategy<Mutation> {
    let field = 0..fields;
    let wrong = prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        Just(serde_json::json!([])),
        Just(serde_json::json!({})),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
    ];
    let unknown =
        proptest::collection::vec(("[a-zA-Z_]{1,12}", any::<i64>()), 1..8).prop_map(|pairs| {
            Mutation::Unknown(
                pairs
                    .into_iter()
                    .map(|(k, v)| (format!("x_{k}"), Value::from(v)))
                    .collect(),
            )
        });
    prop_oneof![
        (0u16..1000).prop_map(Mutation::Truncate),
        (0u16..1000, proptest::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, bytes)| Mutation::Garble(at, bytes)),
        (field.clone(), 1usize..10_000, any::<bool>()).prop_map(|(field, depth, objects)| {
            Mutation::Nest {
                field,
                depth,
                objects,
            }
        }),
        (field.clone(), wrong).prop_map(|(f, v)| Mutation::WrongType(f, v)),
        (field.clone(), 1_000usize..60_000).prop_map(|(f, n)| Mutation::Huge(f, n)),
        (
            field.clone(),
            proptest::sample::select(TEXTS.to_vec()),
            "\\PC{0,24}"
        )
            .prop_map(|(f, t, more)| Mutation::Text(f, format!("{t}{more}"))),
        unknown,
        (field, "[a-z]{0,8}").prop_map(|(f, v)| Mutation::Duplicate(f, v)),
    ]
    .boxed()
}

/// Where a value is spliced into the serialised body.
const HOLE: &str = "\u{1}payconf-hole\u{1}";

impl Generator {
    /// Bodies of `base`, mutating the fields at these JSON pointers.
    pub fn new(base: Value, fields: &[&str]) -> Self {
        Self {
            base,
            fields: fields.iter().map(|f| (*f).to_owned()).collect(),
            strategy: mutation_strategy(fields.len().max(1)),
        }
    }

    /// The value trees of the first `count` bodies of `seed`, in order.
    pub fn trees(&self, seed: u64, count: usize) -> Vec<Box<dyn ValueTree<Value = Mutation>>> {
        let mut runner = runner(seed);
        (0..count)
            .map(|_| {
                self.strategy
                    .new_tree(&mut runner)
                    .map(|tree| Box::new(tree) as Box<dyn ValueTree<Value = Mutation>>)
                    .unwrap_or_else(|_| unreachable!("these strategies reject nothing"))
            })
            .collect()
    }

    /// The `index`-th body of `seed`, its tree ready to shrink.
    pub fn tree(&self, seed: u64, index: usize) -> Box<dyn ValueTree<Value = Mutation>> {
        self.trees(seed, index + 1)
            .pop()
            .unwrap_or_else(|| unreachable!("one tree at least"))
    }

    /// What a mutation does, for a person.
    pub fn describe(&self, mutation: &Mutation) -> String {
        let field = |i: &usize| self.fields.get(*i).map_or("?", String::as_str).to_owned();
        match mutation {
            Mutation::Truncate(_) => "the JSON cut short".to_owned(),
            Mutation::Garble(..) => "bytes of the JSON overwritten".to_owned(),
            Mutation::Nest {
                field: f,
                depth,
                objects,
            } => format!(
                "{} nested {depth} deep in {}",
                field(f),
                if *objects { "objects" } else { "arrays" }
            ),
            Mutation::WrongType(f, value) => {
                let kind = match value {
                    Value::Null => "null",
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::String(_) => "a string",
                    Value::Array(_) => "an array",
                    Value::Object(_) => "an object",
                };
                format!("{} as {kind}", field(f))
            }
            Mutation::Huge(f, len) => format!("{} a string of {len} characters", field(f)),
            Mutation::Text(f, _) => format!("{} with non-ASCII or control characters", field(f)),
            Mutation::Unknown(pairs) => {
                format!("{} fields the contract does not name", pairs.len())
            }
            Mutation::Duplicate(f, _) => format!("{} written twice", field(f)),
        }
    }

    /// The body a mutation makes of the base.
    pub fn render(&self, mutation: &Mutation) -> Vec<u8> {
        let field = |i: usize| self.fields.get(i).map_or("", String::as_str);
        let with = |pointer: &str, value: Value| {
            let mut body = self.base.clone();
            if let Some(slot) = body.pointer_mut(pointer) {
                *slot = value;
            }
            body
        };
        let valid = || serde_json::to_vec(&self.base).unwrap_or_default();
        let at = |len: usize, thousandths: u16| len * usize::from(thousandths) / 1000;
        match mutation {
            Mutation::Truncate(cut) => {
                let mut body = valid();
                body.truncate(at(body.len(), *cut));
                body
            }
            Mutation::Garble(place, bytes) => {
                let mut body = valid();
                let start = at(body.len(), *place);
                for (i, byte) in bytes.iter().enumerate() {
                    if let Some(slot) = body.get_mut(start + i) {
                        *slot = *byte;
                    }
                }
                body
            }
            Mutation::Nest {
                field: f,
                depth,
                objects,
            } => {
                let (open, close) = if *objects {
                    ("{\"a\":", "}")
                } else {
                    ("[", "]")
                };
                let nested = format!("{}1{}", open.repeat(*depth), close.repeat(*depth));
                splice(&with(field(*f), Value::from(HOLE)), &nested)
            }
            Mutation::WrongType(f, value) => {
                serde_json::to_vec(&with(field(*f), value.clone())).unwrap_or_default()
            }
            Mutation::Huge(f, len) => {
                serde_json::to_vec(&with(field(*f), Value::from("A".repeat(*len))))
                    .unwrap_or_default()
            }
            Mutation::Text(f, text) => {
                serde_json::to_vec(&with(field(*f), Value::from(text.as_str()))).unwrap_or_default()
            }
            Mutation::Unknown(pairs) => {
                let mut body = self.base.clone();
                if let Some(object) = body.as_object_mut() {
                    object.extend(pairs.iter().cloned());
                }
                serde_json::to_vec(&body).unwrap_or_default()
            }
            Mutation::Duplicate(f, value) => {
                // The field's top-level name, written a second time last.
                let name = field(*f)
                    .trim_start_matches('/')
                    .split('/')
                    .next()
                    .unwrap_or("");
                let mut text = serde_json::to_string(&self.base).unwrap_or_default();
                if text.ends_with('}') && !name.is_empty() {
                    text.pop();
                    let pair = Map::from_iter([(name.to_owned(), Value::from(value.as_str()))]);
                    let pair = serde_json::to_string(&Value::Object(pair)).unwrap_or_default();
                    text.push(',');
                    text.push_str(pair.trim_start_matches('{'));
                }
                text.into_bytes()
            }
        }
    }
}

/// The body with the string [`HOLE`] replaced by raw JSON text.
fn splice(body: &Value, raw: &str) -> Vec<u8> {
    let text = serde_json::to_string(body).unwrap_or_default();
    let hole = serde_json::to_string(HOLE).unwrap_or_default();
    text.replacen(&hole, raw, 1).into_bytes()
}

/// A runner whose random numbers follow from the seed alone.
fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let word = seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(u32::try_from(i).unwrap_or(0) * 16)
            ^ u64::try_from(i).unwrap_or(0);
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// What a generated body's answer must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// payment/create: JSON with the envelope.
    Create,
    /// payment/submit, with a card that is not one: JSON with the
    /// envelope, and no payment executed.
    Submit,
}

impl Operation {
    /// `create` or `submit`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Submit => "submit",
        }
    }
}

/// The hostile bodies sent in a scenario, and how each was answered.
#[derive(Debug)]
pub struct HostileRun {
    /// What the bodies were sent to.
    pub operation: Operation,
    /// What generated them, from the run's seed.
    pub generator: Generator,
    /// The token the submits carried.
    pub token: Option<String>,
    /// Why each failing body failed, by its index.
    pub findings: Vec<(usize, String)>,
    /// How many were sent.
    pub sent: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generator() -> Generator {
        Generator::new(
            serde_json::json!({"shopLogin": "S", "amount": "1.00", "currency": "EUR", "shopTransactionID": "t"}),
            &["/shopLogin", "/amount", "/currency", "/shopTransactionID"],
        )
    }

    #[test]
    fn a_seed_gives_the_same_bodies_every_time() {
        let g = generator();
        let bodies = |seed| {
            g.trees(seed, 50)
                .iter()
                .map(|t| g.render(&t.current()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bodies(7), bodies(7));
        assert_ne!(bodies(7), bodies(8));
        assert_eq!(g.render(&g.tree(7, 30).current()), bodies(7)[30]);
    }

    #[test]
    fn the_bodies_cover_every_kind_of_mutation() {
        let g = generator();
        let kinds: std::collections::BTreeSet<String> = g
            .trees(1, 300)
            .iter()
            .map(|t| format!("{:?}", t.current()))
            .map(|d| d.split(['(', ' ']).next().unwrap_or("").to_owned())
            .collect();
        assert_eq!(kinds.len(), 8, "{kinds:?}");
    }

    #[test]
    fn deep_nesting_and_duplicates_are_written_as_raw_json() {
        let g = generator();
        let nested = g.render(&Mutation::Nest {
            field: 1,
            depth: 3,
            objects: false,
        });
        assert!(String::from_utf8_lossy(&nested).contains(r#""amount":[[[1]]]"#));
        let twice = String::from_utf8(g.render(&Mutation::Duplicate(0, "x".into()))).expect("text");
        assert_eq!(twice.matches("\"shopLogin\"").count(), 2, "{twice}");
    }

    #[test]
    fn shrinking_makes_a_failing_body_smaller() {
        let g = generator();
        // Find a huge string and shrink it while it stays over 1 000 bytes.
        let mut tree = (0..)
            .map(|i| g.tree(3, i))
            .find(|t| matches!(t.current(), Mutation::Huge(..)))
            .expect("a huge string among the bodies");
        let fails = |m: &Mutation| g.render(m).len() > 1_000;
        let start = g.render(&tree.current()).len();
        while tree.simplify() {
            if !fails(&tree.current()) && !tree.complicate() {
                break;
            }
        }
        let end = g.render(&tree.current()).len();
        assert!(end < start, "{end} < {start}");
    }
}
