//! The pack view: one chain pack open for authoring. Its manifest fields, its chains (add,
//! remove, reorder), the selected chain's metadata and parameter schema edited through a
//! form, the parameter form as users will see it (rebuilt after every change), the problems
//! the manifest has now with their JSON pointers, and Save, Sign, Undo, Redo. It only draws
//! and asks: every change is a [`ViewOp`] the authoring layer applies after the frame.

use super::form::FormSession;
use super::window::{Scaffold, Window, WindowId};
use super::{palette, theme};
use crate::author::{PARAM_TYPES, ParamSpec, param_specs};
use crate::editor::authoring::{OpenPack, ViewOp, ViewPlace};
use crate::editor::insert_form::InsertForm;
use crate::editor::pack_doc::{PackCommand, blank_chain, parse_default};
use crate::editor::wording::pack_place;
use crate::pack::{Pack, PackKind};
use egui::{Id, RichText, Ui};
use serde_json::{Value, json};

/// Below this width (points) the pack view shows its parts in one column instead of three.
const NARROW: f32 = 1100.0;

/// What the pack view asks comes back as [`ViewOp`]s, applied after the frame.
impl Window for PackView {
    /// The packs open for editing, the loaded packs, and the view's place in them.
    type Input<'a> = (&'a [OpenPack], &'a [Pack], &'a mut ViewPlace);
    type Response = Vec<ViewOp>;
    const ID: WindowId = WindowId::PackView;
    /// Sized to the room between the menu bar and the status bar ([`Scaffold::within`]).
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        std::mem::take(&mut self.open)
    }

    fn show(&mut self, ctx: &egui::Context, (docs, packs, place): Self::Input<'_>) -> Vec<ViewOp> {
        let mut ops = Vec::new();
        if self.open {
            self.draw(ctx, (docs, packs, place), &mut ops);
        }
        ops
    }
}

/// The window's own state; what it shows is the authoring model's ([`ViewPlace`]).
#[derive(Default)]
pub struct PackView {
    pub open: bool,
    /// The parameter form preview and the chain it was built for.
    preview: Option<(Value, FormSession)>,
    /// The window's layer, as of the last frame.
    layer: Option<egui::LayerId>,
    /// Where the window may be: between the menu bar and the status bar (set each frame).
    pub area: Option<egui::Rect>,
    /// What the last Save, Sign, Generate key or edit said, shown in the view itself (the
    /// status bar may be out of sight behind it): the text, and a refusal's code.
    pub result: Option<(String, Option<&'static str>)>,
}

/// The view while it draws: its place in the packs (the model's) and its own preview and
/// result line.
struct Drawn<'a> {
    place: &'a mut ViewPlace,
    preview: &'a mut Option<(Value, FormSession)>,
    result: &'a mut Option<(String, Option<&'static str>)>,
}

impl PackView {
    /// Draw the open view; what it asks goes into `ops`.
    fn draw(&mut self, ctx: &egui::Context, input: <Self as Window>::Input<'_>, ops: &mut Vec<ViewOp>) {
        let (docs, packs, place) = input;
        if place.doc.is_some_and(|d| d >= docs.len()) {
            place.doc = None;
        }
        let mut open = true;
        let area = self.area.filter(|a| a.is_positive()).unwrap_or_else(|| ctx.content_rect());
        let scaffold = Scaffold::of::<Self>("Pack view", &mut open).collapsible();
        let mut this = Drawn { place, preview: &mut self.preview, result: &mut self.result };
        let shown = scaffold.within(area, egui::vec2(1180.0, 820.0)).show(ctx, |ui| {
            let this = &mut this;
            this.toolbar(ui, docs, packs, ops);
            this.result_line(ui);
            let Some(d) = this.place.doc else {
                ui.label(
                    RichText::new("Choose a pack to edit, start a new one, or extract a chain from a selection.")
                        .color(theme::TEXT_DIM),
                );
                return;
            };
            let open = &docs[d];
            let chains = open.doc.draft().chains();
            if this.place.chain >= chains.len() {
                this.place.chain = chains.len().saturating_sub(1);
            }
            egui::Panel::bottom(Id::unique("cs-pack-problems")).resizable(true).default_size(110.0).show(ui, |ui| {
                problems(ui, open);
            });
            // The columns scroll inside what the problems list leaves, never over it.
            let height = ui.available_height();
            if ui.available_width() < NARROW {
                // Three columns of a 1000-point window cut fields short and their rows ran
                // into the next column: one column, the same parts in the same order.
                egui::ScrollArea::vertical().id_salt("cs-pv-one").max_height(height).auto_shrink([false, false]).show(
                    ui,
                    |ui| {
                        this.manifest(ui, d, open, ops);
                        ui.add_space(8.0);
                        this.chain_list(ui, d, open, ops);
                        if let Some(chain) = chains.get(this.place.chain) {
                            ui.separator();
                            this.chain_fields(ui, d, chain, ops);
                            ui.add_space(8.0);
                            this.parameters(ui, d, chain, ops);
                        }
                        ui.separator();
                        this.preview(ui, open);
                    },
                );
                return;
            }
            ui.columns(3, |cols| {
                egui::ScrollArea::vertical().id_salt("cs-pv-left").max_height(height).auto_shrink([false, false]).show(
                    &mut cols[0],
                    |ui| {
                        this.manifest(ui, d, open, ops);
                        ui.add_space(8.0);
                        this.chain_list(ui, d, open, ops);
                    },
                );
                egui::ScrollArea::vertical().id_salt("cs-pv-mid").max_height(height).auto_shrink([false, false]).show(
                    &mut cols[1],
                    |ui| {
                        if let Some(chain) = chains.get(this.place.chain) {
                            this.chain_fields(ui, d, chain, ops);
                            ui.add_space(8.0);
                            this.parameters(ui, d, chain, ops);
                        }
                    },
                );
                egui::ScrollArea::vertical()
                    .id_salt("cs-pv-right")
                    .auto_shrink([false, false])
                    .show(&mut cols[2], |ui| this.preview(ui, open));
            });
        });
        self.layer = shown.map(|w| w.response.layer_id);
        if !open {
            self.open = false;
        }
    }

    /// Whether the view is open and the pointer is over it.
    pub fn under_pointer(&self, ctx: &egui::Context) -> bool {
        let over = ctx.pointer_latest_pos().and_then(|p| ctx.layer_id_at(p));
        self.open && over.is_some() && over == self.layer
    }
}

impl Drawn<'_> {
    fn toolbar(&mut self, ui: &mut Ui, docs: &[OpenPack], packs: &[Pack], ops: &mut Vec<ViewOp>) {
        ui.horizontal_wrapped(|ui| {
            let current = self.place.doc.and_then(|d| docs.get(d));
            let title = current.map_or("Choose a pack".to_owned(), |o| {
                format!("{} {}", o.doc.draft().name(), o.doc.draft().version())
            });
            let pack_label = ui.label("Pack");
            let combo =
                egui::ComboBox::from_id_salt("cs-pv-pack").selected_text(title).width(280.0).show_ui(ui, |ui| {
                    for (i, o) in docs.iter().enumerate() {
                        let dirty = if o.doc.is_dirty() { " •" } else { "" };
                        let text = format!("{} {}{dirty}", o.doc.draft().name(), o.doc.draft().version());
                        // Two packs may share a name and version: where each comes from tells them apart.
                        let entry = ui.selectable_label(self.place.doc == Some(i), text);
                        if entry.on_hover_text(o.source.display().to_string()).clicked() {
                            self.place.select(i, 0);
                        }
                    }
                    let open: Vec<&std::path::Path> = docs.iter().map(|o| o.source.as_path()).collect();
                    for (i, p) in packs.iter().enumerate() {
                        if p.kind != PackKind::WorkflowChain || open.contains(&p.source.as_path()) {
                            continue;
                        }
                        let entry = ui.selectable_label(false, format!("{} {} — edit", p.name(), p.version()));
                        if entry.on_hover_text(p.source.display().to_string()).clicked() {
                            ops.push(ViewOp::Edit(i));
                        }
                    }
                });
            combo.response.labelled_by(pack_label.id);
            if ui.button("New pack").clicked() {
                ops.push(ViewOp::NewPack);
            }
            let Some(d) = self.place.doc.filter(|d| *d < docs.len()) else { return };
            let doc = &docs[d].doc;
            ui.separator();
            let undo = ui.add_enabled(doc.can_undo(), egui::Button::new("Undo"));
            if undo.clicked() {
                ops.push(ViewOp::Undo(d));
            }
            undo.on_hover_text(doc.undo_label().map_or("Nothing to undo".to_owned(), |l| format!("Undo {l}")));
            let redo = ui.add_enabled(doc.can_redo(), egui::Button::new("Redo"));
            if redo.clicked() {
                ops.push(ViewOp::Redo(d));
            }
            redo.on_hover_text(doc.redo_label().map_or("Nothing to redo".to_owned(), |l| format!("Redo {l}")));
            ui.separator();
            if ui.button(RichText::new("Save pack").strong()).clicked() {
                ops.push(ViewOp::Save(d));
            }
            if ui.button("Save pack as…").clicked() {
                ops.push(ViewOp::SaveAs);
            }
            if ui.button("Sign…").on_hover_text("Sign the saved pack.json with an Ed25519 private key (PEM)").clicked()
            {
                ops.push(ViewOp::Sign(d));
            }
            let keygen = "Make a new Ed25519 key pair to sign with (NAME.private.pem, PKCS#8, and NAME.public.pem), \
                as `chainsmith keygen` does; keep the private key out of the pack";
            if ui.button("Generate key…").on_hover_text(keygen).clicked() {
                ops.push(ViewOp::GenerateKey);
            }
            let where_ = doc.path().map_or("not saved yet".to_owned(), |p| p.display().to_string());
            let dirty = if doc.is_dirty() { "• unsaved · " } else { "" };
            ui.label(RichText::new(format!("{dirty}{where_}")).small().color(theme::TEXT_DIM));
        });
        ui.separator();
    }

    /// The last result, under the toolbar whose buttons produced it.
    fn result_line(&mut self, ui: &mut Ui) {
        let Some((message, code)) = &self.result else { return };
        let (mark, color) = if code.is_some() { ("✖", theme::ERROR) } else { ("✔", theme::OK) };
        let mut dismiss = false;
        ui.horizontal_wrapped(|ui| {
            if ui.small_button("🗙").on_hover_text("Dismiss").clicked() {
                dismiss = true;
            }
            ui.add(egui::Label::new(RichText::new(format!("{mark} {message}")).color(color)).wrap());
            if let Some(code) = code {
                ui.label(RichText::new(*code).monospace().small().color(theme::TEXT_DIM));
            }
        });
        if dismiss {
            *self.result = None;
        }
    }

    fn manifest(&mut self, ui: &mut Ui, d: usize, open: &OpenPack, ops: &mut Vec<ViewOp>) {
        ui.label(RichText::new("Manifest").strong());
        let m = open.doc.draft().manifest();
        let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        egui::Grid::new("cs-pv-manifest").num_columns(2).spacing([8.0, 6.0]).show(ui, |ui| {
            for (label, key) in [
                ("pack name", "name"),
                ("pack version", "version"),
                ("pack description", "description"),
                ("license", "license"),
            ] {
                if let Some(v) = self.text(ui, &format!("{d}:m:{key}"), label, &text(key)) {
                    let value = (!v.is_empty() || key == "name" || key == "version").then_some(Value::String(v));
                    ops.push(ViewOp::Command(d, PackCommand::SetMember { key: key.into(), value }));
                }
                ui.end_row();
            }
            let engines = m.get("engines").map(|e| e.to_string()).unwrap_or_default();
            let key = format!("{d}:m:engines");
            if let Some(v) = self.text(ui, &key, "engines", &engines) {
                match serde_json::from_str::<Value>(&v) {
                    Ok(e @ Value::Object(_)) => {
                        self.place.invalid.remove(&key);
                        ops.push(ViewOp::Command(d, PackCommand::SetMember { key: "engines".into(), value: Some(e) }));
                    }
                    _ if v.trim().is_empty() => {
                        self.place.invalid.remove(&key);
                        ops.push(ViewOp::Command(d, PackCommand::SetMember { key: "engines".into(), value: None }));
                    }
                    _ => {
                        self.place
                            .invalid
                            .insert(key.clone(), "a JSON object, e.g. {\"openwop\": \">=1.0.0 <3.0.0\"}".into());
                    }
                }
            }
            ui.end_row();
            let keywords: Vec<&str> = m
                .get("keywords")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(v) = self.text(ui, &format!("{d}:m:keywords"), "keywords", &keywords.join(", ")) {
                let words: Vec<Value> =
                    v.split(',').map(str::trim).filter(|w| !w.is_empty()).map(|w| json!(w)).collect();
                let value = (!words.is_empty()).then_some(Value::Array(words));
                ops.push(ViewOp::Command(d, PackCommand::SetMember { key: "keywords".into(), value }));
            }
            ui.end_row();
            ui.label("dependencies");
            ui.horizontal_wrapped(|ui| {
                match m.get("dependencies").and_then(Value::as_object) {
                    Some(deps) if !deps.is_empty() => {
                        for (name, range) in deps {
                            ui.label(
                                RichText::new(format!("{name} {}", range.as_str().unwrap_or("?"))).monospace().small(),
                            );
                        }
                    }
                    _ => {
                        ui.label(RichText::new("none").small().color(theme::TEXT_DIM));
                    }
                }
                let compute = ui.small_button("Compute from catalog");
                if compute
                    .on_hover_text("The node packs providing the chains' typeIds, at ^ their loaded version")
                    .clicked()
                {
                    ops.push(ViewOp::Dependencies(d));
                }
            });
            ui.end_row();
        });
    }

    fn chain_list(&mut self, ui: &mut Ui, d: usize, open: &OpenPack, ops: &mut Vec<ViewOp>) {
        let chains = open.doc.draft().chains();
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("Chains ({})", chains.len())).strong());
            if ui.small_button("+ Add chain").clicked() {
                ops.push(ViewOp::Command(d, PackCommand::AddChain(blank_chain(open.doc.draft()))));
                self.place.chain = chains.len();
            }
        });
        let n = chains.len();
        for (i, c) in chains.iter().enumerate() {
            let id = c.get("chainId").and_then(Value::as_str).unwrap_or("(no chainId)");
            let label = c.get("label").and_then(Value::as_str).unwrap_or_default();
            ui.horizontal(|ui| {
                let r = ui.selectable_label(self.place.chain == i, format!("{label} · {id}"));
                if r.clicked() && self.place.chain != i {
                    self.place.chain = i;
                    self.place.param = None;
                }
                if ui.add_enabled(i > 0, egui::Button::new("⏶").small()).on_hover_text("Move up").clicked() {
                    ops.push(ViewOp::Command(d, PackCommand::MoveChain { from: i, to: i - 1 }));
                    self.place.chain = i - 1;
                }
                if ui.add_enabled(i + 1 < n, egui::Button::new("⏷").small()).on_hover_text("Move down").clicked() {
                    ops.push(ViewOp::Command(d, PackCommand::MoveChain { from: i, to: i + 1 }));
                    self.place.chain = i + 1;
                }
                let remove = ui.small_button("🗙");
                remove
                    .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, format!("Remove chain {id}")));
                if remove.on_hover_text("Remove this chain").clicked() {
                    ops.push(ViewOp::Command(d, PackCommand::RemoveChain(i)));
                }
            });
        }
    }

    fn chain_fields(&mut self, ui: &mut Ui, d: usize, chain: &Value, ops: &mut Vec<ViewOp>) {
        ui.label(RichText::new("Chain").strong());
        let i = self.place.chain;
        let text = |k: &str| chain.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        egui::Grid::new("cs-pv-chain").num_columns(2).spacing([8.0, 6.0]).show(ui, |ui| {
            for (label, key) in [
                ("chainId", "chainId"),
                ("chain version", "version"),
                ("label", "label"),
                ("chain description", "description"),
            ] {
                if let Some(v) = self.text(ui, &format!("{d}:{i}:c:{key}"), label, &text(key)) {
                    let cmd = PackCommand::SetChainMember { chain: i, key: key.into(), value: Some(Value::String(v)) };
                    ops.push(ViewOp::Command(d, cmd));
                }
                ui.end_row();
            }
            let caps: Vec<&str> = chain
                .get("capabilities")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(v) = self.text(ui, &format!("{d}:{i}:c:capabilities"), "capabilities", &caps.join(", ")) {
                let list: Vec<Value> =
                    v.split(',').map(str::trim).filter(|c| !c.is_empty()).map(|c| json!(c)).collect();
                let value = (!list.is_empty()).then_some(Value::Array(list));
                ops.push(ViewOp::Command(
                    d,
                    PackCommand::SetChainMember { chain: i, key: "capabilities".into(), value },
                ));
            }
            ui.end_row();
            ui.label("internal");
            let mut internal = chain.get("internal").and_then(Value::as_bool).unwrap_or(false);
            if ui.checkbox(&mut internal, "hidden from the palette unless asked for").changed() {
                let value = internal.then_some(Value::Bool(true));
                ops.push(ViewOp::Command(d, PackCommand::SetChainMember { chain: i, key: "internal".into(), value }));
            }
            ui.end_row();
        });
    }

    fn parameters(&mut self, ui: &mut Ui, d: usize, chain: &Value, ops: &mut Vec<ViewOp>) {
        let i = self.place.chain;
        let specs = param_specs(chain);
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("Parameters ({})", specs.len())).strong());
            if ui.small_button("+ Add parameter").clicked() {
                let mut n = specs.len() + 1;
                while specs.iter().any(|s| s.name == format!("param{n}")) {
                    n += 1;
                }
                let spec = ParamSpec {
                    name: format!("param{n}"),
                    type_name: Some("string".into()),
                    default: Some(json!("")),
                    ..Default::default()
                };
                self.place.param = Some(spec.name.clone());
                ops.push(ViewOp::Command(d, PackCommand::SetParam { chain: i, old: None, spec: Box::new(spec) }));
            }
        });
        if self.place.param.as_ref().is_none_or(|p| !specs.iter().any(|s| &s.name == p)) {
            self.place.param = specs.first().map(|s| s.name.clone());
        }
        ui.horizontal_wrapped(|ui| {
            for s in &specs {
                if ui.selectable_label(self.place.param.as_deref() == Some(&s.name), &s.name).clicked() {
                    self.place.param = Some(s.name.clone());
                }
            }
        });
        let Some(spec) = specs.iter().find(|s| self.place.param.as_deref() == Some(&s.name)) else {
            ui.label(
                RichText::new(
                    "No parameters: promote values from the inspector (right-click → Make parameter…) or add one.",
                )
                .small()
                .color(theme::TEXT_DIM),
            );
            return;
        };
        ui.add_space(4.0);
        self.param_form(ui, d, spec, ops);
    }

    /// The schema keywords of one parameter; each committed change is one undoable command.
    fn param_form(&mut self, ui: &mut Ui, d: usize, spec: &ParamSpec, ops: &mut Vec<ViewOp>) {
        let i = self.place.chain;
        let key = |f: &str| format!("{d}:{i}:p:{}:{f}", spec.name);
        let mut next: Option<ParamSpec> = None;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            egui::Grid::new("cs-pv-param").num_columns(2).spacing([8.0, 6.0]).show(ui, |ui| {
                if let Some(v) = self.text(ui, &key("name"), "parameter name", &spec.name) {
                    next = Some(ParamSpec { name: v, ..spec.clone() });
                }
                ui.end_row();
                let type_label = ui.label("type");
                let shown = spec.type_name.clone().unwrap_or_else(|| "(any)".into());
                let combo =
                    egui::ComboBox::from_id_salt(("cs-pv-type", &spec.name)).selected_text(shown).show_ui(ui, |ui| {
                        for t in PARAM_TYPES {
                            if ui.selectable_label(spec.type_name.as_deref() == Some(t), t).clicked() {
                                next = Some(ParamSpec { type_name: Some(t.to_owned()), ..spec.clone() });
                            }
                        }
                    });
                combo.response.labelled_by(type_label.id);
                ui.end_row();
                let opt = |s: String| (!s.is_empty()).then_some(s);
                for (label, field, current) in [
                    ("title", "title", spec.title.clone()),
                    ("parameter description", "description", spec.description.clone()),
                    ("pattern", "pattern", spec.pattern.clone()),
                    ("format", "format", spec.format.clone()),
                ] {
                    if let Some(v) = self.text(ui, &key(field), label, current.as_deref().unwrap_or_default()) {
                        let mut s = spec.clone();
                        match field {
                            "title" => s.title = opt(v),
                            "description" => s.description = opt(v),
                            "pattern" => s.pattern = opt(v),
                            _ => s.format = opt(v),
                        }
                        next = Some(s);
                    }
                    ui.end_row();
                }
                if let Some(s) = self.value_rows(ui, &key, spec) {
                    next = Some(s);
                }
                ui.label("required");
                let mut required = spec.required;
                if ui.checkbox(&mut required, "users must fill it in").changed() {
                    next = Some(ParamSpec { required, ..spec.clone() });
                }
                ui.end_row();
                ui.label("x-openwop-sensitive");
                let mut sensitive = spec.sensitive;
                if ui.checkbox(&mut sensitive, "masked in forms and logs").changed() {
                    next = Some(ParamSpec { sensitive, ..spec.clone() });
                }
                ui.end_row();
            });
            if ui.button("Remove parameter").on_hover_text("Its tokens get its default back").clicked() {
                ops.push(ViewOp::Command(d, PackCommand::RemoveParam { chain: i, name: spec.name.clone() }));
            }
        });
        if let Some(s) = next {
            if s.name != spec.name {
                self.place.param = Some(s.name.clone());
            }
            ops.push(ViewOp::Command(
                d,
                PackCommand::SetParam { chain: i, old: Some(spec.name.clone()), spec: Box::new(s) },
            ));
        }
    }

    /// The rows of a parameter's values: default, enum values, minimum and maximum, each
    /// checked as typed. The spec as changed by the last row edited.
    fn value_rows(&mut self, ui: &mut Ui, key: &impl Fn(&str) -> String, spec: &ParamSpec) -> Option<ParamSpec> {
        let mut next = None;
        let json_text = |v: &Option<Value>| v.as_ref().map(|v| v.to_string()).unwrap_or_default();
        let k = key("default");
        if let Some(v) = self.text(ui, &k, "default", &json_text(&spec.default)) {
            match parse_default(&v, spec.type_name.as_deref()) {
                Ok(value) => {
                    self.place.invalid.remove(&k);
                    next = Some(ParamSpec { default: value, ..spec.clone() });
                }
                Err(e) => {
                    self.place.invalid.insert(k, e);
                }
            }
        }
        ui.end_row();
        let k = key("enum");
        let current = spec.enum_values.clone().map(Value::Array);
        if let Some(v) = self.text(ui, &k, "enum values", &json_text(&current)) {
            match serde_json::from_str::<Value>(&v) {
                Ok(Value::Array(items)) => {
                    self.place.invalid.remove(&k);
                    next = Some(ParamSpec { enum_values: Some(items), ..spec.clone() });
                }
                _ if v.trim().is_empty() => {
                    self.place.invalid.remove(&k);
                    next = Some(ParamSpec { enum_values: None, ..spec.clone() });
                }
                _ => {
                    self.place.invalid.insert(k, "a JSON array, e.g. [\"low\", \"high\"]".into());
                }
            }
        }
        ui.end_row();
        for (label, field, current) in [("minimum", "minimum", spec.minimum), ("maximum", "maximum", spec.maximum)] {
            let k = key(field);
            // f64's Display writes whole numbers without a fraction, as schemas have them.
            let shown = current.map(|n| n.to_string()).unwrap_or_default();
            if let Some(v) = self.text(ui, &k, label, &shown) {
                let parsed = if v.trim().is_empty() { Ok(None) } else { v.trim().parse::<f64>().map(Some) };
                match parsed {
                    Ok(n) => {
                        self.place.invalid.remove(&k);
                        let mut s = spec.clone();
                        if field == "minimum" {
                            s.minimum = n;
                        } else {
                            s.maximum = n;
                        }
                        next = Some(s);
                    }
                    Err(_) => {
                        self.place.invalid.insert(k, "a number".into());
                    }
                }
            }
            ui.end_row();
        }
        next
    }

    fn preview(&mut self, ui: &mut Ui, open: &OpenPack) {
        let Some(chain) = open.doc.draft().pack().and_then(|p| p.chains.get(self.place.chain)) else { return };
        ui.label(RichText::new("Tile").strong());
        let invalid = open.doc.draft().errors().any(|f| f.chain_id.as_deref() == Some(chain.chain_id()));
        palette::tile_card(ui, chain, &[], invalid, false);
        ui.add_space(6.0);
        ui.label(RichText::new("Parameter form, as users will see it").strong());
        let stale = self.preview.as_ref().is_none_or(|(raw, _)| *raw != *chain.raw());
        if stale {
            *self.preview = Some((chain.raw().clone(), InsertForm::preview_of(chain).into()));
        }
        if let Some((_, session)) = &mut self.preview {
            session.show_fields(ui, chain);
        }
    }

    /// A labelled single-line field showing `current`; returns the new text once committed
    /// (Enter or leaving the field) when it differs. Text that did not parse stays, with why.
    fn text(&mut self, ui: &mut Ui, key: &str, label: &str, current: &str) -> Option<String> {
        let l = ui.label(label);
        let mut out = None;
        ui.vertical(|ui| {
            let mut text = self.place.texts.get(key).cloned().unwrap_or_else(|| current.to_owned());
            let r = ui.add(egui::TextEdit::singleline(&mut text).desired_width(ui.available_width().min(260.0)));
            let r = r.labelled_by(l.id);
            if r.changed() {
                self.place.texts.insert(key.to_owned(), text.clone());
            }
            if r.lost_focus() {
                self.place.texts.remove(key);
                if text != current {
                    out = Some(text);
                }
            }
            if let Some(e) = self.place.invalid.get(key) {
                ui.label(RichText::new(format!("⚠ expected {e}")).small().color(theme::ERROR));
            }
        });
        out
    }
}

/// The findings of the pack now: what is wrong, where (by chain label and node name, the
/// pointer in its tooltip), and the code after them.
fn problems(ui: &mut Ui, open: &OpenPack) {
    let findings = open.doc.draft().findings();
    let chains = open.doc.draft().chains();
    let errors = findings.iter().filter(|f| f.is_error()).count();
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("Problems ({})", findings.len())).strong());
        if errors == 0 {
            ui.label(RichText::new("✔ the manifest is valid").color(theme::OK));
        } else {
            ui.label(RichText::new(crate::words::count(errors, "error", "errors")).color(theme::ERROR));
        }
    });
    egui::ScrollArea::vertical().id_salt("cs-pv-problems").auto_shrink([false, false]).show(ui, |ui| {
        for f in findings {
            let color = if f.is_error() { theme::ERROR } else { theme::WARN };
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(&f.message).color(color));
                let at = if f.pointer.is_empty() { "/" } else { f.pointer.as_str() };
                match pack_place(chains, at) {
                    Some(place) => ui.label(RichText::new(place).small().color(theme::TEXT_DIM)).on_hover_text(at),
                    None => ui.label(RichText::new(at).monospace().small().color(theme::TEXT_DIM)),
                };
                ui.label(RichText::new(f.code).monospace().small().color(theme::TEXT_DIM));
            });
        }
    });
}
