//! The insert preview's pane: one node's substituted config and inputs with every
//! substituted span highlighted, plus the token lints. What the preview holds (the
//! expansion and its ghost nodes) is computed GUI-free in `editor::preview`.

use super::theme;
use crate::editor::substituted::{self, Span};
use crate::error::{Finding, code};
use crate::expand::Expansion;
use crate::pack::Chain;
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, RichText};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// The preview pane: the selected node's substituted config and inputs, and the lints.
/// Values of the parameters named in `invalid` are highlighted as errors, not as substituted.
pub fn show_pane(ui: &mut egui::Ui, chain: &Chain, exp: &Expansion, selected: &mut usize, invalid: &HashSet<String>) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Node").color(theme::TEXT_DIM));
        for (i, (_, new_id)) in exp.id_map.iter().enumerate() {
            let short = new_id.strip_prefix(&exp.prefix).unwrap_or(new_id);
            ui.selectable_value(selected, i, short).on_hover_text(new_id.as_str());
        }
    });
    let Some(node) = exp.nodes.get(*selected) else { return };
    let original = chain.nodes().get(*selected);
    ui.label(RichText::new(exp.id_map[*selected].1.as_str()).monospace().color(theme::GHOST));
    let font = FontId::monospace(12.0);
    for key in ["config", "inputs"] {
        let Some(value) = node.get(key) else { continue };
        ui.label(RichText::new(key).strong());
        let mut job = LayoutJob::default();
        let orig = original.and_then(|o| o.get(key));
        let params = Params { values: &exp.params, invalid };
        render(&mut job, orig, value, &params, &font);
        // Long values scroll sideways: wrapping would break the JSON layout.
        let frame = egui::Frame::new().fill(ui.visuals().extreme_bg_color).inner_margin(6.0).corner_radius(4.0);
        frame.show(ui, |ui| {
            egui::ScrollArea::horizontal().id_salt(("cs-preview-json", key)).show(ui, |ui| {
                ui.add(egui::Label::new(job).extend());
            });
        });
    }
    ui.add_space(4.0);
    ui.horizontal(|ui| {
        let swatch = egui::Frame::new().fill(theme::SUBSTITUTED_BG).inner_margin(egui::vec2(4.0, 0.0));
        swatch.show(ui, |ui| ui.label(RichText::new("value").monospace().color(Color32::WHITE)));
        ui.label(RichText::new("= substituted from a parameter").small().color(theme::TEXT_DIM));
    });
    if !invalid.is_empty() {
        ui.horizontal(|ui| {
            let swatch = egui::Frame::new().fill(theme::INVALID_BG).inner_margin(egui::vec2(4.0, 0.0));
            swatch.show(ui, |ui| ui.label(RichText::new("value").monospace().color(Color32::WHITE)));
            ui.label(RichText::new("= an invalid value (see its field)").small().color(theme::TEXT_DIM));
        });
    }
    token_lints(ui, &exp.warnings);
}

/// Token lints and other expansion warnings, each with its code.
fn token_lints(ui: &mut egui::Ui, warnings: &[Finding]) {
    let lint_codes =
        [code::TOKEN_UNDECLARED, code::PARAM_UNUSED, code::NEAR_TOKEN, code::EMBEDDED_STRUCTURED, code::LEFTOVER_TOKEN];
    let (lints, other): (Vec<&Finding>, Vec<&Finding>) = warnings.iter().partition(|w| lint_codes.contains(&w.code));
    ui.add_space(4.0);
    ui.label(RichText::new(format!("Token lints ({})", lints.len())).strong());
    if lints.is_empty() {
        ui.label(RichText::new("No token problems.").color(theme::TEXT_DIM));
    }
    for w in lints.into_iter().chain(other) {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(w.code).monospace().color(theme::WARN));
            ui.label(&w.message);
            if !w.pointer.is_empty() {
                ui.label(RichText::new(&w.pointer).monospace().small().color(theme::TEXT_DIM));
            }
        });
    }
}

/// The parameter values, and which of them are invalid.
struct Params<'a> {
    values: &'a Map<String, Value>,
    invalid: &'a HashSet<String>,
}

/// Pretty JSON of `new` ([`substituted::spans`]), with the spans that came from parameters
/// highlighted (invalid values apart). `orig` is the same place in the fragment before
/// substitution.
fn render(job: &mut LayoutJob, orig: Option<&Value>, new: &Value, params: &Params<'_>, font: &FontId) {
    let plain = TextFormat::simple(font.clone(), theme::TEXT);
    let key = TextFormat::simple(font.clone(), Color32::from_rgb(150, 190, 255));
    let substituted = TextFormat { background: theme::SUBSTITUTED_BG, color: Color32::WHITE, ..plain.clone() };
    let bad = TextFormat { background: theme::INVALID_BG, color: Color32::WHITE, ..plain.clone() };
    for (text, span) in substituted::spans(orig, new, params.values) {
        let format = match &span {
            Span::Plain => &plain,
            Span::Key => &key,
            Span::Param(name) if params.invalid.contains(name) => &bad,
            Span::Param(_) => &substituted,
        };
        job.append(&text, 0.0, format.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Trust;
    use crate::editor::preview::expand_preview;
    use crate::pack::Pack;
    use crate::pack::bundled;
    use crate::workflow::Workflow;
    use serde_json::json;

    fn triage() -> (Pack, Map<String, Value>) {
        let pack = bundled().packs.into_iter().find(|p| p.chain("support.triage").is_some()).unwrap();
        (pack, json!({"queueName": "billing", "owner": {"email": "a@b.c"}}).as_object().unwrap().clone())
    }

    fn text_of(job: &LayoutJob, highlighted: bool) -> String {
        job.sections
            .iter()
            .filter(|s| (s.format.background == theme::SUBSTITUTED_BG) == highlighted)
            .map(|s| &job.text[s.byte_range.start.0..s.byte_range.end.0])
            .collect()
    }

    #[test]
    fn rendering_reproduces_the_expanded_json_and_marks_substituted_spans() {
        let (pack, values) = triage();
        let wf = Workflow::new("t");
        let chain = pack.chain("support.triage").unwrap();
        let exp = expand_preview(&Trust::default(), &pack, chain, &wf, &values, "ab12", true).unwrap();
        let none = HashSet::new();
        let params = Params { values: &exp.params, invalid: &none };
        for (i, node) in exp.nodes.iter().enumerate() {
            let mut job = LayoutJob::default();
            let font = FontId::monospace(12.0);
            render(&mut job, chain.nodes()[i].get("config"), &node["config"], &params, &font);
            let reparsed: Value = serde_json::from_str(&job.text).unwrap();
            assert_eq!(reparsed, node["config"], "node {i}");
        }
        let config = |params: &Params<'_>| {
            let mut job = LayoutJob::default();
            let font = FontId::monospace(12.0);
            render(&mut job, chain.nodes()[0].get("config"), &exp.nodes[0]["config"], params, &font);
            job
        };
        assert_eq!(text_of(&config(&params), true), "billing25", "queue name and batch size are substituted");
        // An invalid queue name is marked as such, not like the valid batch size.
        let invalid = HashSet::from(["queueName".to_owned()]);
        let job = config(&Params { values: &exp.params, invalid: &invalid });
        let marked = |bg| -> String {
            job.sections
                .iter()
                .filter(|s| s.format.background == bg)
                .map(|s| &job.text[s.byte_range.start.0..s.byte_range.end.0])
                .collect()
        };
        assert_eq!((marked(theme::INVALID_BG), marked(theme::SUBSTITUTED_BG)), ("billing".into(), "25".into()));
    }
}
