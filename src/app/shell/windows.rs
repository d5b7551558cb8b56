use super::App;
use crate::app::app_reparam::WINDOW_HEIGHT;
use crate::app::command_ui::Help;
use crate::app::registry::Request;
use crate::app::trust_settings::SettingsInput;
use crate::app::window::{Window, WindowId};
use crate::editor::app_reparam::AppReparam;
use crate::editor::registry_view::RegistryView;
use crate::editor::subchains::ChildView;

impl App {
    /// Esc closes the topmost of the editor's open windows (by their layers' order), before
    /// anything under them sees it (the form, the selection). The in-app file dialog, the
    /// palette, quick-add, menus and modal questions answer Esc themselves.
    pub(super) fn close_topmost_window(&mut self, ctx: &egui::Context) {
        let busy = self.windows.finder.is_some()
            || ctx.memory(|m| m.top_modal_layer()).is_some()
            || egui::Popup::is_any_open(ctx);
        if busy || !ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
            return;
        }
        let w = &mut self.windows;
        let open = [
            w.dialogs.state(),
            Help(&mut w.shortcut_help).state(),
            self.panels.palette.explanation.state(),
            self.panels.palette.findings.state(),
            self.model.problems.state(),
            w.trust_window.state(),
            w.registry.state(),
            self.model.publish.state(),
            w.app_reparam.state(),
            w.authoring.view.state(),
            self.model.authoring.extract.state(),
            self.model.authoring.make.state(),
            (WindowId::ReviewUpdate, w.updates.review.is_some()),
        ];
        let layers: Vec<egui::LayerId> = ctx.memory(|m| m.layer_ids().collect());
        let depth = |w: WindowId| layers.iter().position(|l| l.id == w.id());
        let Some(top) = open.iter().filter(|(_, is_open)| *is_open).map(|(w, _)| *w).max_by_key(|w| depth(*w)) else {
            return;
        };
        if top == WindowId::FileDialog {
            return;
        }
        ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
        let w = &mut self.windows;
        match top {
            WindowId::FileDialog | WindowId::Child | WindowId::Compare => {}
            WindowId::ShortcutHelp => Help(&mut w.shortcut_help).close(),
            WindowId::Explanation => self.panels.palette.explanation.close(),
            WindowId::PackFindings => self.panels.palette.findings.close(),
            WindowId::Refusal => self.model.problems.close(),
            WindowId::Settings => w.trust_window.close(),
            WindowId::Registry => w.registry.close(),
            WindowId::Publish => self.model.publish.close(),
            WindowId::AppReparam => w.app_reparam.close(),
            WindowId::PackView => w.authoring.view.close(),
            WindowId::Extract => self.model.authoring.extract.close(),
            WindowId::MakeParameter => self.model.authoring.make.close(),
            WindowId::ReviewUpdate => w.updates.review = None,
        }
    }
}

impl App {
    /// Open the window for the workflow's app instance, selecting the nodes edited by hand.
    pub(super) fn open_app_reparam(&mut self) {
        match AppReparam::open(self.model.doc.workflow(), &self.model.library.packs) {
            Ok(r) => {
                self.model.doc.selection.clear();
                for e in &r.hand_edits {
                    if let crate::workflow::app_instance::HandEdit::Changed { node_id, .. } = e {
                        self.model.doc.selection.nodes.insert(node_id.clone());
                    }
                }
                // The instance above the window, so what the edits concern stays in view.
                let wf = self.model.doc.workflow();
                let nodes = crate::editor::app_reparam::instance_nodes(wf, &r.instance);
                let region = nodes
                    .iter()
                    .filter_map(|id| wf.node(id))
                    .map(|ix| {
                        let (x, y) = wf.graph[ix].position();
                        crate::app::canvas::card_rect(egui::pos2(x as f32, y as f32))
                    })
                    .reduce(egui::Rect::union);
                if let Some(region) = region {
                    let canvas = self.panels.canvas.screen_rect();
                    let top = canvas.min + egui::vec2(16.0, 16.0);
                    let bottom =
                        egui::pos2(canvas.max.x - 16.0, (canvas.max.y - WINDOW_HEIGHT - 16.0).max(top.y + 80.0));
                    self.panels.canvas.frame_region(region, egui::Rect::from_min_max(top, bottom));
                }
                self.windows.app_reparam.start(r);
            }
            Err(e) => self.model.problems.error(e),
        }
    }

    /// Whether the re-parameterisation window is open.
    pub fn app_reparam_open(&self) -> bool {
        self.windows.app_reparam.open.is_some()
    }
}

impl App {
    /// The child workflow window's content, for tests.
    pub fn child_view(&self) -> Option<&ChildView> {
        self.windows.child_window.open.as_ref()
    }
}

impl App {
    /// The Registry window while it is open, and what was asked of it; and the answer of an
    /// Install or Open running in the background, taken whether or not the window is open.
    pub(super) fn registry_window(&mut self, ctx: &egui::Context) {
        if let Some(answer) = self.model.registry.poll_job() {
            self.session(|s| s.registry_done(answer));
        }
        if self.model.registry.job().is_some() {
            // The job's thread cannot wake the UI; look again shortly.
            ctx.request_repaint_after(std::time::Duration::from_millis(30));
        }
        let Some(request) = self.windows.registry.show(ctx, &mut self.model.registry) else { return };
        let view = &mut self.model.registry;
        match request {
            Request::ChooseFolder => self.ask(crate::editor::file_dialog::Purpose::Registry),
            Request::OpenUrl => view.open_url(),
            Request::ChooseInstallFolder => self.ask(crate::editor::file_dialog::Purpose::InstallFolder),
            Request::Install { name, version } => {
                let opts = crate::registry::InstallOptions {
                    // The editor's own trust switch decides, as it does for opening packs.
                    allow_unsigned: !self.model.settings.trust.require_signed,
                    protocol_major: self.model.library.trust.host.protocol_major,
                };
                view.start_install(&name, &version, opts);
                if let Some(e) = view.refused_to_start() {
                    self.model.problems.error(e);
                }
            }
            Request::Open { name, version } => {
                view.start_open(&name, &version);
                if let Some(e) = view.refused_to_start() {
                    self.model.problems.error(e);
                }
            }
        }
    }

    /// The registry view, for tests and tools that drive the window.
    pub fn registry_view(&self) -> &RegistryView {
        &self.model.registry
    }
}

impl App {
    /// Carry the settings into the policy and re-check everything it decides: the packs,
    /// the workflow's findings and an open form. The keys folder is read only when
    /// `reload_keys` (at start, or when a folder is chosen).
    pub(super) fn apply_trust_settings(&mut self, reload_keys: bool) {
        self.model.apply_trust_settings(reload_keys);
        self.recheck_form();
    }

    /// An open form is opened afresh with the values typed so far, so that what blocks it and
    /// its preview follow the new policy.
    fn recheck_form(&mut self) {
        if let Some(form) = &mut self.windows.form {
            form.recheck(&self.model.library.packs, &self.model.library.trust);
        }
    }

    /// The Settings window while it is open; a change is applied after it is drawn.
    pub(super) fn trust_settings_window(&mut self, ctx: &egui::Context) {
        if !self.windows.trust_window.open {
            return;
        }
        let before = self.model.settings.trust.clone();
        let nodes = self.model.doc.workflow().node_count();
        let at = self.panels.canvas.screen_rect().min + egui::vec2(16.0, 16.0);
        let input = SettingsInput {
            settings: &mut self.model.settings,
            keys: &self.model.library.trust.trusted_keys,
            files: &self.model.trust_files,
            nodes,
            dialogs_note: self.windows.dialogs.describe(),
            at,
        };
        let asked = self.windows.trust_window.show(ctx, input);
        let reload = self.model.settings.trust.trusted_keys != before.trusted_keys;
        if asked.choose_keys {
            self.ask(crate::editor::file_dialog::Purpose::TrustedKeys);
        }
        if let Some(command) = asked.import {
            self.actions.push(crate::app::action::Action::Run(command));
        }
        if self.model.settings.trust.node_catalog.is_none() {
            self.model.trust_files.node_catalog = None;
        }
        if reload || self.model.settings.trust != before {
            self.apply_trust_settings(reload);
        }
    }
}
