//! The payment page's card form: its fields, what the buyer typed checked
//! field by field with the rules `payment/submit` applies (so the page and
//! the API refuse the same cards), and the form drawn again with each
//! problem beside its field and what the buyer typed kept.

use crate::{
    card::{CardNumber, CardNumberError, Expiry, ExpiryError, cvv_well_formed},
    pages::escape,
    request::submit::{current_year_month, email_well_formed, name_well_formed},
};

/// A field of the card form.
pub struct Field {
    /// The input's name, which the form sends.
    pub name: &'static str,
    /// Its label.
    label: &'static str,
    /// Its `autocomplete` token, so the buyer's browser fills it.
    autocomplete: &'static str,
    /// Its `type`.
    kind: &'static str,
    /// Its `inputmode`, for a phone's keyboard.
    input_mode: &'static str,
}

/// The card form's fields, in the order the page shows them.
pub const FIELDS: [Field; 6] = [
    Field {
        name: "cardNumber",
        label: "Card number",
        autocomplete: "cc-number",
        kind: "text",
        input_mode: "numeric",
    },
    Field {
        name: "expMonth",
        label: "Expiry month (MM)",
        autocomplete: "cc-exp-month",
        kind: "text",
        input_mode: "numeric",
    },
    Field {
        name: "expYear",
        label: "Expiry year (YY)",
        autocomplete: "cc-exp-year",
        kind: "text",
        input_mode: "numeric",
    },
    Field {
        name: "cvv",
        label: "Security code",
        autocomplete: "cc-csc",
        kind: "text",
        input_mode: "numeric",
    },
    Field {
        name: "holder",
        label: "Name on the card",
        autocomplete: "cc-name",
        kind: "text",
        input_mode: "text",
    },
    Field {
        name: "email",
        label: "E-mail for the receipt",
        autocomplete: "email",
        kind: "email",
        input_mode: "email",
    },
];

/// What the buyer typed into the card form, by field name.
#[derive(Debug, Default)]
pub struct Entered {
    values: Vec<(&'static str, String)>,
}

/// A field the page refuses, and why, in words for the buyer.
pub type Problem = (&'static str, &'static str);

impl Entered {
    /// The buyer the form names: the card holder and the e-mail address.
    pub fn buyer(&self) -> crate::store::Buyer {
        crate::store::Buyer {
            name: self.value("holder").trim().into(),
            email: self.value("email").trim().into(),
        }
    }

    /// The card form's fields among a form's pairs; others are not kept.
    pub fn from_pairs(pairs: &[(String, String)]) -> Self {
        let values = FIELDS
            .iter()
            .map(|field| {
                let value = pairs
                    .iter()
                    .find(|(name, _)| name == field.name)
                    .map(|(_, value)| value.clone())
                    .unwrap_or_default();
                (field.name, value)
            })
            .collect();
        Self { values }
    }

    /// What was typed into a field, as typed.
    pub fn value(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// The card, when every field passes; else each field's problem.
    pub fn check(&self) -> Result<CardNumber, Vec<Problem>> {
        let mut problems = Vec::new();
        // People type a card number in groups: spaces and dashes go.
        let digits: String = self
            .value("cardNumber")
            .chars()
            .filter(|c| !matches!(c, ' ' | '-'))
            .collect();
        let number = match CardNumber::parse(&digits) {
            Ok(number) => Some(number),
            Err(_) if digits.is_empty() => {
                problems.push(("cardNumber", "Enter the card number."));
                None
            }
            Err(CardNumberError::NotNumeric) => {
                problems.push(("cardNumber", "A card number has digits only."));
                None
            }
            Err(CardNumberError::Length) => {
                problems.push(("cardNumber", "A card number has 12 to 19 digits."));
                None
            }
            Err(CardNumberError::CheckDigit) => {
                problems.push((
                    "cardNumber",
                    "This is not a valid card number: check its digits.",
                ));
                None
            }
        };
        match Expiry::parse(
            self.value("expMonth").trim(),
            self.value("expYear").trim(),
            current_year_month(),
        ) {
            Ok(_) => {}
            Err(ExpiryError::Month) => {
                problems.push(("expMonth", "Enter the month as two digits, 01 to 12."));
            }
            Err(ExpiryError::Year) => {
                problems.push(("expYear", "Enter the year as two digits."));
            }
            Err(ExpiryError::Expired) => problems.push(("expYear", "This card has expired.")),
        }
        if !cvv_well_formed(self.value("cvv").trim()) {
            problems.push((
                "cvv",
                "Enter the 3 or 4 digit security code from the back of the card.",
            ));
        }
        if !name_well_formed(self.value("holder")) {
            problems.push(("holder", "Enter the name as it is written on the card."));
        }
        if !email_well_formed(self.value("email").trim()) {
            problems.push((
                "email",
                "Enter an e-mail address, such as name@example.com.",
            ));
        }
        match number {
            Some(number) if problems.is_empty() => Ok(number),
            _ => Err(problems),
        }
    }
}

/// The card form: `hidden` names the payment; what was `entered` is kept,
/// but for the card's number and security code, and each of its
/// `problems` is shown beside its field. The security code is never sent
/// back to the browser (PCI DSS: it is not kept once used); the number
/// only masked, as the field's placeholder, and typed again.
pub fn card_form(
    action: &str,
    hidden: &str,
    pay_label: &str,
    entered: &Entered,
    problems: &[Problem],
) -> String {
    let mut fields = String::new();
    for field in &FIELDS {
        let (value, placeholder) = match field.name {
            "cvv" => (String::new(), String::new()),
            "cardNumber" => {
                let digits: String = entered
                    .value(field.name)
                    .chars()
                    .filter(char::is_ascii_digit)
                    .collect();
                let masked = (digits.len() >= 12).then(|| crate::card::mask_pan(&digits));
                let placeholder = masked.map_or_else(String::new, |m| {
                    format!(r#" placeholder="{m}" aria-description="type the number again""#)
                });
                (String::new(), placeholder)
            }
            _ => (escape(entered.value(field.name)), String::new()),
        };
        let problem = problems.iter().find(|(name, _)| *name == field.name);
        let (invalid, said) = match problem {
            Some((name, why)) => (
                format!(r#" aria-invalid="true" aria-describedby="{name}-error""#),
                format!(r#"<p class="error" id="{name}-error">{}</p>"#, escape(why)),
            ),
            None => (String::new(), String::new()),
        };
        fields.push_str(&format!(
            r#"<label for="{name}">{label}</label>
<input type="{kind}" id="{name}" name="{name}" value="{value}"{placeholder} inputmode="{mode}" autocomplete="{auto}" required{invalid}>
{said}"#,
            name = field.name,
            label = field.label,
            kind = field.kind,
            mode = field.input_mode,
            auto = field.autocomplete,
        ));
    }
    let summary = if problems.is_empty() {
        String::new()
    } else {
        r#"<p class="error" role="alert">The payment was not made: check the fields marked below.</p>
"#
        .to_owned()
    };
    format!(
        r#"{summary}<form method="post" action="{action}" id="card" novalidate>
{hidden}
{fields}<div><button type="submit" name="method" value="card">{pay}</button></div>
</form>"#,
        pay = escape(pay_label),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entered(pairs: &[(&str, &str)]) -> Entered {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        Entered::from_pairs(&pairs)
    }

    const GOOD: [(&str, &str); 6] = [
        ("cardNumber", "4775 7188 0000 2026"),
        ("expMonth", "05"),
        ("expYear", "99"),
        ("cvv", "999"),
        ("holder", "Ada Buyer"),
        ("email", "ada@example.com"),
    ];

    #[test]
    fn a_card_typed_in_groups_passes() {
        let card = entered(&GOOD).check().expect("a valid card");
        assert_eq!(card.masked(), "477571******2026");
    }

    #[test]
    fn each_field_has_its_own_problem_and_the_rest_pass() {
        for (field, bad) in [
            ("cardNumber", "4775718800002027"),
            ("cardNumber", "1234"),
            ("cardNumber", ""),
            ("expMonth", "13"),
            ("expYear", "1"),
            ("expYear", "00"),
            ("cvv", ""),
            ("holder", " "),
            ("email", "ada"),
        ] {
            let mut pairs = GOOD.to_vec();
            for pair in &mut pairs {
                if pair.0 == field {
                    pair.1 = bad;
                }
            }
            let problems = entered(&pairs).check().expect_err(bad);
            assert_eq!(
                problems.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
                [field],
                "{field} = {bad:?}"
            );
        }
    }

    #[test]
    fn the_form_keeps_what_was_typed_and_says_each_problem_beside_its_field() {
        let typed = entered(&[
            ("cardNumber", "4775 7188 0000 2027"),
            ("cvv", "987"),
            ("holder", "Ada\"><script>"),
            ("email", "ada@example.com"),
        ]);
        let html = card_form(
            "pagam.aspx",
            "",
            "Pay",
            &typed,
            &[("cardNumber", "Enter the card number.")],
        );
        assert!(
            html.contains(r#"value="Ada&quot;&gt;&lt;script&gt;""#),
            "{html}"
        );
        assert!(html.contains(r#"value="ada@example.com""#));
        // The security code never goes back; the number only masked.
        assert!(!html.contains("987"), "{html}");
        assert!(!html.contains("71880000"), "{html}");
        assert!(html.contains(r#"placeholder="477571******2027""#), "{html}");
        assert!(html.contains(r#"aria-describedby="cardNumber-error""#));
        assert!(
            html.contains(r#"<p class="error" id="cardNumber-error">Enter the card number.</p>"#)
        );
        assert!(!html.contains("expMonth-error"));
    }
}
