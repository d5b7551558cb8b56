//! What an insert will produce, before it happens: ghost nodes on the canvas at the places
//! the splice will put them (with their rewritten ids and edges), and a pane showing the
//! substituted config and inputs of one node with every substituted span highlighted,
//! plus the token lints.
//!
//! Placement comes from a dry-run splice into a copy of the workflow, so the ghosts are
//! exactly where the nodes will land; it only depends on the workflow, so it is redone
//! when the workflow changes, not on every keystroke.

use super::theme;
use crate::catalog::Trust;
use crate::error::{Error, Finding, code};
use crate::expand::jsstring::js_string;
use crate::expand::token::tokens;
use crate::expand::{ExpandOptions, Expansion, chain_id_slug, expand};
use crate::pack::{Chain, Pack};
use crate::params::apply_defaults;
use crate::workflow::{SpliceOptions, Workflow, reparameterise, splice};
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, Pos2, RichText, pos2};
use serde_json::{Map, Value};

/// The preview drawn on the canvas.
#[derive(Debug, Clone)]
pub struct Ghost {
    pub title: String,
    pub nodes: Vec<GhostNode>,
    pub edges: Vec<GhostEdge>,
    pub selected: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct GhostNode {
    pub id: String,
    pub name: String,
    pub type_id: String,
    pub pos: Pos2,
}

#[derive(Debug, Clone)]
pub struct GhostEdge {
    pub from: GhostEnd,
    pub to: GhostEnd,
}

#[derive(Debug, Clone)]
pub enum GhostEnd {
    Ghost(usize),
    Parent(String),
}

/// The parent edge a tile was dropped on: the chain replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropEdge {
    pub id: String,
    pub source: String,
    pub target: String,
}

/// The splice options for an insert: the preview and the real insert use this one
/// function, so the ghosts stand exactly where the nodes will go.
pub fn splice_options(at: (f64, f64), on_edge: Option<&DropEdge>) -> SpliceOptions {
    SpliceOptions {
        at: Some(at),
        between: on_edge.map(|e| (e.source.clone(), e.target.clone())),
        replace_edge: on_edge.map(|e| e.id.clone()),
    }
}

/// Where an expansion goes.
#[derive(Debug, Clone)]
pub enum Placement {
    /// A new instance at a drop point, optionally replacing the edge it was dropped on.
    Insert { at: (f64, f64), on_edge: Option<DropEdge> },
    /// An existing instance, re-expanded in place.
    Existing { key: String },
}

/// The expansion options the editor uses for every preview and every insert, so what is
/// previewed is what is inserted, and both match `chainsmith inline` with the same inputs.
pub fn options<'a>(trust: &'a Trust, wf: &'a Workflow, expansion_id: &str, as_given: bool) -> ExpandOptions<'a> {
    ExpandOptions {
        expansion_id: Some(expansion_id.to_owned()),
        taken_ids: None,
        resolver: trust.resolver(),
        parent_compensation: wf.settings_compensation(),
        host: trust.host.clone(),
        params_as_given: as_given,
    }
}

/// Expand with the trust policy, then add its config and port findings, as the CLI does.
pub fn expand_checked(
    trust: &Trust,
    pack: &Pack,
    chain_id: &str,
    wf: &Workflow,
    values: Map<String, Value>,
    expansion_id: &str,
    as_given: bool,
) -> Result<Expansion, Error> {
    let mut exp = expand(pack, chain_id, values, &options(trust, wf, expansion_id, as_given))?;
    let checks = trust.check_expansion(&exp);
    if let Some(first) = checks.iter().find(|f| f.is_error()) {
        return Err(first.clone().into_error());
    }
    exp.warnings.extend(checks);
    Ok(exp)
}

/// Four hex digits whose expanded ids collide with nothing in the workflow (chain-packs §4.2).
pub fn fresh_expansion_id(chain: &Chain, wf: &Workflow) -> String {
    let slug = chain_id_slug(chain.chain_id());
    let free = |candidate: &str| {
        !chain
            .nodes()
            .iter()
            .filter_map(|n| n.get("id").and_then(Value::as_str))
            .any(|nid| wf.contains_node(&format!("{slug}_{candidate}_{nid}")))
    };
    for width in [4usize, 4, 4, 4, 6, 8, 12, 16] {
        let candidate: String =
            (0..width).map(|_| char::from_digit(rand::random_range(0..16u32), 16).expect("a hex digit")).collect();
        if free(&candidate) {
            return candidate;
        }
    }
    // Sixteen random hex digits colliding eight times in a row does not happen; if it does,
    // splice refuses the duplicate id with a message instead of overwriting anything.
    "0000000000000000".to_owned()
}

/// Ghost nodes and edges from a dry run, or the refusal the real splice would give.
pub fn place(wf: &Workflow, exp: &Expansion, placement: &Placement) -> Result<Option<Ghost>, Error> {
    let mut scratch = wf.clone();
    match placement {
        Placement::Existing { key } => {
            reparameterise(&mut scratch, key, exp)?;
            Ok(None)
        }
        Placement::Insert { at, on_edge } => {
            let report = splice(&mut scratch, exp, &splice_options(*at, on_edge.as_ref()))?;
            let ids = &report.instance.node_ids;
            let nodes: Vec<GhostNode> = ids
                .iter()
                .filter_map(|id| {
                    let node = &scratch.graph[scratch.node(id)?];
                    let (x, y) = node.position();
                    Some(GhostNode {
                        id: id.clone(),
                        name: node.name().to_owned(),
                        type_id: node.type_id().to_owned(),
                        pos: pos2(x as f32, y as f32),
                    })
                })
                .collect();
            let end = |id: &str| match ids.iter().position(|n| n == id) {
                Some(i) => GhostEnd::Ghost(i),
                None => GhostEnd::Parent(id.to_owned()),
            };
            let edges = scratch
                .graph
                .edge_weights()
                .filter(|e| report.instance.edge_ids.iter().any(|id| id == e.id()))
                .map(|e| GhostEdge { from: end(e.source()), to: end(e.target()) })
                .collect();
            Ok(Some(Ghost { title: format!("{} · {}", exp.label, exp.expansion_id), nodes, edges, selected: Some(0) }))
        }
    }
}

/// Expand for the preview. Invalid values are still substituted (defaults applied, no
/// validation) so the author sees what they typed land in the config.
pub fn expand_preview(
    trust: &Trust,
    pack: &Pack,
    chain: &Chain,
    wf: &Workflow,
    values: &Map<String, Value>,
    expansion_id: &str,
    valid: bool,
) -> Result<Expansion, Error> {
    let mut values = values.clone();
    if !valid {
        apply_defaults(chain.parameters(), &mut values);
    }
    expand_checked(trust, pack, chain.chain_id(), wf, values, expansion_id, !valid)
}

/// The preview pane: the selected node's substituted config and inputs, and the lints.
pub fn show_pane(ui: &mut egui::Ui, chain: &Chain, exp: &Expansion, selected: &mut usize) {
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
        render(&mut job, orig, value, &exp.params, 0, &font);
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

/// Pretty JSON of `new`, with the spans that came from parameters highlighted. `orig` is
/// the same place in the fragment before substitution.
fn render(
    job: &mut LayoutJob,
    orig: Option<&Value>,
    new: &Value,
    params: &Map<String, Value>,
    depth: usize,
    font: &FontId,
) {
    let plain = TextFormat::simple(font.clone(), theme::TEXT);
    let key_fmt = TextFormat::simple(font.clone(), Color32::from_rgb(150, 190, 255));
    let hot = TextFormat { background: theme::SUBSTITUTED_BG, color: Color32::WHITE, ..plain.clone() };
    let pad = "  ".repeat(depth + 1);
    let close_pad = "  ".repeat(depth);
    if let Some(Value::String(s)) = orig {
        let found = tokens(s);
        if !found.is_empty() {
            if found.len() == 1 && found[0].start == 0 && found[0].end == s.len() {
                job.append(&compact(new), 0.0, hot);
                return;
            }
            job.append("\"", 0.0, plain.clone());
            let mut last = 0;
            for t in &found {
                job.append(&escape(&s[last..t.start]), 0.0, plain.clone());
                let inserted = params.get(t.name).map(js_string).unwrap_or_default();
                job.append(&escape(&inserted), 0.0, hot.clone());
                last = t.end;
            }
            job.append(&escape(&s[last..]), 0.0, plain.clone());
            job.append("\"", 0.0, plain);
            return;
        }
    }
    match new {
        Value::Object(m) if !m.is_empty() => {
            job.append("{\n", 0.0, plain.clone());
            for (i, (k, v)) in m.iter().enumerate() {
                job.append(&pad, 0.0, plain.clone());
                job.append(&compact(&Value::String(k.clone())), 0.0, key_fmt.clone());
                job.append(": ", 0.0, plain.clone());
                render(job, orig.and_then(|o| o.get(k)), v, params, depth + 1, font);
                job.append(if i + 1 < m.len() { ",\n" } else { "\n" }, 0.0, plain.clone());
            }
            job.append(&format!("{close_pad}}}"), 0.0, plain);
        }
        Value::Array(items) if !items.is_empty() => {
            job.append("[\n", 0.0, plain.clone());
            for (i, v) in items.iter().enumerate() {
                job.append(&pad, 0.0, plain.clone());
                render(job, orig.and_then(|o| o.get(i)), v, params, depth + 1, font);
                job.append(if i + 1 < items.len() { ",\n" } else { "\n" }, 0.0, plain.clone());
            }
            job.append(&format!("{close_pad}]"), 0.0, plain);
        }
        other => job.append(&compact(other), 0.0, plain),
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).expect("JSON values serialise")
}

/// A piece of a JSON string literal, escaped, without the quotes.
fn escape(s: &str) -> String {
    let quoted = compact(&Value::String(s.to_owned()));
    quoted[1..quoted.len() - 1].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bundled;
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
        for (i, node) in exp.nodes.iter().enumerate() {
            let mut job = LayoutJob::default();
            let font = FontId::monospace(12.0);
            render(&mut job, chain.nodes()[i].get("config"), &node["config"], &exp.params, 0, &font);
            let reparsed: Value = serde_json::from_str(&job.text).unwrap();
            assert_eq!(reparsed, node["config"], "node {i}");
        }
        let mut job = LayoutJob::default();
        render(
            &mut job,
            chain.nodes()[0].get("config"),
            &exp.nodes[0]["config"],
            &exp.params,
            0,
            &FontId::monospace(12.0),
        );
        assert_eq!(text_of(&job, true), "billing25", "queue name and batch size are substituted");
    }

    #[test]
    fn ghosts_sit_where_the_splice_puts_nodes_and_refusals_surface() {
        let (pack, values) = triage();
        let wf = Workflow::new("t");
        let chain = pack.chain("support.triage").unwrap();
        let exp = expand_preview(&Trust::default(), &pack, chain, &wf, &values, "ab12", true).unwrap();
        let ghost = place(&wf, &exp, &Placement::Insert { at: (100.0, 200.0), on_edge: None }).unwrap().unwrap();
        assert_eq!(ghost.nodes.len(), 4);
        assert_eq!(ghost.nodes[0].id, "support_triage_ab12_fetch");
        assert_eq!((ghost.nodes[0].pos.x, ghost.nodes[0].pos.y), (100.0, 280.0));
        assert_eq!(ghost.edges.len(), 3);
        let err = place(&wf, &exp, &Placement::Existing { key: "nope_".into() }).unwrap_err();
        assert_eq!(err.code, code::INVALID_REQUEST);
    }

    #[test]
    fn fresh_ids_avoid_existing_nodes() {
        let (pack, _) = triage();
        let chain = pack.chain("support.triage").unwrap();
        let id = fresh_expansion_id(chain, &Workflow::new("t"));
        assert_eq!(id.len(), 4);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
