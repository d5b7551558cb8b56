//! The inspector: what is selected, with its fields editable. A node whose type has a config
//! schema edits its `config` through a form generated from that schema (the chain parameter
//! form's engine: values kept as typed, errors flagged under their fields, Apply refused
//! while anything is invalid), with the raw JSON as a second tab. Other members (and edge
//! conditions) are a JSON tree whose leaves and subtrees edit in place as JSON text; text
//! that does not parse stays in the editor with the parse error under it. Every edit is a
//! `SetMember` command, so it undoes like any other change.

use super::action::Action;
use super::form;
use super::theme;
use crate::catalog::Catalog;
use crate::editor::commands::CommandId;
use crate::editor::document::{Command, Member, Target, edge_by_seq};
use crate::editor::json_edit::JsonEdit;
use crate::editor::node_type;
use crate::editor::selection::Selection;
use crate::error::code;
use crate::instance::update::Available;
use crate::params::FormFields;
use crate::workflow::Workflow;
use egui::{Id, RichText, Ui};
use serde_json::Value;
use std::collections::HashMap;

/// The key column of the inspector's grids: wide enough for its longest key ("chainVersion"),
/// so that truncating long values never cuts a key.
const KEY_WIDTH: f32 = 96.0;

const TRIGGER_RULES: [&str; 5] = ["all_success", "any_success", "all_complete", "none_failed", "any_failed"];

#[derive(Default)]
pub struct Inspector {
    /// Text being typed into single-line fields, by field key, until it is committed.
    texts: HashMap<String, String>,
    json: Option<JsonEdit>,
    /// "Make parameter…" was chosen on this node's value: node id, pointer inside the node.
    make_param: Option<(String, String)>,
    config: Option<ConfigForm>,
    /// The config is shown as its JSON tree rather than as the form.
    config_as_json: bool,
    /// The tallest the config form's fields and problems have been for this node: they keep
    /// that height, so "Apply config" under them stays put when a problem clears.
    config_height: Option<(String, f32)>,
}

/// A node's config being edited through its type's form.
struct ConfigForm {
    node: String,
    type_id: String,
    /// The stored config the fields were filled from; when it changes (Apply, undo, the JSON
    /// tab) the fields are filled again from the new one.
    base: Option<Value>,
    fields: FormFields,
}

/// What the user asked of the inspector this frame, for the `App` to apply (the canvas's
/// `CanvasResponse` shape).
pub struct InspectorResponse {
    pub actions: Vec<Action>,
}

impl Inspector {
    /// Draw the inspector of the selection; returns what the user asked of it.
    pub fn show(
        &mut self,
        ui: &mut Ui,
        wf: &Workflow,
        catalog: Option<&Catalog>,
        selection: &Selection,
        updates: &HashMap<String, Available>,
    ) -> InspectorResponse {
        let mut asked = Vec::new();
        let actions = &mut asked;
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            // Long names and ids are cut with an ellipsis (the full text on hover): the panel
            // keeps the width the user gave it.
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            ui.add_space(4.0);
            let nodes = selection.nodes.len();
            let edges = selection.edges.len();
            if let Some(key) = &selection.instance {
                self.instance(ui, wf, key, updates, actions);
            } else if nodes == 1 && edges == 0 {
                let id = selection.nodes.iter().next().expect("one node");
                self.node(ui, wf, catalog, id, updates, actions);
            } else if nodes == 0 && edges == 1 {
                let seq = *selection.edges.iter().next().expect("one edge");
                self.edge(ui, wf, seq, actions);
            } else if nodes + edges > 1 {
                ui.heading("Selection");
                ui.label(format!(
                    "{} and {} selected.",
                    crate::words::count(nodes, "node", "nodes"),
                    crate::words::count(edges, "edge", "edges")
                ));
                ui.horizontal(|ui| {
                    if ui.button("Delete").clicked() {
                        actions.push(Action::Run(CommandId::Delete));
                    }
                    if ui.button("Copy").clicked() {
                        actions.push(Action::Run(CommandId::Copy));
                    }
                    if nodes > 0 && ui.button("Extract as chain…").clicked() {
                        actions.push(Action::Run(CommandId::ExtractChain));
                    }
                });
            } else {
                self.workflow(ui, wf, actions);
            }
        });
        if let Some((node, pointer)) = self.make_param.take() {
            actions.push(Action::MakeParameter { node, pointer });
        }
        InspectorResponse { actions: asked }
    }

    fn workflow(&mut self, ui: &mut Ui, wf: &Workflow, actions: &mut Vec<Action>) {
        ui.heading("Workflow");
        egui::Grid::new("cs-wf-grid").num_columns(2).min_col_width(KEY_WIDTH).spacing([10.0, 6.0]).show(ui, |ui| {
            let label = ui.label("name").id;
            if let Some(v) = self.text_field(ui, "wf:name", wf.name(), label) {
                actions.extend(set(Target::Workflow, "name", Some(Value::String(v))));
            }
            ui.end_row();
            ui.label("id");
            ui.label(RichText::new(wf.id()).monospace());
            ui.end_row();
            ui.label("contents");
            // The OpenWOP app's own instance is recorded apart from chainsmith's.
            let instances = wf.instances().len() + usize::from(crate::editor::app_reparam::app_instance(wf).is_some());
            // Wrapped, not cut: a narrow inspector shows every count.
            ui.add(
                egui::Label::new(format!(
                    "{}, {}, {}",
                    crate::words::count(wf.node_count(), "node", "nodes"),
                    crate::words::count(wf.graph.edge_count(), "edge", "edges"),
                    crate::words::count(instances, "chain instance", "chain instances")
                ))
                .wrap(),
            );
            ui.end_row();
        });
        for member in ["variables", "settings"] {
            if let Some(v) = wf.member(member) {
                self.json_member(ui, Target::Workflow, member, Some(v), false, actions);
            }
        }
        ui.add_space(8.0);
        // Wrapped, not cut: the panel's narrow width cut it to "… to ins…".
        let hint =
            RichText::new("Drag a tile from the palette onto the canvas to insert a chain.").color(theme::TEXT_DIM);
        ui.add(egui::Label::new(hint).wrap());
    }

    fn node(
        &mut self,
        ui: &mut Ui,
        wf: &Workflow,
        catalog: Option<&Catalog>,
        id: &str,
        updates: &HashMap<String, Available>,
        actions: &mut Vec<Action>,
    ) {
        let Some(ix) = wf.node(id) else { return };
        let node = &wf.graph[ix];
        ui.heading("Node");
        egui::Grid::new("cs-node-grid").num_columns(2).min_col_width(KEY_WIDTH).spacing([10.0, 6.0]).show(ui, |ui| {
            ui.label("id");
            ui.add(egui::Label::new(RichText::new(id).monospace()).selectable(true));
            ui.end_row();
            ui.label("typeId");
            ui.add(egui::Label::new(RichText::new(node.type_id()).monospace()).selectable(true));
            ui.end_row();
            let label = ui.label("name").id;
            if let Some(v) = self.text_field(ui, &format!("node:{id}:name"), node.name(), label) {
                actions.extend(set(Target::Node(id.to_owned()), "name", Some(Value::String(v))));
            }
            ui.end_row();
            let (x, y) = node.position();
            ui.label("position");
            ui.label(RichText::new(format!("{x}, {y}")).monospace());
            ui.end_row();
            let caps = node.capabilities();
            if !caps.is_empty() {
                ui.label("capabilities");
                ui.label(caps.join(", "));
                ui.end_row();
            }
        });
        if let Some(inst) = wf.instance_of_node(id) {
            ui.add_space(4.0);
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.label(
                    RichText::new(format!("Part of chain instance {} · {}", inst.label, inst.expansion_id)).strong(),
                );
                ui.label(RichText::new(&inst.chain_id).monospace().small().color(theme::TEXT_DIM));
                instance_buttons(ui, &inst.key(), actions);
                super::upgrade::instance_row(ui, &inst, updates.get(&inst.key()), actions);
            });
        }
        // One node, parsed once per frame.
        let json = node.object();
        let config = json.get("config");
        if node_type::config_schema(catalog, node.type_id()).is_some() {
            self.config_form(ui, catalog, id, node.type_id(), config, actions);
        } else {
            self.json_member(ui, Target::Node(id.to_owned()), "config", config, true, actions);
        }
        self.json_member(ui, Target::Node(id.to_owned()), "inputs", json.get("inputs"), true, actions);
        let known = ["id", "typeId", "name", "position", "config", "inputs", "capabilities"];
        for (member, value) in json.iter().filter(|(k, _)| !known.contains(&k.as_str())) {
            self.json_member(ui, Target::Node(id.to_owned()), member, Some(value), true, actions);
        }
    }

    /// A node's config as the form of its type's config schema, or (second tab) as JSON.
    fn config_form(
        &mut self,
        ui: &mut Ui,
        catalog: Option<&Catalog>,
        id: &str,
        type_id: &str,
        current: Option<&Value>,
        actions: &mut Vec<Action>,
    ) {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.label(RichText::new("config").strong());
            ui.selectable_value(&mut self.config_as_json, false, "Form");
            ui.selectable_value(&mut self.config_as_json, true, "JSON");
        });
        if self.config_as_json {
            self.json_member(ui, Target::Node(id.to_owned()), "config", current, true, actions);
            return;
        }
        let same = |c: &ConfigForm| c.node == id && c.type_id == type_id && c.base.as_ref() == current;
        if !self.config.as_ref().is_some_and(same) {
            let Some(form) = node_type::config_form(catalog, type_id) else { return };
            let values = current.and_then(Value::as_object).cloned().unwrap_or_default();
            let mut fields = FormFields::new(form, values);
            // A field's label offers to make its value a parameter of a chain being authored.
            fields.offer_promotion = true;
            // A stored config may already be invalid: say so at once, not after a first edit.
            fields.reveal();
            self.config =
                Some(ConfigForm { node: id.to_owned(), type_id: type_id.to_owned(), base: current.cloned(), fields });
        }
        let Some(cf) = &mut self.config else { return };
        if cf.fields.is_stale() {
            let errors = node_type::config_errors(catalog, type_id, &Value::Object(cf.fields.values().clone()));
            cf.fields.set_errors(errors);
        }
        let mut revert = false;
        let mut reserved = self.config_height.as_ref().filter(|(node, _)| node == id).map_or(0.0, |(_, h)| *h);
        ui.push_id(("cs-config-form", id), |ui| {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                // Form rows wrap rather than being cut: messages under fields must be readable.
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Wrap);
                let shown = ui.vertical(|ui| {
                    ui.set_min_height(reserved);
                    form::fields(ui, &mut cf.fields);
                    form::summary(ui, &mut cf.fields, code::NODE_CONFIG_INVALID, "The config is valid.");
                });
                reserved = reserved.max(shown.response.rect.height());
                ui.horizontal(|ui| {
                    let edited = Value::Object(cf.fields.values().clone());
                    let changed = current != Some(&edited);
                    let ok = changed && !cf.fields.has_problems();
                    let apply = ui.add_enabled(ok, egui::Button::new("Apply config"));
                    if apply.clicked() {
                        actions.extend(set(Target::Node(id.to_owned()), "config", Some(edited)));
                    }
                    let why = if changed { "Fix the problems listed above first." } else { "Nothing changed yet." };
                    apply.on_disabled_hover_text(why);
                    revert = ui.add_enabled(changed, egui::Button::new("Revert")).clicked();
                });
            });
        });
        self.config_height = Some((id.to_owned(), reserved));
        if let Some(pointer) = cf.fields.take_promotion() {
            self.make_param = Some((id.to_owned(), format!("/config{pointer}")));
        }
        if revert {
            self.config = None;
        }
    }

    fn edge(&mut self, ui: &mut Ui, wf: &Workflow, seq: u64, actions: &mut Vec<Action>) {
        let Some(ix) = edge_by_seq(wf, seq) else { return };
        let edge = &wf.graph[ix];
        // Parsed once per frame: the inspector shows one edge.
        let json = edge.json();
        ui.heading("Edge");
        let set = |key: &str, value: Option<Value>| set(Target::Edge(seq), key, value);
        egui::Grid::new("cs-edge-grid").num_columns(2).min_col_width(KEY_WIDTH).spacing([10.0, 6.0]).show(ui, |ui| {
            ui.label("id");
            ui.label(RichText::new(edge.id()).monospace());
            ui.end_row();
            ui.label("from");
            ui.label(RichText::new(edge.source()).monospace());
            ui.end_row();
            let label = ui.label("sourceOutput").id;
            if let Some(v) = self.text_field(ui, &format!("edge:{seq}:out"), edge.source_port(), label) {
                let value = (!v.is_empty() && v != "output").then_some(Value::String(v));
                actions.extend(set("sourceOutput", value));
            }
            ui.end_row();
            ui.label("to");
            ui.label(RichText::new(edge.target()).monospace());
            ui.end_row();
            let label = ui.label("targetInput").id;
            if let Some(v) = self.text_field(ui, &format!("edge:{seq}:in"), edge.target_port(), label) {
                let value = (!v.is_empty() && v != "input").then_some(Value::String(v));
                actions.extend(set("targetInput", value));
            }
            ui.end_row();
            let trigger_label = ui.label("triggerRule").id;
            let current = edge.trigger_rule();
            egui::ComboBox::from_id_salt(("cs-trigger", seq))
                .selected_text(current.unwrap_or("all_success (default)"))
                .show_ui(ui, |ui| {
                    if ui.selectable_label(current.is_none(), "all_success (default)").clicked() && current.is_some() {
                        actions.extend(set("triggerRule", None));
                    }
                    for rule in TRIGGER_RULES {
                        if ui.selectable_label(current == Some(rule), rule).clicked() && current != Some(rule) {
                            actions.extend(set("triggerRule", Some(Value::String(rule.to_owned()))));
                        }
                    }
                })
                .response
                .labelled_by(trigger_label);
            ui.end_row();
            let label_id = ui.label("label").id;
            let label = json.get("label").and_then(Value::as_str).unwrap_or_default();
            if let Some(v) = self.text_field(ui, &format!("edge:{seq}:label"), label, label_id) {
                actions.extend(set("label", (!v.is_empty()).then_some(Value::String(v))));
            }
            ui.end_row();
        });
        self.json_member(ui, Target::Edge(seq), "condition", json.get("condition"), true, actions);
    }

    fn instance(
        &mut self,
        ui: &mut Ui,
        wf: &Workflow,
        key: &str,
        updates: &HashMap<String, Available>,
        actions: &mut Vec<Action>,
    ) {
        let Some(inst) = wf.instance(key) else { return };
        ui.heading("Chain instance");
        egui::Grid::new("cs-inst-grid").num_columns(2).min_col_width(KEY_WIDTH).spacing([10.0, 6.0]).show(ui, |ui| {
            for (k, v) in [
                ("label", inst.label.as_str()),
                ("chainId", inst.chain_id.as_str()),
                ("chainVersion", inst.chain_version.as_str()),
                ("pack", inst.pack_name.as_str()),
                ("packVersion", inst.pack_version.as_str()),
                ("expansionId", inst.expansion_id.as_str()),
            ] {
                ui.label(k);
                ui.label(RichText::new(v).monospace());
                ui.end_row();
            }
            ui.label("nodes");
            ui.label(inst.node_ids.len().to_string());
            ui.end_row();
        });
        instance_buttons(ui, key, actions);
        super::upgrade::instance_row(ui, &inst, updates.get(key), actions);
        let params = Value::Object(inst.params.clone());
        self.json_member(ui, Target::Workflow, "parameters", Some(&params), false, actions);
    }

    /// A single-line field showing `current`; returns the new text when the user commits it
    /// (Enter or leaving the field) and it differs.
    fn text_field(&mut self, ui: &mut Ui, key: &str, current: &str, label: Id) -> Option<String> {
        let mut text = self.texts.get(key).cloned().unwrap_or_else(|| current.to_owned());
        let r = ui.add(egui::TextEdit::singleline(&mut text).desired_width(ui.available_width().min(260.0)));
        let r = r.labelled_by(label);
        // Tab moves the focus here: bring the field into view.
        if r.gained_focus() {
            r.scroll_to_me(None);
        }
        if r.changed() {
            self.texts.insert(key.to_owned(), text.clone());
        }
        if r.lost_focus() {
            self.texts.remove(key);
            if text != current {
                return Some(text);
            }
        }
        None
    }

    /// One member as a collapsible JSON tree; when `editable`, any value or subtree can be
    /// replaced by typing JSON.
    fn json_member(
        &mut self,
        ui: &mut Ui,
        owner: Target,
        member: &str,
        value: Option<&Value>,
        editable: bool,
        actions: &mut Vec<Action>,
    ) {
        let id = Id::unique(("cs-json", format!("{owner:?}"), member));
        egui::CollapsingHeader::new(RichText::new(member).strong()).id_salt(id).default_open(true).show(ui, |ui| {
            match value {
                None => {
                    ui.horizontal(|ui| {
                        ui.label(RichText::new("absent").color(theme::TEXT_DIM));
                        if editable && ui.small_button("Add").clicked() {
                            self.json =
                                Some(JsonEdit::open(owner.clone(), member, "", &Value::Object(Default::default())));
                        }
                    });
                    if editable {
                        self.editor(ui, &owner, member, None, actions);
                    }
                }
                Some(v) => {
                    self.tree(ui, &owner, member, "", v, editable);
                    if editable {
                        self.editor(ui, &owner, member, Some(v), actions);
                    }
                }
            }
        });
    }

    fn tree(&mut self, ui: &mut Ui, owner: &Target, member: &str, pointer: &str, value: &Value, editable: bool) {
        let entries: Vec<(String, &Value)> = match value {
            Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
            Value::Array(a) => a.iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect(),
            _ => {
                self.leaf(ui, owner, member, pointer, None, value, editable);
                return;
            }
        };
        if entries.is_empty() {
            self.leaf(ui, owner, member, pointer, None, value, editable);
            return;
        }
        if editable && pointer.is_empty() && ui.small_button("✏ Edit as JSON").clicked() {
            self.json = Some(JsonEdit::open(owner.clone(), member, "", value));
        }
        for (key, child) in entries {
            let ptr = crate::error::pointer_join(pointer, &key);
            if child.as_object().is_some_and(|m| !m.is_empty()) || child.as_array().is_some_and(|a| !a.is_empty()) {
                let id = Id::unique(("cs-json-node", format!("{owner:?}"), member, &ptr));
                egui::CollapsingHeader::new(RichText::new(&key).monospace().color(KEY_COLOR))
                    .id_salt(id)
                    .default_open(true)
                    .show(ui, |ui| {
                        if editable && ui.small_button("✏ Edit subtree").clicked() {
                            self.json = Some(JsonEdit::open(owner.clone(), member, &ptr, child));
                        }
                        self.tree(ui, owner, member, &ptr, child, editable);
                    });
            } else {
                self.leaf(ui, owner, member, &ptr, Some(&key), child, editable);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn leaf(
        &mut self,
        ui: &mut Ui,
        owner: &Target,
        member: &str,
        pointer: &str,
        key: Option<&str>,
        value: &Value,
        editable: bool,
    ) {
        ui.horizontal_wrapped(|ui| {
            if let Some(k) = key {
                ui.label(RichText::new(format!("{k}:")).monospace().color(KEY_COLOR));
            }
            let text = serde_json::to_string(value).expect("JSON values serialise");
            let color = match value {
                Value::String(_) => egui::Color32::from_rgb(206, 180, 130),
                Value::Number(_) => egui::Color32::from_rgb(150, 210, 170),
                _ => theme::TEXT,
            };
            let label = egui::Label::new(RichText::new(text).monospace().color(color)).sense(egui::Sense::click());
            let r = ui.add(label);
            if !editable {
                return;
            }
            // A node's config or input value can become a parameter of a chain being authored.
            let promotable = matches!(owner, Target::Node(_)) && (member == "config" || member == "inputs");
            let hover = if promotable {
                "Click to edit as JSON · right-click: Make parameter…"
            } else {
                "Click to edit as JSON"
            };
            let r = r.on_hover_text(hover);
            if let Target::Node(id) = owner
                && promotable
            {
                r.context_menu(|ui| {
                    let spec = CommandId::MakeParameter.spec();
                    if ui.button(spec.label).on_hover_text(spec.tooltip).clicked() {
                        self.make_param = Some((id.clone(), format!("/{member}{pointer}")));
                        ui.close();
                    }
                });
            }
            if r.clicked() {
                self.json = Some(JsonEdit::open(owner.clone(), member, pointer, value));
            }
        });
    }

    /// The JSON text editor for a subtree of this member, if one is open.
    fn editor(
        &mut self,
        ui: &mut Ui,
        owner: &Target,
        member: &str,
        current: Option<&Value>,
        actions: &mut Vec<Action>,
    ) {
        let Some(edit) = &mut self.json else { return };
        if !edit.is_of(owner, member) {
            return;
        }
        let label = ui.label(RichText::new(format!("Editing {}", edit.place())).small().color(theme::ACCENT));
        let r = ui
            .add(egui::TextEdit::multiline(&mut edit.text).code_editor().desired_rows(4).desired_width(f32::INFINITY))
            .labelled_by(label.id);
        if r.gained_focus() {
            r.scroll_to_me(None);
        }
        if r.changed() {
            edit.edited();
        }
        if let Some(e) = &edit.error {
            ui.label(RichText::new(format!("⚠ {e}")).small().color(theme::ERROR));
        }
        let mut close = false;
        ui.horizontal(|ui| {
            let ok = ui.add_enabled(edit.error.is_none(), egui::Button::new("Apply"));
            if ok.clicked()
                && let Some(whole) = edit.applied(current)
            {
                actions.extend(set(owner.clone(), member, Some(whole)));
                close = true;
            }
            if ui.button("Cancel").clicked() {
                close = true;
            }
        });
        if close {
            self.json = None;
        }
    }
}

const KEY_COLOR: egui::Color32 = egui::Color32::from_rgb(150, 190, 255);

fn instance_buttons(ui: &mut Ui, key: &str, actions: &mut Vec<Action>) {
    // Wrapped: in a narrow inspector the second button goes below rather than being cut.
    ui.horizontal_wrapped(|ui| {
        if ui.button("Edit parameters…").on_hover_text("Re-open the form; re-expands in place").clicked() {
            actions.push(Action::EditInstance(key.to_owned()));
        }
        if ui.button("Remove instance").on_hover_text("Delete its nodes and edges (one undo step)").clicked() {
            actions.push(Action::Doc(Command::RemoveInstance { key: key.to_owned() }));
        }
    });
}

/// The edit of one member as an action. The inspector only offers members that may be
/// edited, so a refusal from [`Member::new`] means there is nothing to do.
fn set(target: Target, key: &str, value: Option<Value>) -> Option<Action> {
    Member::new(target, key).ok().map(|member| Action::Doc(Command::SetMember { member, value }))
}
