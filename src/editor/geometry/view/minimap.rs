//! What the minimap shows of the cards: each card, or how many fall in each cell of a grid.

use super::CardBox;
use crate::editor::geometry::{Rect, W, point};

/// Up to this many cards the minimap draws each; more, a density grid.
pub const MINIMAP_CARDS: usize = 2_000;
/// The density grid's columns and rows.
const COLS: usize = 96;
const ROWS: usize = 64;

#[derive(Default)]
pub enum MinimapCells {
    #[default]
    Empty,
    /// Up to [`MINIMAP_CARDS`]: each card.
    Cards(Vec<Rect>),
    /// More: how many cards fall in each cell of a `cols` × `rows` grid over `area`, row by
    /// row.
    Density { area: Rect, cols: usize, rows: usize, counts: Vec<u32> },
}

impl MinimapCells {
    /// Of `cards`, which lie within `bounds`.
    pub fn of(cards: &[CardBox], bounds: Option<Rect>) -> Self {
        let Some(b) = bounds else { return Self::Empty };
        if cards.len() <= MINIMAP_CARDS {
            return Self::Cards(cards.iter().map(|c| Rect::from_min_size(c.pos, point(W, c.h))).collect());
        }
        let cell = point(b.width() / COLS as f32, b.height() / ROWS as f32);
        let mut counts = vec![0u32; COLS * ROWS];
        for c in cards {
            let col = (((c.pos.x - b.min.x) / cell.x) as usize).min(COLS - 1);
            let row = (((c.pos.y - b.min.y) / cell.y) as usize).min(ROWS - 1);
            counts[row * COLS + col] += 1;
        }
        Self::Density { area: b, cols: COLS, rows: ROWS, counts }
    }
}
