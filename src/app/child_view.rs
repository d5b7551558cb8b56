//! The read-only window that shows a sub-chain node's child workflow: its id, where it came
//! from, its nodes and edges, and the way to export the workflow with all its children. The
//! model is [`crate::editor::subchains`].

use super::action::Action;
use super::theme;
use super::window::{Window, WindowId, show_some};
use crate::editor::commands::CommandId;
use crate::editor::subchains::ChildView;
use egui::RichText;

const WINDOW_SIZE: egui::Vec2 = egui::vec2(620.0, 420.0);

#[derive(Default)]
pub struct ChildWindow {
    pub open: Option<ChildView>,
}

impl Window for ChildWindow {
    type Input<'a> = ();
    type Response = Vec<Action>;
    const ID: WindowId = WindowId::Child;
    const SIZE: Option<egui::Vec2> = Some(WINDOW_SIZE);

    fn close(&mut self) -> bool {
        self.open.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, (): ()) -> Vec<Action> {
        let mut actions = Vec::new();
        let title = "Child workflow";
        show_some::<Self, _, _>(
            ctx,
            &mut self.open,
            title,
            |s| s.centred(ctx, WINDOW_SIZE).constrained(),
            |ui, child| {
                ui.label(RichText::new(&child.workflow_id).monospace().strong());
                let chain = child.chain_id.as_deref().map_or(String::new(), |c| format!("chain {c}, "));
                let text = format!("{chain}{}. Read-only.", child.origin);
                ui.label(RichText::new(text).small().color(theme::TEXT_DIM));
                let wf = &child.workflow;
                ui.label(format!(
                    "{} · {}",
                    crate::words::count(wf.node_count(), "node", "nodes"),
                    crate::words::count(wf.graph.edge_count(), "edge", "edges")
                ));
                egui::ScrollArea::vertical().id_salt("cs-child-list").max_height(280.0).show(ui, |ui| {
                    egui::Grid::new("cs-child-nodes").num_columns(3).striped(true).show(ui, |ui| {
                        for ix in wf.nodes_in_order() {
                            let n = &wf.graph[ix];
                            ui.label(RichText::new(n.id()).monospace());
                            ui.label(RichText::new(n.type_id()).small().color(theme::TEXT_DIM));
                            ui.label(n.name());
                            ui.end_row();
                        }
                    });
                    ui.separator();
                    for e in wf.edges_in_order() {
                        let e = &wf.graph[e];
                        ui.label(RichText::new(format!("{} → {}", e.source(), e.target())).monospace().small());
                    }
                });
                ui.separator();
                let tip =
                    "The workflow and every sub-chain child, each as its own WorkflowDefinition, written together";
                if ui.button("Export bundle…").on_hover_text(tip).clicked() {
                    actions.push(Action::Run(CommandId::ExportBundle));
                }
            },
        );
        actions
    }
}
