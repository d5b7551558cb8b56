//! What the canvas draws at a zoom (semantic zoom): text goes first, then port dots, then
//! curves become straight lines and cards solid rects; what text is kept grows as the view
//! zooms out so it stays legible on screen. Zoom is screen points per canvas unit.

use super::{Rect, W, point};
use crate::editor::cards;

/// Smallest glyph size (screen points) worth drawing.
pub const LEGIBLE: f32 = 8.0;
/// Size of a card's small print at 1:1, and the most it grows to as the view zooms out:
/// a port name fills its port pitch at most.
pub const DETAIL_FONT: f32 = 11.0;
pub const DETAIL_MAX: f32 = cards::PORT_PITCH as f32 - 2.0;
/// Below these zoom levels a detail is not drawn. Type lines, port names and edge labels
/// grow as the view zooms out (see [`detail_font`]) and are dropped only where even their
/// largest size, a port pitch, falls under [`LEGIBLE`] on screen.
pub const LOD_DETAIL: f32 = LEGIBLE / DETAIL_MAX;
pub const LOD_TEXT: f32 = 0.42;
pub const LOD_PORTS: f32 = 0.28;
pub const LOD_SOLID: f32 = 0.12;
/// With more cards than this in view, only those the pointer can reach take input.
pub const INTERACT_ALL: usize = 400;
/// A workflow of at most this many cards keeps its titles down to [`LOD_TITLE`], where a
/// card is still some 44 points wide; the cost of text only matters on large graphs.
pub const FEW_CARDS: usize = INTERACT_ALL;
pub const LOD_TITLE: f32 = 0.2;
/// Below [`LOD_DETAIL`] a card's title is drawn this size on screen (points), its type this
/// size under it where the card has room.
pub const TITLE_PX: f32 = 13.0;
pub const TYPE_PX: f32 = 10.0;
/// Below the zoom of [`Lod::text`], a card keeps its title alone (at [`TITLE_ALONE_PX`] on
/// screen, cut to the card's width) where the card is at least this wide on screen (three
/// glyphs and an ellipsis; 13.6% for a card of the layout's width) and at most
/// [`TITLES_IN_VIEW`] cards are in view. Narrower, a title would be little more than an
/// ellipsis; with more in view, a redraw would lay out more text than a workflow of
/// [`FEW_CARDS`] cards at [`LOD_TITLE`] always has.
pub const TITLE_MIN_PX: f32 = 30.0;
pub const TITLES_IN_VIEW: usize = FEW_CARDS;
/// The size of a title alone on screen (points): at most this, at least 16% less (see
/// [`quantized_up`]).
pub const TITLE_ALONE_PX: f32 = 12.0;
/// A card drawn smaller than this (screen points) either way cannot show it is selected or
/// hovered by its own colour: it gets a ring that size instead.
pub const MARK: f32 = 7.0;
/// The width of that ring, in screen points.
pub const MARK_LINE: f32 = 1.5;

/// What detail a zoom level draws; text also depends on the workflow's size.
#[derive(Clone, Copy)]
pub struct Lod {
    pub zoom: f32,
    pub text_from: f32,
    /// Titles alone, further out than [`Lod::text`] (see [`TITLE_MIN_PX`]).
    pub titles: bool,
}

impl Lod {
    /// At `zoom`, on a workflow of `cards` cards of which `in_view` are in view (counted
    /// only where [`titles_fit`]).
    pub fn new(zoom: f32, cards: usize, in_view: usize) -> Self {
        let text_from = if cards <= FEW_CARDS { LOD_TITLE } else { LOD_TEXT };
        Lod { zoom, text_from, titles: titles_fit(zoom) && in_view <= TITLES_IN_VIEW }
    }

    /// Whether cards show their text: title, type, port names as the zoom allows.
    pub fn text(self) -> bool {
        self.zoom >= self.text_from
    }

    /// Whether cards show at least their titles.
    pub fn title(self) -> bool {
        self.text() || self.titles
    }
}

/// Whether a card at `zoom` is wide enough on screen for its title ([`TITLE_MIN_PX`]).
pub fn titles_fit(zoom: f32) -> bool {
    zoom * W >= TITLE_MIN_PX
}

/// `zoom` rounded down to a quarter of an octave, for the size of text kept at a size on
/// screen: each font size has its own glyphs in the font atlas, so a continuous zoom would
/// fill it with sizes; text comes out at most 19% larger than asked.
pub fn quantized(zoom: f32) -> f32 {
    (zoom.log2() * 4.0).floor().mul_add(0.25, 0.0).exp2()
}

/// [`quantized`] rounded up instead: text sized by it is at most the size asked, and at
/// least 16% less.
pub fn quantized_up(zoom: f32) -> f32 {
    quantized(zoom) * 2f32.powf(0.25)
}

/// The size (canvas units) of a card's small print and of edge labels at `zoom`: 11 at
/// 1:1 and closer, growing as the view zooms out to stay [`LEGIBLE`] on screen, up to
/// [`DETAIL_MAX`].
pub fn detail_font(zoom: f32) -> f32 {
    (LEGIBLE / zoom).clamp(DETAIL_FONT, DETAIL_MAX)
}

/// A stroke `n` screen points wide when zoomed out, growing with the zoom when zoomed in
/// (canvas units).
pub fn px(zoom: f32, n: f32) -> f32 {
    n / zoom.min(1.0)
}

/// Whether `card` (`unit` of its units to a screen point) is too small to show a highlight.
pub fn is_tiny(card: Rect, unit: f32) -> bool {
    card.width() < MARK * unit || card.height() < MARK * unit
}

/// The ring round a highlighted card: at least [`MARK`] screen points across, one point
/// clear of the card.
pub fn mark_ring(card: Rect, unit: f32) -> Rect {
    let centre = point((card.min.x + card.max.x) / 2.0, (card.min.y + card.max.y) / 2.0);
    let size = point(card.width().max(MARK * unit), card.height().max(MARK * unit));
    Rect::from_center_size(centre, size).expand(unit + MARK_LINE * unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_zoomed_out_use_few_font_sizes_none_smaller_than_asked() {
        // A continuous zoom from 20% to 50% would lay titles out in as many sizes, each
        // rasterised into the font atlas. Quarter octaves: floor(4 log2 z) runs from
        // floor(-9.29) = -10 to -4, seven steps.
        let zooms = (0..=3000).map(|k| LOD_TITLE + (LOD_DETAIL - LOD_TITLE) * k as f32 / 3000.0);
        let mut sizes: Vec<u32> = zooms
            .map(|z| {
                let size = TITLE_PX / quantized(z);
                assert!(size * z >= TITLE_PX - 1e-3 && size * z <= TITLE_PX * 1.19, "{z}: {size}");
                size.to_bits()
            })
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        assert_eq!(sizes.len(), 7);
    }

    #[test]
    fn titles_stay_down_to_a_card_three_glyphs_wide_with_few_cards_in_view() {
        // A 220-unit card is 30 points wide at 30 / 220 = 13.6%.
        assert!(Lod::new(0.14, 10, 10).title() && !Lod::new(0.14, 10, 10).text());
        assert!(!Lod::new(0.13, 10, 10).title(), "28.6 points: narrower than three glyphs");
        assert!(!Lod::new(0.14, 20_000, TITLES_IN_VIEW + 1).title(), "too many in view");
        assert!(Lod::new(0.14, 20_000, TITLES_IN_VIEW).title());
        // The details keep their own zooms: 20% with few cards, 42% with many.
        assert!(Lod::new(0.2, 10, 10).text() && !Lod::new(0.41, 401, 10).text());
    }

    #[test]
    fn small_print_stays_legible_and_never_outgrows_a_port_pitch() {
        // 11 units at 1:1 and closer; 8 / 0.5 = 16 = the 18-unit pitch less 2 at 50%.
        assert_eq!(detail_font(2.0), DETAIL_FONT);
        assert_eq!(detail_font(0.5), 16.0);
        assert_eq!(detail_font(0.1), DETAIL_MAX);
    }

    #[test]
    fn a_tiny_card_gets_a_ring_a_mark_wide_round_it() {
        // 2 × 2 units at 1 unit a point: under the 7-point mark, so a ring of 7 + 2 × 2.5.
        let card = Rect::from_min_size(point(10.0, 10.0), point(2.0, 2.0));
        assert!(is_tiny(card, 1.0));
        let ring = mark_ring(card, 1.0);
        assert_eq!((ring.width(), ring.height()), (12.0, 12.0));
        assert_eq!(ring.min, point(5.0, 5.0));
        assert!(!is_tiny(Rect::from_min_size(point(0.0, 0.0), point(8.0, 8.0)), 1.0));
    }
}
