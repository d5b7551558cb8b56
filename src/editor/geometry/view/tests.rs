use super::*;
use crate::editor::arrange::tests::workflow;
use crate::editor::geometry::Curve;

fn seq_of(wf: &Workflow, id: &str) -> u64 {
    wf.graph.edge_indices().map(|e| &wf.graph[e]).find(|e| e.id() == id).unwrap().seq
}

#[test]
fn cards_links_and_back_edges_come_from_the_workflow() {
    // a → b → c and c → b: the last closes a loop, so it is the one back edge.
    let wf = workflow(&[("a", 0.0, 0.0), ("b", 400.0, 0.0), ("c", 800.0, 0.0)], &[("a", "b"), ("b", "c"), ("c", "b")]);
    let view = CanvasView::build(&wf, (1, 1), None);
    assert_eq!(view.cards.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(view.links.iter().map(|l| l.loopback).collect::<Vec<_>>(), [false, false, true]);
    assert_eq!(view.boxes[1].pos, point(400.0, 0.0));
    // The cards' bounds: 800 + a card's 220 wide, one card's 96 high.
    assert_eq!(view.bounds, Some(Rect::from_min_max(point(0.0, 0.0), point(1020.0, 96.0))));
    // The loop back from c to b runs below the cards, so Fit shows more than the cards.
    let fit = view.fit_bounds.unwrap();
    assert!(fit.bottom() > 96.0 && fit.contains_rect(view.bounds.unwrap()), "{fit:?}");
    // a is the one card nothing feeds.
    assert_eq!(view.entry(), Some(Rect::from_min_size(point(0.0, 0.0), point(220.0, 96.0))));
    assert_eq!(view.text(&wf, 2).name, "c");
}

#[test]
fn the_hit_tests_find_the_wire_and_the_input_port_under_a_point() {
    let wf = workflow(&[("a", 0.0, 0.0), ("b", 400.0, 0.0)], &[("a", "b")]);
    let view = CanvasView::build(&wf, (1, 1), None);
    let at = view.positions(None);
    // a's output is at its right edge, b's input at its left, both 65 units down (the port
    // area runs from 40 to 90 and holds one port): the wire runs level between them.
    assert_eq!(view.edge_at(point(310.0, 66.0), 3.0, &at), Some(seq_of(&wf, "e1")));
    assert_eq!(view.edge_at(point(310.0, 75.0), 3.0, &at), None);
    assert_eq!(view.input_port_at(point(402.0, 64.0), &at), Some((1, 0)));
    // Anywhere over the card, or a little outside it, still finds its port.
    assert_eq!(view.input_port_at(point(600.0, 10.0), &at), Some((1, 0)));
    assert_eq!(view.input_port_at(point(300.0, -30.0), &at), None);
}

#[test]
fn a_drag_moves_only_its_cards() {
    let wf = workflow(&[("a", 0.0, 0.0), ("b", 400.0, 0.0)], &[("a", "b")]);
    let view = CanvasView::build(&wf, (1, 1), None);
    let drag = Drag { ids: vec!["b".into()], delta: point(10.0, -20.0) };
    assert_eq!(view.positions(Some(&drag)), [point(0.0, 0.0), point(410.0, -20.0)]);
    assert_eq!(view.live(Some(&drag)), [false, true]);
    assert_eq!(view.live(None), [false, false]);
}

#[test]
fn a_move_is_followed_and_any_other_edit_rebuilds() {
    let wf = workflow(&[("a", 0.0, 0.0), ("b", 400.0, 0.0)], &[("a", "b")]);
    let mut view = CanvasView::build(&wf, (1, 7), None);
    assert_eq!(view.refresh(&wf, (1, 7), None, None), None, "the revision it shows");
    let moved = workflow(&[("a", 0.0, 0.0), ("b", 400.0, 300.0)], &[("a", "b")]);
    let ids = ["b".to_owned()];
    assert_eq!(view.refresh(&moved, (2, 7), Some((1, &ids)), None), Some(false));
    assert_eq!(view.boxes[1].pos, point(400.0, 300.0));
    assert_eq!(view.bounds, Some(Rect::from_min_max(point(0.0, 0.0), point(620.0, 396.0))));
    // A move made from another revision than the one shown cannot be followed.
    assert_eq!(view.refresh(&wf, (4, 7), Some((3, &ids)), None), Some(true));
    assert_eq!(view.boxes[1].pos, point(400.0, 0.0));
}

#[test]
fn the_minimap_counts_cards_per_cell_past_two_thousand() {
    let n = MINIMAP_CARDS + 1;
    let nodes: Vec<(String, f64, f64)> =
        (0..n).map(|i| (format!("n{i}"), (i % 50) as f64 * 300.0, (i / 50) as f64 * 150.0)).collect();
    let refs: Vec<(&str, f64, f64)> = nodes.iter().map(|(id, x, y)| (id.as_str(), *x, *y)).collect();
    let view = CanvasView::build(&workflow(&refs, &[]), (1, 1), None);
    let MinimapCells::Density { cols, rows, counts, .. } = &view.minimap else { panic!("not a density grid") };
    assert_eq!((*cols, *rows, counts.iter().sum::<u32>()), (96, 64, n as u32));
    let few = CanvasView::build(&workflow(&refs[..3], &[]), (1, 1), None);
    assert!(matches!(&few.minimap, MinimapCells::Cards(c) if c.len() == 3));
}

#[test]
fn marks_read_one_per_line_and_counts_shorten() {
    assert_eq!(marks_meaning(0b101, ["A", "B", "C", "D"]), format!("A {}\nC {}", MARK_MEANINGS[0], MARK_MEANINGS[2]));
    assert_eq!(
        stats_forms(1, 2, 3),
        ["1 node · 2 edges · 3 chain instances", "1 node · 2 edges · 3 instances", "1 node · 2 edges", "1 · 2 · 3"]
    );
}

/// Whether any of `curve`, sampled densely, lies inside `card`'s body.
fn runs_through(curve: &Curve, card: Rect) -> bool {
    curve.points(400).iter().any(|p| card.shrink(1.0).contains(*p))
}

#[test]
fn a_dragged_cards_wire_goes_round_the_cards_it_would_cross() {
    // a and b on one row; c far below, so a → c passes nowhere near b. Dragging c up level
    // with a puts b in the wire's straight way: it must bend round b while the drag goes on.
    let wf = workflow(&[("a", 0.0, 0.0), ("b", 400.0, 0.0), ("c", 800.0, 2000.0)], &[("a", "c")]);
    let mut view = CanvasView::build(&wf, (1, 1), None);
    let drag = Drag { ids: vec!["c".into()], delta: point(0.0, -2000.0) };
    view.follow_drag(Some(&drag));
    let at = view.positions(Some(&drag));
    let b = view.rect(1, at[1]);
    let plain = Curve::forward(port_pos(view.rect(0, at[0]), 0, 1, true), port_pos(view.rect(2, at[2]), 0, 1, false));
    assert!(runs_through(&plain, b), "the straight wire would cross b");
    let wire = view.link_curve(&view.links[0], &at);
    assert!(!runs_through(&wire, b), "while dragged: {wire:?}");
    // Only while the drag lasts: at rest the cards are back where the view has them.
    view.follow_drag(None);
    assert_eq!(view.links[0].drag_bend, None);
}
