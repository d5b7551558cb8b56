use super::App;
use crate::app::app_reparam::WINDOW_HEIGHT;
use crate::app::command_ui::Help;
use crate::app::registry::Request;
use crate::app::trust_settings::SettingsInput;
use crate::app::window::{Window, WindowId};
use crate::editor::app_reparam::AppReparam;
use crate::editor::registry_view::RegistryView;
use crate::editor::subchains::ChildView;

/// The windows Esc closes, and the in-app file dialog, which answers Esc itself. The child
/// workflow and the comparison with the saved version are not among them: Esc passes them.
const ESC_WINDOWS: [WindowId; 13] = [
    WindowId::FileDialog,
    WindowId::ShortcutHelp,
    WindowId::Explanation,
    WindowId::PackFindings,
    WindowId::Refusal,
    WindowId::Settings,
    WindowId::Registry,
    WindowId::Publish,
    WindowId::AppReparam,
    WindowId::PackView,
    WindowId::Extract,
    WindowId::MakeParameter,
    WindowId::ReviewUpdate,
];

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
        // The windows egui drew last frame, topmost first; then the others, since a window
        // opened after the windows were drawn (by an action) is open but not drawn yet.
        let mut drawn: Vec<WindowId> = ctx.memory(|m| {
            let shown = m.layer_ids().filter(|l| m.areas().visible_last_frame(l));
            shown.filter_map(|l| ESC_WINDOWS.into_iter().find(|w| w.id() == l.id)).collect()
        });
        drawn.reverse();
        let rest = ESC_WINDOWS.into_iter().filter(|w| !drawn.contains(w) && *w != WindowId::FileDialog);
        let dialog_open = self.windows.dialogs.open.is_some();
        let (w, palette, model) = (&mut self.windows, &mut self.panels.palette, &mut self.model);
        // Close it; whether it was open.
        let mut close = |id| match id {
            WindowId::FileDialog | WindowId::Child | WindowId::Compare => false,
            WindowId::ShortcutHelp => Help(&mut w.shortcut_help).close(),
            WindowId::Explanation => palette.explanation.close(),
            WindowId::PackFindings => palette.findings.close(),
            WindowId::Refusal => model.problems.close(),
            WindowId::Settings => w.trust_window.close(),
            WindowId::Registry => w.registry.close(),
            WindowId::Publish => model.publish.close(),
            WindowId::AppReparam => w.app_reparam.close(),
            WindowId::PackView => w.authoring.view.close(),
            WindowId::Extract => model.authoring.extract.close(),
            WindowId::MakeParameter => model.authoring.make.close(),
            WindowId::ReviewUpdate => w.review.close(),
        };
        for top in drawn.iter().copied().chain(rest) {
            if top == WindowId::FileDialog {
                if dialog_open {
                    return;
                }
                continue;
            }
            // One drawn last frame may have been closed since (its close button): the next.
            if close(top) {
                ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
                return;
            }
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
