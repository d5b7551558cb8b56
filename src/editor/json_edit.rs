//! A subtree of a workflow member being edited as JSON text (the inspector's "Click to edit
//! as JSON"): the text as typed, whether it parses, and the member's new value with the
//! edited subtree put back in place.

use super::document::Target;
use serde_json::Value;

pub struct JsonEdit {
    pub owner: Target,
    pub member: String,
    /// JSON pointer of the subtree inside the member (`""`: the whole member).
    pub pointer: String,
    pub text: String,
    /// Why the text does not parse.
    pub error: Option<String>,
}

impl JsonEdit {
    /// Start editing `value`, found at `pointer` inside `owner`'s `member`.
    pub fn open(owner: Target, member: &str, pointer: &str, value: &Value) -> Self {
        let text = serde_json::to_string_pretty(value).expect("JSON values serialise");
        Self { owner, member: member.to_owned(), pointer: pointer.to_owned(), text, error: None }
    }

    /// Whether this edit is of `owner`'s `member`.
    pub fn is_of(&self, owner: &Target, member: &str) -> bool {
        &self.owner == owner && self.member == member
    }

    /// What is edited, as the editor names it: `config/url`, or `config` for all of it.
    pub fn place(&self) -> String {
        format!("{}{}", self.member, self.pointer)
    }

    /// The text changed: check that it parses.
    pub fn edited(&mut self) {
        self.error = serde_json::from_str::<Value>(&self.text).err().map(|e| format!("not valid JSON: {e}"));
    }

    /// The member's new value: `current` (the member as it is; an empty object when unset)
    /// with the edited subtree replaced. `None` while the text does not parse.
    pub fn applied(&self, current: Option<&Value>) -> Option<Value> {
        let new = serde_json::from_str::<Value>(&self.text).ok()?;
        if self.pointer.is_empty() {
            return Some(new);
        }
        let mut whole = current.cloned().unwrap_or(Value::Object(Default::default()));
        if let Some(slot) = whole.pointer_mut(&self.pointer) {
            *slot = new;
        }
        Some(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_edited_subtree_goes_back_in_place_and_text_that_does_not_parse_applies_nothing() {
        let config = json!({"url": "https://a", "retry": {"max": 3}});
        let mut e = JsonEdit::open(Target::Node("n".into()), "config", "/retry", &config["retry"]);
        assert_eq!(e.text, "{\n  \"max\": 3\n}");
        assert!(e.is_of(&Target::Node("n".into()), "config") && !e.is_of(&Target::Workflow, "config"));
        assert_eq!(e.place(), "config/retry");
        e.text = "{\"max\": ".into();
        e.edited();
        assert!(e.error.as_deref().is_some_and(|m| m.starts_with("not valid JSON")));
        assert_eq!(e.applied(Some(&config)), None);
        e.text = "{\"max\": 5}".into();
        e.edited();
        assert_eq!(e.error, None);
        assert_eq!(e.applied(Some(&config)), Some(json!({"url": "https://a", "retry": {"max": 5}})));
        // The whole member: the text is its value.
        let whole = JsonEdit::open(Target::Workflow, "metadata", "", &json!({}));
        assert_eq!(whole.place(), "metadata");
        assert_eq!(JsonEdit { text: "[1]".into(), ..whole }.applied(None), Some(json!([1])));
    }
}
